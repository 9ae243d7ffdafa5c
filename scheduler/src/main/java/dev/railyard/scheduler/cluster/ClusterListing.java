package dev.railyard.scheduler.cluster;

import dev.railyard.topology.InputException;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.dsl.base.ResourceDefinitionContext;

import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * One-shot {@link ClusterObjects} for commands that run once ({@code railyard explain}, {@code railyard pools}):
 * every {@link WatchedKind} listed once, cluster-wide, with no informers.
 */
public final class ClusterListing {
    private ClusterListing() {
    }

    /** Same as {@link #listOnce(KubernetesClient, List)}, dropping the notes. */
    public static ClusterObjects listOnce(KubernetesClient client) {
        return listOnce(client, new ArrayList<>());
    }

    /**
     * Lists every watched kind once (custom resources across all namespaces). A custom resource whose CRD is not
     * installed (404), or that the caller may not list (403), is put in {@link ClusterObjects#disabled()} with a note
     * and the listing goes on; such a failure for Nodes or Pods, and any failure to reach the API server, ends it.
     *
     * @param client a client (its default namespace is ignored)
     * @param notes  receives one line per kind left out
     * @return the objects, {@code synced} true, {@code version} 0
     * @throws InputException naming the kind and the API server when a core kind cannot be listed
     */
    public static ClusterObjects listOnce(KubernetesClient client, List<String> notes) {
        Map<WatchedKind, List<GenericKubernetesResource>> objects = new LinkedHashMap<>();
        Set<WatchedKind> disabled = new LinkedHashSet<>();
        for (WatchedKind kind : WatchedKind.ALL) {
            ResourceDefinitionContext ctx = new ResourceDefinitionContext.Builder()
                    .withGroup(kind.group()).withVersion(kind.version()).withKind(kind.kind())
                    .withPlural(kind.plural()).withNamespaced(kind.namespaced()).build();
            try {
                var resources = client.genericKubernetesResources(ctx);
                List<GenericKubernetesResource> items = kind.namespaced()
                        ? resources.inAnyNamespace().list().getItems() : resources.list().getItems();
                for (GenericKubernetesResource r : items) {
                    // list items come without apiVersion and kind
                    r.setApiVersion(kind.apiVersion());
                    r.setKind(kind.kind());
                }
                objects.put(kind, List.copyOf(items));
            } catch (KubernetesClientException e) {
                int code = e.getCode();
                if (kind.optional() && (code == 404 || code == 403)) {
                    disabled.add(kind);
                    objects.put(kind, List.of());
                    notes.add(kind + (code == 404 ? " is not installed" : " cannot be listed (forbidden)") + ": "
                            + kind.feature() + " is off");
                    continue;
                }
                throw new InputException("cannot list " + kind.plural() + " from " + client.getMasterUrl() + ": "
                        + (code > 0 ? "HTTP " + code + " " : "") + oneLine(rootMessage(e)), e);
            }
        }
        return new ClusterObjects(Instant.now(), 0, objects, disabled, true);
    }

    /**
     * @return the message of the innermost cause that has one (connection refused, unknown host, ...), else the name
     *         of the first specific cause ({@code ConnectException}), else the exception's own message
     */
    private static String rootMessage(Throwable e) {
        String network = networkProblem(e);
        if (network != null) {
            // fabric8's "Operation: [list] for kind: [Node] with name: [null] in namespace: [null] failed." only
            // repeats what the caller says; the network failure under it is what a person can act on
            return network;
        }
        String withMessage = null;
        String named = null;
        for (Throwable t = e.getCause(); t != null && t != t.getCause(); t = t.getCause()) {
            if (t.getMessage() != null && !t.getMessage().isBlank()) {
                withMessage = t.getClass().getSimpleName() + ": " + t.getMessage();
            } else if (named == null && t.getClass() != java.io.IOException.class) {
                named = t.getClass().getSimpleName();
            }
        }
        String top = e.getMessage() == null ? "" : e.getMessage();
        return withMessage != null ? top + " (" + withMessage + ")" : named != null ? top + " (" + named + ")" : top;
    }

    /**
     * @return the failure to reach the API server in words ("cannot connect (connection refused ...)", "unknown
     *         host ...", "timed out", "TLS handshake failed: ..."), or null when the server was reached
     */
    public static String networkProblem(Throwable e) {
        for (Throwable t = e; t != null && t != t.getCause(); t = t.getCause()) {
            String m = t.getMessage() == null || t.getMessage().isBlank() ? null : t.getMessage();
            if (t instanceof java.net.UnknownHostException) {
                return "unknown host" + (m == null ? "" : " " + m);
            }
            if (t instanceof java.net.http.HttpConnectTimeoutException || t instanceof java.net.SocketTimeoutException
                    || t instanceof java.net.http.HttpTimeoutException) {
                return "timed out" + (m == null ? "" : " (" + m + ")");
            }
            if (t instanceof java.net.ConnectException) {
                return "cannot connect" + (m == null ? " (connection refused: is the API server running and the "
                        + "kubeconfig's server address right?)" : ": " + m);
            }
            if (t instanceof javax.net.ssl.SSLException) {
                return "TLS handshake failed" + (m == null ? "" : ": " + m);
            }
        }
        return null;
    }

    private static String oneLine(String s) {
        if (s == null) {
            return "no answer";
        }
        String t = s.replaceAll("\\s+", " ").trim();
        return t.length() > 200 ? t.substring(0, 200) + "..." : t;
    }
}
