package dev.railyard.benchmarks;

import dev.railyard.agent.AgentSettings;
import dev.railyard.agent.NodeAgent;
import dev.railyard.agent.NodeAgentRuntime;
import dev.railyard.agent.NodeObserver;
import dev.railyard.agent.NodeTopologyAssembler;
import dev.railyard.agent.NodeTopologyPublisher;
import dev.railyard.agent.NvidiaSmiProbe;
import dev.railyard.agent.PodResourcesClient;
import dev.railyard.agent.RefreshOutcome;
import dev.railyard.agent.SysfsHostDiscovery;
import dev.railyard.agent.podresources.PodResourcesListerRpc;
import dev.railyard.agent.podresources.v1.AllocatableResourcesRequest;
import dev.railyard.agent.podresources.v1.AllocatableResourcesResponse;
import dev.railyard.agent.podresources.v1.ContainerDevices;
import dev.railyard.agent.podresources.v1.ContainerResources;
import dev.railyard.agent.podresources.v1.ListPodResourcesRequest;
import dev.railyard.agent.podresources.v1.ListPodResourcesResponse;
import dev.railyard.agent.podresources.v1.PodResources;
import dev.railyard.topology.discovery.sysfs.SysfsFixtureMachines;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.grpc.Server;
import io.grpc.netty.shaded.io.grpc.netty.NettyServerBuilder;
import io.grpc.netty.shaded.io.netty.channel.MultiThreadIoEventLoopGroup;
import io.grpc.netty.shaded.io.netty.channel.epoll.EpollIoHandler;
import io.grpc.netty.shaded.io.netty.channel.epoll.EpollServerDomainSocketChannel;
import io.grpc.netty.shaded.io.netty.channel.unix.DomainSocketAddress;
import io.grpc.stub.StreamObserver;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;

import java.lang.management.ManagementFactory;
import java.lang.management.MemoryMXBean;
import java.lang.management.ThreadInfo;
import java.lang.management.ThreadMXBean;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.Locale;
import java.util.concurrent.Executors;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Steady-state cost of one node-agent refresh on an 8-GPU/8-HCA node (the case-01 DGX H100 sysfs tree of topology's
 * tests, with 8 pods each holding one GPU and one rail's RDMA resource and the two GID entries their macvlan
 * addresses add): read sysfs with the topology parser, pair, call the kubelet's {@code List} over a real unix
 * socket, assemble the {@code NodeTopology} and decide not to write it (nothing changed). Targets (issue 7): under
 * 50 ms CPU per refresh, under 64 MiB heap.
 *
 * A fabric8 client is built and its serialization loaded as for a write, so the heap figure includes what the real
 * agent holds.
 *
 * <p>Prints CPU per refresh three ways (ThreadMXBean / OperatingSystemMXBean): the refreshing thread alone; the whole
 * process minus the fake kubelet's threads (so gRPC client threads, JIT and GC count against the agent); and wall
 * time. Then heap used after a full GC, the heap limit, and resident memory ({@code VmRSS} of {@code /proc/self/status}).
 * The kubelet call budget is raised for the run so that the client-side rate limit (5 calls per 100 ms by default)
 * does not stretch the measurement; it costs no CPU either way.
 *
 * <p>Run: {@code java -Xmx64m -cp benchmarks/target/benchmarks.jar dev.railyard.benchmarks.AgentRefreshCost [REFRESHES]}
 */
public final class AgentRefreshCost {
    private static final String KUBELET_THREAD = "fake-kubelet";

    private AgentRefreshCost() {
    }

    public static void main(String[] args) throws Exception {
        int refreshes = args.length > 0 ? Integer.parseInt(args[0]) : 1000;
        Path root = Files.createTempDirectory("railyard-agent-cost");
        macvlanPodGids(SysfsFixtureMachines.case01(root));
        Path socket = root.resolve("kubelet.sock");
        MultiThreadIoEventLoopGroup group = new MultiThreadIoEventLoopGroup(1, named(KUBELET_THREAD),
                EpollIoHandler.newFactory());
        Server kubelet = startKubelet(socket, group);

        AgentSettings settings = AgentSettings.defaults("bench-node", root)
                .withPodResourcesTarget("unix://" + socket)
                .withSources(null, null)
                .withPodResourcesLimit(100_000, Duration.ofMillis(100), Duration.ofSeconds(5));
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        AtomicInteger writes = new AtomicInteger();
        try (PodResourcesClient client = PodResourcesClient.connect(settings, registry);
             KubernetesClient kubernetes = NodeAgentRuntime.kubernetesClient(null)) {
            NodeObserver observer = new NodeObserver(new SysfsHostDiscovery(root), new NvidiaSmiProbe(null,
                    Duration.ofSeconds(1)), client, Clock.systemUTC(), settings.resyncPeriod());
            NodeAgent agent = new NodeAgent(settings, observer, new NodeTopologyAssembler(settings, null),
                    desired -> writes.incrementAndGet(), registry, Clock.systemUTC());
            RefreshOutcome first = agent.refreshOnce();
            if (!first.healthy() || first.desired().status().allocations().size() != 8
                    || first.desired().spec().pairs().size() != 8) {
                throw new IllegalStateException("the benchmark node is not what it should be: " + first.problem()
                        + ", allocations " + first.desired().status().allocations().size());
            }
            // The agent holds a fabric8 client; load its serialization as the first write does (no server needed),
            // so that the heap figure includes it.
            GenericKubernetesResource asWritten = kubernetes.getKubernetesSerialization().unmarshal(
                    NodeTopologyPublisher.toJson(first.desired()), GenericKubernetesResource.class);
            if (!"bench-node".equals(asWritten.getMetadata().getName())) {
                throw new IllegalStateException("serialization round trip lost the name");
            }
            for (int i = 0; i < Math.max(200, refreshes / 2); i++) {
                agent.refreshOnce();
            }

            ThreadMXBean threads = ManagementFactory.getThreadMXBean();
            com.sun.management.OperatingSystemMXBean os =
                    (com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();
            int writesBefore = writes.get();
            long thread0 = threads.getCurrentThreadCpuTime();
            long process0 = os.getProcessCpuTime();
            long kubelet0 = cpuOf(threads, KUBELET_THREAD);
            long wall0 = System.nanoTime();
            for (int i = 0; i < refreshes; i++) {
                agent.refreshOnce();
            }
            long wall = System.nanoTime() - wall0;
            long thread = threads.getCurrentThreadCpuTime() - thread0;
            long agentProcess = (os.getProcessCpuTime() - process0) - (cpuOf(threads, KUBELET_THREAD) - kubelet0);

            MemoryMXBean memory = ManagementFactory.getMemoryMXBean();
            System.gc();
            long heapUsed = memory.getHeapMemoryUsage().getUsed();
            long heapMax = memory.getHeapMemoryUsage().getMax();
            System.out.printf(Locale.ROOT, "node agent, steady state, 8 GPUs / 8 HCAs / 8 pods, %d refreshes "
                    + "(%d written: nothing changed)%n", refreshes, writes.get() - writesBefore);
            System.out.printf(Locale.ROOT, "  CPU per refresh, refreshing thread:        %7.2f ms%n",
                    thread / 1e6 / refreshes);
            System.out.printf(Locale.ROOT, "  CPU per refresh, process minus kubelet:    %7.2f ms   (target < 50 ms)%n",
                    agentProcess / 1e6 / refreshes);
            System.out.printf(Locale.ROOT, "  wall time per refresh:                     %7.2f ms%n",
                    wall / 1e6 / refreshes);
            System.out.printf(Locale.ROOT, "  heap used after full GC:                   %7.1f MiB   (target < 64 MiB; "
                    + "heap limit %s)%n", heapUsed / 1048576.0,
                    heapMax < 0 ? "none" : String.format(Locale.ROOT, "%.0f MiB", heapMax / 1048576.0));
            System.out.printf(Locale.ROOT, "  resident memory (VmRSS):                   %7.1f MiB%n", rssMiB());
        } finally {
            kubelet.shutdownNow();
            group.shutdownGracefully(0, 1, TimeUnit.SECONDS);
        }
        System.exit(0);
    }

    /** Gives each of the machine's 8 HCAs a macvlan pod's GIDs, as a node running 8 such pods has. */
    private static void macvlanPodGids(SysfsFixtureMachines.Machine machine) throws java.io.IOException {
        for (int i = 0; i < 8; i++) {
            // a macvlan pod's IPv4-mapped RoCE v1/v2 GIDs (192.168.4.10+i) on rail i
            String gid = String.format(Locale.ROOT, "0000:0000:0000:0000:0000:ffff:c0a8:04%02x", 10 + i);
            machine.gid("mlx5_" + i, 1, 2, gid, "IB/RoCE v1", "net1");
            machine.gid("mlx5_" + i, 1, 3, gid, "RoCE v2", "net1");
        }
    }

    /** A fake kubelet serving PodResources for 8 pods on a unix socket, on threads named {@value #KUBELET_THREAD}. */
    private static Server startKubelet(Path socket, MultiThreadIoEventLoopGroup group) throws java.io.IOException {
        return NettyServerBuilder.forAddress(new DomainSocketAddress(socket.toString()))
                .channelType(EpollServerDomainSocketChannel.class).bossEventLoopGroup(group)
                .workerEventLoopGroup(group).executor(Executors.newSingleThreadExecutor(named(KUBELET_THREAD)))
                .addService(PodResourcesListerRpc.bind(new EightPods())).build().start();
    }

    private static long cpuOf(ThreadMXBean threads, String prefix) {
        long total = 0;
        for (ThreadInfo info : threads.getThreadInfo(threads.getAllThreadIds())) {
            if (info != null && info.getThreadName().startsWith(prefix)) {
                long t = threads.getThreadCpuTime(info.getThreadId());
                total += Math.max(0, t);
            }
        }
        return total;
    }

    private static double rssMiB() throws java.io.IOException {
        for (String line : Files.readAllLines(Path.of("/proc/self/status"))) {
            if (line.startsWith("VmRSS:")) {
                return Long.parseLong(line.replaceAll("\\D+", "")) / 1024.0;
            }
        }
        return Double.NaN;
    }

    private static ThreadFactory named(String prefix) {
        AtomicInteger n = new AtomicInteger();
        return r -> {
            Thread t = new Thread(r, prefix + "-" + n.incrementAndGet());
            t.setDaemon(true);
            return t;
        };
    }

    /** A kubelet with 8 pods, pod i holding GPU i and one slot of nvidia.com/mlx5_i. */
    private static final class EightPods implements PodResourcesListerRpc.Service {
        private final ListPodResourcesResponse pods;
        private final AllocatableResourcesResponse allocatable;

        EightPods() {
            ListPodResourcesResponse.Builder list = ListPodResourcesResponse.newBuilder();
            AllocatableResourcesResponse.Builder all = AllocatableResourcesResponse.newBuilder();
            ContainerDevices.Builder gpus = ContainerDevices.newBuilder().setResourceName("nvidia.com/gpu");
            for (int i = 0; i < 8; i++) {
                String uuid = String.format(Locale.ROOT, "GPU-00000000-0000-0000-0000-%012d", i);
                gpus.addDeviceIds(uuid);
                ContainerDevices.Builder rdma = ContainerDevices.newBuilder().setResourceName("nvidia.com/mlx5_" + i);
                for (int s = 0; s < 63; s++) {
                    rdma.addDeviceIds(Integer.toString(s));
                }
                all.addDevices(rdma);
                list.addPodResources(PodResources.newBuilder().setNamespace("team-a").setName("trainer-" + i)
                        .addContainers(ContainerResources.newBuilder().setName("main")
                                .addDevices(ContainerDevices.newBuilder().setResourceName("nvidia.com/gpu")
                                        .addDeviceIds(uuid))
                                .addDevices(ContainerDevices.newBuilder().setResourceName("nvidia.com/mlx5_" + i)
                                        .addDeviceIds("0"))));
            }
            all.addDevices(gpus);
            pods = list.build();
            allocatable = all.build();
        }

        @Override
        public void list(ListPodResourcesRequest request, StreamObserver<ListPodResourcesResponse> response) {
            response.onNext(pods);
            response.onCompleted();
        }

        @Override
        public void getAllocatableResources(AllocatableResourcesRequest request,
                                            StreamObserver<AllocatableResourcesResponse> response) {
            response.onNext(allocatable);
            response.onCompleted();
        }
    }
}
