package dev.railyard.agent;

import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.fabric8.kubernetes.client.jdkhttp.JdkHttpClientFactory;
import io.micrometer.core.instrument.binder.jvm.JvmGcMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmMemoryMetrics;
import io.micrometer.core.instrument.binder.system.ProcessorMetrics;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * A whole node agent process: Kubernetes client, kubelet client, observer, publisher, refresh loop and the
 * {@code /healthz} + {@code /metrics} server, built from {@link AgentSettings}. {@code railyard agent} is a thin
 * command line around it; end-to-end tests start it with a kubeconfig and a fake kubelet socket.
 *
 * <p>The Kubernetes client uses fabric8's JDK HttpClient factory, and reads {@code kubeconfig} when given, else
 * what fabric8 finds by itself (in-cluster service account, {@code KUBECONFIG}, {@code ~/.kube/config}). The
 * rdma-shared-dev-plugin config, when given, is read once at start (the ConfigMap is mounted; the plugin itself
 * needs a restart to change it).
 */
public final class NodeAgentRuntime implements AutoCloseable {
    private final List<AutoCloseable> closeables = new ArrayList<>();
    private final NodeAgent agent;
    private final AgentHttpEndpoint endpoint;
    private final PrometheusMeterRegistry registry;

    private NodeAgentRuntime(NodeAgent agent, AgentHttpEndpoint endpoint, PrometheusMeterRegistry registry) {
        this.agent = agent;
        this.endpoint = endpoint;
        this.registry = registry;
    }

    /**
     * Builds and starts the agent: the loop's first refresh runs at once.
     *
     * @param settings   agent settings
     * @param kubeconfig kubeconfig file, or null for fabric8's own discovery
     * @param listen     address of the health and metrics server, or null for none
     * @return the running agent
     * @throws dev.railyard.topology.InputException when the rdma-shared-dev-plugin config is unreadable or invalid
     * @throws IOException                          when {@code listen} cannot be bound
     */
    public static NodeAgentRuntime start(AgentSettings settings, Path kubeconfig, InetSocketAddress listen)
            throws IOException {
        Objects.requireNonNull(settings);
        RdmaSharedDevicePluginConfig rdmaConfig = settings.rdmaSharedConfig() == null ? null
                : RdmaSharedDevicePluginConfig.read(settings.rdmaSharedConfig());
        PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
        new JvmMemoryMetrics().bindTo(registry);
        new JvmGcMetrics().bindTo(registry);
        new ProcessorMetrics().bindTo(registry);

        KubernetesClient client = kubernetesClient(kubeconfig);
        PodResourcesClient podResources = PodResourcesClient.connect(settings, registry);
        Clock clock = Clock.systemUTC();
        NodeObserver observer = new NodeObserver(new SysfsHostDiscovery(settings.sysRoot()),
                new NvidiaSmiProbe(settings.nvidiaSmi(), Duration.ofSeconds(30)), podResources, clock,
                settings.resyncPeriod());
        NodeAgent agent = new NodeAgent(settings, observer, new NodeTopologyAssembler(settings, rdmaConfig),
                new NodeTopologyPublisher(client), registry, clock);
        AgentHttpEndpoint endpoint = null;
        try {
            if (listen != null) {
                endpoint = new AgentHttpEndpoint(listen, agent::health, registry);
            }
        } catch (IOException e) {
            podResources.close();
            client.close();
            throw e;
        }
        NodeAgentRuntime runtime = new NodeAgentRuntime(agent, endpoint, registry);
        runtime.closeables.add(agent);
        if (endpoint != null) {
            runtime.closeables.add(endpoint);
        }
        runtime.closeables.add(podResources);
        runtime.closeables.add(client);
        agent.start();
        return runtime;
    }

    /**
     * A client whose calls fail fast: fabric8's own request retries (by default 10, backing off exponentially from
     * 100 ms, so one call can block for over a minute while the API server is down) are switched off, because the
     * agent's refresh loop already retries with its own backoff and must mark the status stale promptly.
     *
     * @param kubeconfig a kubeconfig file, or null for in-cluster / default configuration
     * @return a client on fabric8's JDK HttpClient
     */
    public static KubernetesClient kubernetesClient(Path kubeconfig) {
        Config config = kubeconfig != null ? Config.fromKubeconfig(kubeconfig.toFile()) : Config.autoConfigure(null);
        config.setRequestRetryBackoffLimit(0);
        return new KubernetesClientBuilder().withHttpClientFactory(new JdkHttpClientFactory()).withConfig(config).build();
    }

    /** @return the running agent (health, one-off refreshes) */
    public NodeAgent agent() {
        return agent;
    }

    /** @return the health and metrics server's address, or null when none was asked for */
    public InetSocketAddress httpAddress() {
        return endpoint == null ? null : endpoint.address();
    }

    /** @return the metrics registry */
    public PrometheusMeterRegistry registry() {
        return registry;
    }

    /** Stops the loop, the HTTP server and both clients. */
    @Override
    public void close() {
        for (AutoCloseable c : closeables) {
            try {
                c.close();
            } catch (Exception e) {
                // closing best effort; nothing useful to do with the error at shutdown
            }
        }
    }
}
