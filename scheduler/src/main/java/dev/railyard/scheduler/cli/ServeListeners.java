package dev.railyard.scheduler.cli;

import dev.railyard.scheduler.protocol.VerbHandler;
import dev.railyard.scheduler.protocol.kube.KubeExtender;
import dev.railyard.scheduler.protocol.volcano.VolcanoExtender;
import dev.railyard.scheduler.server.ExtenderServer;
import dev.railyard.scheduler.server.ReadinessProbe;
import dev.railyard.scheduler.server.ServerSettings;
import dev.railyard.scheduler.server.TlsSettings;
import dev.railyard.scheduler.service.ExplainEndpoint;
import dev.railyard.topology.InputException;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import org.slf4j.Logger;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * The listeners of {@code railyard serve}, started together and stopped together: the main port (Volcano verbs,
 * probes, metrics, and the kube-scheduler verbs when there is no secure port), the secure port (kube-scheduler
 * verbs with client certificates, {@code /explain}) and the admission webhook's port. All bind the main address
 * (docs/serve.md).
 */
final class ServeListeners implements AutoCloseable {
    private final List<ExtenderServer> started = new ArrayList<>();

    /**
     * Starts one listener.
     *
     * @param what      for the error message, e.g. {@code "secure port"}
     * @param readiness the main port's {@code /readyz}; null for a listener without {@code /healthz},
     *                  {@code /readyz} and {@code /metrics} (the secure and webhook ports: 404 there)
     * @throws InputException with one line when the TLS material is unusable or the port cannot be bound; the
     *                        listeners already started are stopped
     */
    ExtenderServer start(String what, ServerSettings settings, Map<String, VerbHandler> routes, ReadinessProbe readiness,
                         PrometheusMeterRegistry registry) {
        try {
            ExtenderServer s = readiness != null ? ExtenderServer.start(settings, routes, readiness, registry)
                    : ExtenderServer.startRoutesOnly(settings, routes, registry);
            started.add(s);
            return s;
        } catch (TlsSettings.TlsException e) {
            close();
            throw new InputException(what + ": " + e.getMessage());
        } catch (IOException e) {
            close();
            throw new InputException("cannot listen on " + what + " " + ServeCommand.hostPort(settings.address())
                    + ": " + e.getMessage());
        }
    }

    /** Settings of another listener on the main listener's address, size limit, timeouts and (shared) body budget. */
    static ServerSettings beside(ServerSettings main, int port, TlsSettings tls,
                                 dev.railyard.scheduler.server.ClientCertificateAuthority clientCa) {
        return new ServerSettings(new InetSocketAddress(main.address().getAddress(), port), main.maxRequestBytes(), tls,
                main.connections(), clientCa, main.bodyBudget());
    }

    /** Stops every started listener, finishing in-flight requests for up to 1 s each. */
    @Override
    public void close() {
        for (ExtenderServer s : started.reversed()) {
            s.stop(1);
        }
        started.clear();
    }

    /**
     * One line on where each verb family is served (the ports as bound: {@code --port 0} picks one), and a warning
     * when the kube-scheduler verbs are off.
     */
    static void logWhoMayCall(Logger log, ServeCommand.Resolved r, int mainPort, int securePort, String andExplain) {
        InetSocketAddress main = new InetSocketAddress(r.server().address().getAddress(), mainPort);
        if (r.secure() != null) {
            log.info("serving Volcano verbs {} on {}, kube-scheduler verbs {}{} on the secure port {} (client "
                            + "certificate from {} required{})", VolcanoExtender.PREFIX,
                    ServeCommand.hostPort(main), KubeExtender.PREFIX, andExplain, securePort,
                    r.secure().clientCa().caBundle(), andExplain.isEmpty() ? "" : "; /explain needs a bearer token");
        } else if (ServeCommand.loopback(r)) {
            log.info("serving Volcano verbs {}, kube-scheduler verbs {}{} on {} (loopback: no authentication)",
                    VolcanoExtender.PREFIX, KubeExtender.PREFIX, andExplain,
                    ServeCommand.hostPort(main));
        } else {
            log.info("serving Volcano verbs {} on {}", VolcanoExtender.PREFIX,
                    ServeCommand.hostPort(main));
            log.warn("kube-scheduler verbs {} and {} are off: beyond loopback they are served only on a secure port "
                    + "with client certificates (--secure-port, --client-ca; docs/serve.md)", KubeExtender.PREFIX,
                    ExplainEndpoint.PATH);
        }
    }
}
