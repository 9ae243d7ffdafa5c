package dev.railyard.scheduler.cli;

import dev.railyard.topology.InputException;
import dev.railyard.agent.AgentSettings;
import dev.railyard.agent.DesiredNodeTopology;
import dev.railyard.agent.NodeAgentRuntime;
import dev.railyard.agent.NodeObservation;
import dev.railyard.agent.NodeObserver;
import dev.railyard.agent.NodeTopologyAssembler;
import dev.railyard.agent.NodeTopologyPublisher;
import dev.railyard.agent.NvidiaSmiProbe;
import dev.railyard.agent.PodResourcesClient;
import dev.railyard.agent.RdmaSharedDevicePluginConfig;
import dev.railyard.agent.SysfsHostDiscovery;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

import java.io.IOException;
import java.io.PrintWriter;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.format.DateTimeParseException;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * {@code railyard agent}: the node agent (one per node, a DaemonSet, no leader election). Reads the node from the
 * host's sysfs, the kubelet's PodResources API and, when present, {@code nvidia-smi}; publishes the node's
 * {@code NodeTopology} with server-side apply; serves {@code /healthz} and {@code /metrics}. Runs until SIGTERM.
 *
 * <p>{@code --dry-run} does one refresh without an API server and prints the object it would write (exit 0 when
 * every source was read, 1 when the status is stale because the kubelet could not be asked). Bad flags (a
 * {@code --listen} port out of range, an empty {@code --gpu-resource}), an unreadable or invalid
 * rdma-shared-dev-plugin config, and, with {@code --dry-run}, a {@code --sys-root} that cannot be read exit 2 with
 * one line on stderr.
 */
@Command(name = "agent",
        mixinStandardHelpOptions = true,
        description = {"Run the node agent: discover this node's GPUs, HCAs and allocations, publish its NodeTopology.",
                "Durations: 500ms, 30s, 5m, 1h (or ISO-8601 such as PT30S)."})
final class AgentCommand implements Callable<Integer> {
    /**
     * An extended resource name: a DNS-subdomain prefix, {@code /}, and a name of at most 63 characters
     * (Kubernetes: extended resources are fully qualified names outside {@code kubernetes.io}).
     */
    private static final Pattern EXTENDED_RESOURCE = Pattern.compile("[a-z0-9]([-a-z0-9]*[a-z0-9])?"
            + "(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*/[A-Za-z0-9]([-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?");

    @Option(names = "--node-name", defaultValue = "${env:NODE_NAME}", paramLabel = "NAME",
            description = "This node's name (default: $NODE_NAME, set from the downward API).")
    String nodeName;

    @Option(names = "--sys-root", defaultValue = "/host/sys", paramLabel = "DIR",
            description = "The host's sysfs, mounted read-only (default: ${DEFAULT-VALUE}).")
    Path sysRoot;

    @Option(names = "--pod-resources-socket", defaultValue = AgentSettings.DEFAULT_POD_RESOURCES_TARGET,
            paramLabel = "TARGET", description = "Kubelet PodResources endpoint, unix:///path or a path "
            + "(default: ${DEFAULT-VALUE}).")
    String podResourcesSocket;

    @Option(names = "--interval", defaultValue = "30s", converter = DurationConverter.class, paramLabel = "DURATION",
            description = "At most one write of non-health changes per interval (default: ${DEFAULT-VALUE}).")
    Duration interval;

    @Option(names = "--refresh", defaultValue = "5s", converter = DurationConverter.class, paramLabel = "DURATION",
            description = "How often the node is read; a port going down is written at the next refresh "
                    + "(default: ${DEFAULT-VALUE}).")
    Duration refresh;

    @Option(names = "--resync", defaultValue = "5m", converter = DurationConverter.class, paramLabel = "DURATION",
            description = "Rewrite an unchanged object after this long, as a heartbeat (default: ${DEFAULT-VALUE}).")
    Duration resync;

    @Option(names = "--max-backoff", defaultValue = "2m", converter = DurationConverter.class,
            paramLabel = "DURATION", description = "Longest wait between retries after failures (default: ${DEFAULT-VALUE}).")
    Duration maxBackoff;

    @Option(names = "--rdma-shared-config", paramLabel = "FILE",
            description = "The rdma-shared-dev-plugin's config.json (its ConfigMap, mounted). Without it, RDMA "
                    + "resources are mapped to HCAs only when named like them (nvidia.com/mlx5_0).")
    Path rdmaSharedConfig;

    @Option(names = "--nvidia-smi", defaultValue = "nvidia-smi", paramLabel = "PATH",
            description = "nvidia-smi binary for GPU UUIDs and NVLinks; 'none' to skip (default: ${DEFAULT-VALUE}).")
    String nvidiaSmi;

    @Option(names = "--gpu-resource", defaultValue = "nvidia.com/gpu", split = ",", paramLabel = "NAME",
            description = "Extended resources whose device ids are GPU UUIDs (default: ${DEFAULT-VALUE}).")
    List<String> gpuResources;

    @Option(names = "--pod-limit-per-port", defaultValue = "63", paramLabel = "N",
            description = "RDMA pods one HCA port can serve (default: ${DEFAULT-VALUE}: 128 RoCE GIDs, 2 per pod).")
    int podLimitPerPort;

    @Option(names = "--listen", defaultValue = "0.0.0.0:8080", paramLabel = "HOST:PORT",
            description = "Address of /healthz and /metrics; 'none' for no server (default: ${DEFAULT-VALUE}).")
    String listen;

    @Option(names = "--kubeconfig", paramLabel = "FILE",
            description = "Kubeconfig to use (default: in-cluster service account, $KUBECONFIG or ~/.kube/config).")
    Path kubeconfig;

    @Option(names = "--dry-run", description = "Read the node once, print the NodeTopology it would write, exit.")
    boolean dryRun;

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @Override
    public Integer call() throws IOException, InterruptedException {
        // Netty warns at every connect that unix sockets have no SO_KEEPALIVE (grpc-java sets it for TCP and UDS).
        System.setProperty("org.slf4j.simpleLogger.log.io.grpc.netty.shaded.io.netty.bootstrap", "error");
        AgentSettings settings = settings();
        InetSocketAddress address = "none".equals(listen) ? null : address(listen);
        if (dryRun) {
            return dryRun(settings);
        }
        // a kubeconfig that cannot be read, or no API server at all, is one line and exit 2 here, not a client
        // that retries a connection to nowhere every few seconds
        if (kubeconfig != null) {
            ApiServerConfigSource.fromKubeconfig(kubeconfig);
        } else {
            ApiServerConfigSource.autoConfigure("give --kubeconfig FILE (the chart's DaemonSet runs it with its "
                    + "service account), or --dry-run to print the NodeTopology without a cluster");
        }
        NodeAgentRuntime runtime = NodeAgentRuntime.start(settings, kubeconfig, address);
        CountDownLatch stopped = new CountDownLatch(1);
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            runtime.close();
            stopped.countDown();
        }, "railyard-agent-shutdown"));
        PrintWriter err = spec.commandLine().getErr();
        err.printf("railyard agent: node %s, sysfs %s, kubelet %s, refresh %s, interval %s%s%n", settings.nodeName(),
                settings.sysRoot(), settings.podResourcesTarget(), refresh, interval,
                runtime.httpAddress() == null ? "" : ", /healthz and /metrics on "
                        + ServeCommand.hostPort(runtime.httpAddress()));
        err.flush();
        stopped.await();
        return 0;
    }

    private int dryRun(AgentSettings settings) {
        RdmaSharedDevicePluginConfig config = settings.rdmaSharedConfig() == null ? null
                : RdmaSharedDevicePluginConfig.read(settings.rdmaSharedConfig());
        SysfsHostDiscovery sysfs = new SysfsHostDiscovery(settings.sysRoot());
        try {
            // a dry run is a person checking the flags: a sysfs that cannot be read is bad input, said once (the
            // running agent instead publishes a Stale condition and keeps trying)
            sysfs.discover();
        } catch (RuntimeException e) {
            throw new InputException("--sys-root " + settings.sysRoot() + ": " + sysfsProblem(e), e);
        }
        try (PodResourcesClient kubelet = PodResourcesClient.connect(settings, new SimpleMeterRegistry())) {
            NodeObserver observer = new NodeObserver(sysfs,
                    new NvidiaSmiProbe(settings.nvidiaSmi(), Duration.ofSeconds(30)), kubelet, Clock.systemUTC(),
                    settings.resyncPeriod());
            NodeObservation observation = observer.observe();
            DesiredNodeTopology desired = new NodeTopologyAssembler(settings, config).assemble(observation);
            PrintWriter out = spec.commandLine().getOut();
            out.println(NodeTopologyPublisher.toJson(desired));
            out.flush();
            return observation.complete() ? 0 : 1;
        }
    }

    /** @return the sysfs reader's reason without the root it already names (the caller names it once) */
    private String sysfsProblem(RuntimeException e) {
        String m = e instanceof InputException ? e.getMessage() : InputException.reason(e);
        String root = sysRoot.toString();
        if (m != null && m.startsWith(root)) {
            m = m.substring(root.length()).replaceFirst("^[:,]?\\s*", "");
        }
        return m == null || m.isBlank() ? "cannot be read" : m;
    }

    private AgentSettings settings() {
        if (nodeName == null || nodeName.isBlank()) {
            throw new InputException("--node-name is required (or set NODE_NAME)");
        }
        for (String r : gpuResources == null || gpuResources.isEmpty() ? List.of("") : gpuResources) {
            if (!EXTENDED_RESOURCE.matcher(r.strip()).matches()) {
                throw new InputException("--gpu-resource: '" + r + "' is not an extended resource name (expected "
                        + "DOMAIN/NAME such as nvidia.com/gpu)");
            }
        }
        try {
            return new AgentSettings(nodeName, sysRoot, podResourcesSocket, refresh, interval, resync, maxBackoff,
                    gpuResources, rdmaSharedConfig, "none".equals(nvidiaSmi) ? null : nvidiaSmi, podLimitPerPort,
                    5, Duration.ofMillis(100), Duration.ofSeconds(5));
        } catch (IllegalArgumentException e) {
            throw new InputException(e.getMessage(), e);
        }
    }

    /**
     * @param hostPort {@code HOST:PORT}, {@code :PORT}, or {@code [IPv6]:PORT}
     * @throws InputException naming the flag and the value when it is not that, the port is not 0..65535 or the
     *                        host name cannot be resolved
     */
    static InetSocketAddress address(String hostPort) {
        int colon = hostPort.lastIndexOf(':');
        int port;
        try {
            port = Integer.parseInt(hostPort.substring(colon + 1));
        } catch (NumberFormatException | IndexOutOfBoundsException e) {
            throw new InputException("--listen: expected HOST:PORT or :PORT, got '" + hostPort + "'");
        }
        if (port < 0 || port > 65535) {
            throw new InputException("--listen: port " + port + " is out of range (0 to 65535) in '" + hostPort + "'");
        }
        String host = colon <= 0 ? "0.0.0.0" : hostPort.substring(0, colon);
        if (host.startsWith("[") && host.endsWith("]")) {
            host = host.substring(1, host.length() - 1);
        }
        InetSocketAddress address = new InetSocketAddress(host, port);
        if (address.isUnresolved()) {
            throw new InputException("--listen: unknown host '" + host + "' in '" + hostPort + "'");
        }
        return address;
    }

    /** Go-style durations ({@code 500ms}, {@code 30s}, {@code 1m30s}, {@code 2h}) or ISO-8601 ({@code PT30S}). */
    static final class DurationConverter implements CommandLine.ITypeConverter<Duration> {
        private static final Pattern PART = Pattern.compile("(\\d+)(ms|s|m|h)");

        @Override
        public Duration convert(String value) {
            String v = value.strip().toLowerCase(Locale.ROOT);
            if (v.startsWith("p")) {
                try {
                    return Duration.parse(value.strip());
                } catch (DateTimeParseException e) {
                    throw new CommandLine.TypeConversionException("'" + value + "' is not a duration");
                }
            }
            Matcher m = PART.matcher(v);
            Duration total = Duration.ZERO;
            int at = 0;
            while (m.find() && m.start() == at) {
                long n = Long.parseLong(m.group(1));
                total = total.plus(switch (m.group(2)) {
                    case "ms" -> Duration.ofMillis(n);
                    case "s" -> Duration.ofSeconds(n);
                    case "m" -> Duration.ofMinutes(n);
                    default -> Duration.ofHours(n);
                });
                at = m.end();
            }
            if (at == 0 || at != v.length()) {
                throw new CommandLine.TypeConversionException("'" + value + "' is not a duration (use 500ms, 30s, "
                        + "5m, 1h or PT30S)");
            }
            return total;
        }
    }
}
