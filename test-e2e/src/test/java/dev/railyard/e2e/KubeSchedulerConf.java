package dev.railyard.e2e;

import java.net.URI;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Text of a {@code KubeSchedulerConfiguration} ({@code kubescheduler.config.k8s.io/v1}) for kube-scheduler's
 * {@code --config}: the admin kubeconfig, no leader election, and optionally one HTTP extender (field names from
 * {@code k8s.io/kube-scheduler/config/v1/types.go} {@code Extender}).
 */
public final class KubeSchedulerConf {

    private KubeSchedulerConf() {
    }

    /**
     * One {@code extenders[]} entry.
     *
     * @param urlPrefix base URL, scheme included
     * @param filterVerb verb path for Filter, or empty to not call it
     * @param prioritizeVerb verb path for Prioritize, or empty
     * @param bindVerb verb path for Bind, or empty (kube-scheduler then binds itself)
     * @param weight multiplier of the extender's 0–10 scores (must be positive when prioritizeVerb is set)
     * @param nodeCacheCapable send node names only instead of full Nodes
     * @param ignorable treat the extender's failures as if it were absent
     * @param managedResources extended resources the extender manages; empty = every pod goes to it
     * @param httpTimeout per-call timeout
     * @param tls client certificate and CA for an {@code https} URL ({@code tlsConfig}), as users paste it
     */
    public record Extender(URI urlPrefix, String filterVerb, String prioritizeVerb, String bindVerb, int weight,
                           boolean nodeCacheCapable, boolean ignorable, List<String> managedResources,
                           Duration httpTimeout, Optional<Tls> tls) {

        /** An extender without {@code tlsConfig}. */
        public Extender(URI urlPrefix, String filterVerb, String prioritizeVerb, String bindVerb, int weight,
                        boolean nodeCacheCapable, boolean ignorable, List<String> managedResources,
                        Duration httpTimeout) {
            this(urlPrefix, filterVerb, prioritizeVerb, bindVerb, weight, nodeCacheCapable, ignorable,
                    managedResources, httpTimeout, Optional.empty());
        }

        /**
         * @throws IllegalArgumentException if {@code prioritizeVerb} is set and {@code weight} is not positive
         *         (kube-scheduler rejects that config: "must have a positive weight applied to it")
         */
        public Extender {
            managedResources = List.copyOf(managedResources);
            if (!prioritizeVerb.isEmpty() && weight <= 0) {
                throw new IllegalArgumentException("kube-scheduler extender " + urlPrefix
                        + ": weight must be positive when prioritizeVerb is set, got " + weight);
            }
        }
    }

    /**
     * {@code tlsConfig} of an extender (k8s.io/kube-scheduler v0.35.4 {@code config/v1} {@code ExtenderTLSConfig}).
     *
     * @param certFile client certificate, PEM
     * @param keyFile  its key, PEM
     * @param caFile   the CA that verifies the extender's serving certificate, PEM
     */
    public record Tls(Path certFile, Path keyFile, Path caFile) {
    }

    /** The configuration as YAML text. */
    public static String render(Path kubeconfig, Optional<Extender> extender) {
        Map<String, Object> conf = new LinkedHashMap<>();
        conf.put("apiVersion", "kubescheduler.config.k8s.io/v1");
        conf.put("kind", "KubeSchedulerConfiguration");
        conf.put("clientConnection", Map.of("kubeconfig", kubeconfig.toString()));
        conf.put("leaderElection", Map.of("leaderElect", false));
        extender.ifPresent(e -> {
            Map<String, Object> x = new LinkedHashMap<>();
            x.put("urlPrefix", e.urlPrefix().toString());
            if (!e.filterVerb().isEmpty()) {
                x.put("filterVerb", e.filterVerb());
            }
            if (!e.prioritizeVerb().isEmpty()) {
                x.put("prioritizeVerb", e.prioritizeVerb());
                x.put("weight", e.weight());
            }
            if (!e.bindVerb().isEmpty()) {
                x.put("bindVerb", e.bindVerb());
            }
            x.put("enableHTTPS", "https".equals(e.urlPrefix().getScheme()));
            e.tls().ifPresent(t -> x.put("tlsConfig", Map.of("certFile", t.certFile().toString(),
                    "keyFile", t.keyFile().toString(), "caFile", t.caFile().toString())));
            x.put("httpTimeout", e.httpTimeout().toMillis() + "ms");
            x.put("nodeCacheCapable", e.nodeCacheCapable());
            x.put("ignorable", e.ignorable());
            if (!e.managedResources().isEmpty()) {
                x.put("managedResources", e.managedResources().stream()
                        .map(r -> Map.of("name", r, "ignoredByScheduler", false)).toList());
            }
            conf.put("extenders", List.of(x));
        });
        return VolcanoSchedulerConf.yaml(conf);
    }
}
