package dev.railyard.benchmarks;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.railyard.benchmarks.scale.VolcanoWire;
import dev.railyard.scheduler.cluster.ClusterState;
import dev.railyard.scheduler.cluster.ClusterView;
import dev.railyard.scheduler.cluster.KeysOnlyItemStore;
import dev.railyard.scheduler.cluster.WatchedKind;
import dev.railyard.scheduler.engine.PlacementEngine;
import dev.railyard.scheduler.ipam.IpPoolLedger;
import dev.railyard.scheduler.protocol.ExtenderPod;
import dev.railyard.scheduler.protocol.GangJob;
import dev.railyard.scheduler.protocol.GangRef;
import dev.railyard.scheduler.protocol.PodRef;
import dev.railyard.scheduler.protocol.ResourceRequests;
import dev.railyard.scheduler.protocol.kube.Binder;
import dev.railyard.scheduler.protocol.kube.KubeExtender;
import dev.railyard.scheduler.service.EnginePlacementDecisions;
import dev.railyard.scheduler.simulate.GeneratedCluster;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;

import java.lang.management.ManagementFactory;
import java.math.BigDecimal;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Random;
import java.util.function.Supplier;

/**
 * The state core's own cost, in process (docs/performance.md "State core"): a cluster of N GPU nodes fed to the
 * real {@link ClusterState} object by object as the informers would (each Node with 20 labels, a NodeTopology of
 * the DGX shape, a training pod holding 8 GPUs on 90 % of nodes and 10 daemon pods on every node, 4 networks with
 * whereabouts IPPools, a pending 64-task × 8-GPU Volcano gang; {@code -DfreeEvery=N} leaves one node in N free
 * instead of one in 10, so at N = 100 the gang does not fit below 6,400 nodes), then real decisions through
 * {@link EnginePlacementDecisions}: snapshot after one pod change, a Volcano predicate (one node), a kube filter
 * over all N names, prioritize over 100 nodes, the first predicate after a pod update, after an address change
 * (an IPPool write) and after each step of a training pod's life (created pending, bound, deleted:
 * {@code -DpodLifecycle=N} events, 300 by default), Volcano's {@code jobEnqueueable} for the pending gang
 * ({@code -DenqueueCalls=N} per case, 200 by default), the kube filter through its adapter (parse, decide, reply;
 * {@code -DkubeFilterOnly=true} measures only that), and the gang's predicate storm (64 × N calls). Prints the
 * figures with the machine's load; the black-box benchmark against a real
 * kube-apiserver is the item-6 command of issue 14.
 *
 * <p>Run: {@code java -Xmx3g -cp benchmarks/target/benchmarks.jar dev.railyard.benchmarks.StateCoreCost 1000 5000}
 */
public final class StateCoreCost {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final int DAEMONS = 10;
    private static final int GANG = 64;
    /** One node in this many has no training pod (8 GPUs free): 10, or {@code -DfreeEvery=N}. */
    private static final int FREE_EVERY = Integer.getInteger("freeEvery", 10);

    private StateCoreCost() {
    }

    public static void main(String[] args) throws Exception {
        for (String a : args.length == 0 ? new String[]{"1000"} : args) {
            run(Integer.parseInt(a));
        }
    }

    private static void run(int n) throws Exception {
        System.out.printf(Locale.ROOT, "== %,d nodes (load %s)%n", n, load());
        long heapBefore = heapAfterGc();
        IpPoolLedger ledger = new IpPoolLedger(Clock.systemUTC());
        ClusterState state = new ClusterState(null, ledger, ledger::update, Clock.systemUTC());
        // what serve holds: the state's records and the informers' stubs of every object
        stubs = new KeysOnlyItemStore(null, null);
        long t0 = System.nanoTime();
        int pods = feed(state, n);
        ClusterView first = state.snapshot();
        double feedS = (System.nanoTime() - t0) / 1e9;
        long heap = heapAfterGc() - heapBefore;
        System.out.printf(Locale.ROOT, "fed %,d nodes, %,d pods in %.1f s; state heap after GC %,d MiB (%.0f KiB/node)%n",
                n, pods, feedS, heap >> 20, heap / 1024.0 / n);
        Supplier<ClusterView> views = state::snapshot;
        EnginePlacementDecisions d = new EnginePlacementDecisions(views, ledger, new PlacementEngine(), 50,
                new SimpleMeterRegistry());
        List<String> names = first.snapshot().nodeNames();
        Random rnd = new Random(1);
        if (Boolean.getBoolean("kubeFilterOnly")) {
            kubeFilterWire(d, names, n);
            return;
        }
        // snapshot after one pod change (a daemon pod flips phase: its node's record is made again)
        long[] snap = new long[2000];
        for (int i = 0; i < snap.length; i++) {
            state.upsert(WatchedKind.POD, daemon(names.get(rnd.nextInt(n)), rnd.nextInt(DAEMONS),
                    i % 2 == 0 ? "Failed" : "Running"));
            long s = cpu();
            state.snapshot();
            snap[i] = cpu() - s;
        }
        print("snapshot after one pod change", snap);
        // warm the gang plan, then the predicate storm as vc-scheduler makes it: one call per (task, node)
        d.filter(task(0), List.of(names.get(0)));
        print("Volcano predicate (1 node, real decisions)", predicates(d, names, rnd, 20_000, i -> { }));
        print("first predicate after a pod update", predicates(d, names, rnd, 500,
                i -> state.upsert(WatchedKind.POD, daemon(names.get(rnd.nextInt(n)), rnd.nextInt(DAEMONS),
                        i % 2 == 0 ? "Failed" : "Running"))));
        long[] firstAddress = predicates(d, names, rnd, Integer.getInteger("addressChanges", 200), i -> {
            // whereabouts writes one allocation into a pool when a pod starts and removes it when it ends
            Map<String, Object> a = new LinkedHashMap<>(poolAllocations.getFirst());
            if (i % 2 == 0) {
                a.put("65000", Map.of("id", "probe", "podref", "bench/probe", "ifname", "net1"));
            }
            state.upsert(WatchedKind.IP_POOL, pool(0, a));
        });
        print("first predicate after an address change", firstAddress);
        podLifecycle(d, state, names, n, rnd, Integer.getInteger("podLifecycle", 300));
        enqueueable(d, state, names, n, rnd, Integer.getInteger("enqueueCalls", 200));
        if (Boolean.getBoolean("firstOnly")) {
            return;
        }
        fullListCalls(d, names, n, rnd);
        System.out.printf(Locale.ROOT, "rss %,d MiB; heap after GC %,d MiB (load %s)%n%n", rss() >> 20,
                heapAfterGc() >> 20, load());
    }

    /**
     * The first predicate after each event of a training pod's life, as the informers see one start and end: the pod
     * created (pending, with its four networks: a new pod key), bound to a node without a training pod (8 GPUs and
     * the networks' addresses drawn there), and deleted. {@code count} events in all, a third of each kind.
     */
    private static void podLifecycle(EnginePlacementDecisions d, ClusterState state, List<String> names, int n,
                                     Random rnd, int count) {
        long[][] byStep = new long[3][count / 3];
        for (int i = 0; i < byStep[0].length * 3; i++) {
            int step = i % 3;
            int k = i / 3;
            String node = names.get((rnd.nextInt(Math.max(1, n / FREE_EVERY)) * FREE_EVERY + FREE_EVERY - 1) % n);
            GenericKubernetesResource pod = trainingPod("probe-" + k, step == 0 ? null : node, k);
            if (step == 2) {
                state.delete(WatchedKind.POD, pod);
            } else {
                state.upsert(WatchedKind.POD, pod);
            }
            byStep[step][k] = predicates(d, names, rnd, 1, j -> { })[0];
        }
        print("first predicate after a training pod is created (pending)", byStep[0]);
        print("first predicate after a training pod is bound", byStep[1]);
        print("first predicate after a training pod is deleted", byStep[2]);
    }

    /**
     * Volcano's {@code jobEnqueueable} for the pending gang (its 64 tasks), as vc-scheduler asks it for every pending
     * job in every session: {@code count} untimed calls each after a training pod is created (the planner's code
     * compiled), then {@code count} calls on an unchanged cluster, after a pod status update (a heartbeat: the
     * engine snapshot stays) and after a training pod is created (a new snapshot).
     */
    private static void enqueueable(EnginePlacementDecisions d, ClusterState state, List<String> names, int n,
                                    Random rnd, int count) {
        List<ExtenderPod> tasks = new ArrayList<>();
        for (int t = 0; t < GANG; t++) {
            tasks.add(task(t));
        }
        GangJob job = new GangJob("bench/big", "uid-big", "bench", "big", "default", GANG, Map.of(), tasks);
        // untimed first: a plan on each new snapshot, so the planner's code is compiled whichever path ran before
        String[] what = {"(warm-up)", "on an unchanged cluster", "after a pod status update",
            "after a training pod is created"};
        for (int kind = 0; kind < what.length; kind++) {
            long[] out = new long[count];
            for (int i = 0; i < count; i++) {
                if (kind == 2) {
                    state.upsert(WatchedKind.POD, daemon(names.get(rnd.nextInt(n)), rnd.nextInt(DAEMONS),
                            i % 2 == 0 ? "Failed" : "Running"));
                } else if (kind != 1) {
                    state.upsert(WatchedKind.POD, trainingPod("enqueue-probe-" + kind + "-" + i, null, i));
                }
                long s = cpu();
                d.enqueueable(job);
                out[i] = cpu() - s;
            }
            if (kind > 0) {
                print("jobEnqueueable (64 tasks) " + what[kind], out);
            }
        }
        for (int kind : new int[]{0, 3}) {
            for (int i = 0; i < count; i++) {
                state.delete(WatchedKind.POD, trainingPod("enqueue-probe-" + kind + "-" + i, null, i));
            }
        }
    }

    /**
     * @param change made before call {@code i} and outside its timing (an informer event, or nothing)
     * @return CPU time of each of {@code count} predicates of a random gang task on one random node
     */
    private static long[] predicates(EnginePlacementDecisions d, List<String> names, Random rnd, int count,
                                     java.util.function.IntConsumer change) {
        long[] out = new long[count];
        for (int i = 0; i < count; i++) {
            change.accept(i);
            ExtenderPod t = task(rnd.nextInt(GANG));
            String node = names.get(rnd.nextInt(names.size()));
            long s = cpu();
            d.filter(t, List.of(node));
            out[i] = cpu() - s;
        }
        return out;
    }

    /** kube-scheduler's filter over every node name, prioritize over 100 nodes, and a whole gang's predicates. */
    private static void fullListCalls(EnginePlacementDecisions d, List<String> names, int n, Random rnd)
            throws Exception {
        long[] kube = new long[40];
        for (int i = 0; i < kube.length; i++) {
            ExtenderPod t = task(i % GANG);
            long s = cpu();
            d.filter(t, names);
            kube[i] = cpu() - s;
        }
        print("kube filter over all " + n + " names", kube);
        kubeFilterWire(d, names, n);
        long[] prio = new long[2000];
        for (int i = 0; i < prio.length; i++) {
            int from = rnd.nextInt(Math.max(1, n - 100));
            List<String> hundred = names.subList(from, Math.min(n, from + 100));
            long s = cpu();
            d.score(task(rnd.nextInt(GANG)), hundred);
            prio[i] = cpu() - s;
        }
        print("prioritize over 100 nodes", prio);
        var threads = ManagementFactory.getThreadMXBean();
        long cpu0 = threads.getCurrentThreadCpuTime();
        long w0 = System.nanoTime();
        for (int task = 0; task < GANG; task++) {
            ExtenderPod t = task(task);
            for (String node : names) {
                d.filter(t, List.of(node));
            }
        }
        System.out.printf(Locale.ROOT, "gang storm: %,d predicates in %.1f s wall, %.1f s CPU (one thread)%n",
                (long) GANG * n, (System.nanoTime() - w0) / 1e9, (threads.getCurrentThreadCpuTime() - cpu0) / 1e9);
    }

    /**
     * kube-scheduler's filter as serve answers it, without HTTP: {@link KubeExtender#filter} reads the
     * {@code ExtenderArgs} body (a pending 8-GPU pod with the four networks, every node name), decides and writes the
     * {@code ExtenderFilterResult}. {@code -DkubeFilterCalls=N} calls (40 by default) after as many untimed; prints
     * CPU and bytes allocated per call, both of the calling thread, and the reply's CRC-32 (equal replies, equal
     * answers).
     */
    private static void kubeFilterWire(EnginePlacementDecisions d, List<String> names, int n) throws Exception {
        GenericKubernetesResource pod = trainingPod("kube-pending", null, 0);
        pod.getMetadata().getAnnotations().remove("scheduling.k8s.io/group-name");
        pod.getMetadata().getAnnotations().keySet().removeIf(k -> k.startsWith("volcano.sh/"));
        pod.getMetadata().getLabels().clear();
        byte[] body = VolcanoWire.kubeFilter(JSON.writeValueAsString(pod), names);
        KubeExtender kube = new KubeExtender(d, Binder.unwired(), 50, new SimpleMeterRegistry());
        int calls = Integer.getInteger("kubeFilterCalls", 40);
        long[] cpu = new long[calls];
        long[] bytes = new long[calls];
        for (int i = 0; i < calls; i++) {
            kube.filter(body); // untimed: the path compiled first
        }
        byte[] reply = null;
        for (int i = 0; i < calls; i++) {
            long b = allocated();
            long s = cpu();
            reply = kube.filter(body).body();
            cpu[i] = cpu() - s;
            bytes[i] = allocated() - b;
        }
        print("kube filter, " + n + " names, parse + decide + reply", cpu);
        Arrays.sort(bytes);
        java.util.zip.CRC32 crc = new java.util.zip.CRC32();
        crc.update(reply);
        System.out.printf(Locale.ROOT, "  allocated per call p50 %,d bytes; request %,d bytes, reply %,d bytes (CRC-32 "
                + "%08x)%n", bytes[calls / 2], body.length, reply.length, crc.getValue());
    }

    private static long allocated() {
        return ((com.sun.management.ThreadMXBean) THREADS).getCurrentThreadAllocatedBytes();
    }

    private static KeysOnlyItemStore stubs;
    private static List<Map<String, Object>> poolAllocations;

    /** The IPPool of network {@code r} holding {@code allocations}. */
    private static GenericKubernetesResource pool(int r, Map<String, Object> allocations) {
        return object(WatchedKind.IP_POOL, "kube-system", "10." + r + ".0.0-16", Map.of(), Map.of(),
                Map.of("spec", Map.of("range", "10." + r + ".0.0/16", "allocations", allocations)));
    }

    /** An informer event: the state's record and the informer's stub, as serve keeps them. */
    private static void put(ClusterState state, WatchedKind kind, GenericKubernetesResource obj) {
        state.upsert(kind, obj);
        stubs.put(kind.kind() + "/" + stubs.getKey(obj), obj);
    }

    private static int feed(ClusterState state, int n) {
        for (int r = 0; r < 4; r++) {
            String config = "{\"cniVersion\":\"0.3.1\",\"name\":\"rail-net-" + r + "\",\"type\":\"macvlan\","
                    + "\"master\":\"lan" + (r + 2) + "\",\"ipam\":{\"type\":\"whereabouts\",\"range\":\"10."
                    + r + ".0.0/16\"}}";
            put(state, WatchedKind.NETWORK_ATTACHMENT_DEFINITION, object(WatchedKind.NETWORK_ATTACHMENT_DEFINITION,
                    "bench", "rail-net-" + r, Map.of(), Map.of(), Map.of("spec", Map.of("config", config))));
        }
        @SuppressWarnings("unchecked")
        Map<String, Object> spec = JSON.convertValue(GeneratedCluster.dgx(), Map.class);
        int pods = 0;
        List<Map<String, Object>> allocations = new ArrayList<>();
        for (int r = 0; r < 4; r++) {
            allocations.add(new LinkedHashMap<>());
        }
        for (int i = 0; i < n; i++) {
            String node = String.format(Locale.ROOT, "gpu-%05d", i);
            put(state, WatchedKind.NODE, node(node, i));
            put(state, WatchedKind.NODE_TOPOLOGY, object(WatchedKind.NODE_TOPOLOGY, null, node, Map.of(), Map.of(),
                    Map.of("spec", JSON.convertValue(spec, Map.class))));
            for (int k = 0; k < DAEMONS; k++) {
                put(state, WatchedKind.POD, daemon(node, k, "Running"));
                pods++;
            }
            if (i % FREE_EVERY != FREE_EVERY - 1) {
                String name = "train-" + i;
                put(state, WatchedKind.POD, trainingPod(name, node, i));
                pods++;
                for (int r = 0; r < 4; r++) {
                    allocations.get(r).put(Integer.toString(i + 1), Map.of("id", "c" + i, "podref", "bench/" + name,
                            "ifname", "net" + (r + 1)));
                }
            }
        }
        poolAllocations = allocations;
        for (int r = 0; r < 4; r++) {
            put(state, WatchedKind.IP_POOL, pool(r, allocations.get(r)));
        }
        put(state, WatchedKind.POD_GROUP, object(WatchedKind.POD_GROUP, "bench", "big", Map.of(), Map.of(),
                Map.of("spec", Map.of("minMember", GANG))));
        for (int t = 0; t < GANG; t++) {
            put(state, WatchedKind.POD, gangPod(t));
            pods++;
        }
        return pods;
    }

    private static GenericKubernetesResource node(String name, int i) {
        Map<String, String> labels = new LinkedHashMap<>();
        labels.put("kubernetes.io/hostname", name);
        labels.put("kubernetes.io/arch", "amd64");
        labels.put("kubernetes.io/os", "linux");
        labels.put("network.topology.nvidia.com/leaf", "leaf-" + i / 32);
        labels.put("network.topology.nvidia.com/spine", "spine-" + i / 512);
        for (String k : List.of("cuda.driver.major", "cuda.driver.minor", "cuda.runtime.major", "gpu.count",
                "gpu.family", "gpu.machine", "gpu.memory", "gpu.product", "gpu.replicas", "mig.capable",
                "mps.capable", "gfd.timestamp", "gpu.compute.major", "gpu.compute.minor", "gpu.present")) {
            labels.put("nvidia.com/" + k, k.equals("gfd.timestamp") ? Long.toString(1_780_000_000L + i) : "8");
        }
        Map<String, Object> alloc = new LinkedHashMap<>();
        alloc.put("cpu", "224");
        alloc.put("memory", "2113420Mi");
        alloc.put("pods", "110");
        alloc.put("nvidia.com/gpu", "8");
        for (int h = 0; h < 8; h++) {
            alloc.put("nvidia.com/mlx5_" + h, "100");
        }
        return object(WatchedKind.NODE, null, name, labels, Map.of(), Map.of("status", Map.of("allocatable", alloc,
                "capacity", alloc, "conditions", List.of(Map.of("type", "Ready", "status", "True")))));
    }

    private static GenericKubernetesResource daemon(String node, int k, String phase) {
        Map<String, Object> container = Map.of("name", "main", "resources", Map.of("requests",
                Map.of("cpu", "100m", "memory", "128Mi")));
        return object(WatchedKind.POD, "kube-system", "ds-" + k + "-" + node,
                Map.of("app", "daemon-" + k, "controller-revision-hash", "7f9c" + k),
                Map.of("kubectl.kubernetes.io/default-container", "main"),
                Map.of("spec", Map.of("nodeName", node, "containers", List.of(container)),
                        "status", Map.of("phase", phase)));
    }

    private static Map<String, Object> gpuRequests() {
        Map<String, Object> r = new LinkedHashMap<>();
        r.put("cpu", "96");
        r.put("memory", "1000Gi");
        r.put("nvidia.com/gpu", "8");
        for (int h = 0; h < 8; h++) {
            r.put("nvidia.com/mlx5_" + h, "1");
        }
        return r;
    }

    private static final String NETWORKS = "rail-net-0,rail-net-1,rail-net-2,rail-net-3";

    private static GenericKubernetesResource trainingPod(String name, String node, int i) {
        Map<String, String> ann = new LinkedHashMap<>();
        ann.put("k8s.v1.cni.cncf.io/networks", NETWORKS);
        ann.put("scheduling.k8s.io/group-name", "job-" + i / 8);
        ann.put("volcano.sh/job-name", "job-" + i / 8);
        ann.put("volcano.sh/task-spec", "worker");
        ann.put("volcano.sh/task-index", Integer.toString(i % 8));
        Map<String, Object> container = Map.of("name", "trainer", "resources", Map.of("requests", gpuRequests(),
                "limits", gpuRequests()));
        return object(WatchedKind.POD, "bench", name, Map.of("volcano.sh/job-name", "job-" + i / 8), ann,
                node == null ? Map.of("spec", Map.of("containers", List.of(container)), "status",
                        Map.of("phase", "Pending")) : Map.of("spec", Map.of("nodeName", node, "containers",
                        List.of(container)), "status", Map.of("phase", "Running")));
    }

    private static GenericKubernetesResource gangPod(int t) {
        Map<String, Object> container = Map.of("name", "trainer", "resources", Map.of("requests", gpuRequests(),
                "limits", gpuRequests()));
        return object(WatchedKind.POD, "bench", "big-worker-" + t, Map.of(), annotations(t),
                Map.of("spec", Map.of("containers", List.of(container)), "status", Map.of("phase", "Pending")));
    }

    private static Map<String, String> annotations(int t) {
        return Map.of("k8s.v1.cni.cncf.io/networks", NETWORKS, "scheduling.k8s.io/group-name", "big",
                "volcano.sh/task-spec", "worker", "volcano.sh/task-index", Integer.toString(t));
    }

    private static ExtenderPod task(int t) {
        Map<String, BigDecimal> r = new LinkedHashMap<>();
        r.put("nvidia.com/gpu", BigDecimal.valueOf(8));
        for (int h = 0; h < 8; h++) {
            r.put("nvidia.com/mlx5_" + h, BigDecimal.ONE);
        }
        Map<String, String> ann = annotations(t);
        return new ExtenderPod(new PodRef("bench", "big-worker-" + t, "uid-" + t), Map.of(), ann, "volcano",
                new ResourceRequests(r), GangRef.of("bench", Map.of(), ann), null);
    }

    private static GenericKubernetesResource object(WatchedKind kind, String ns, String name,
                                                    Map<String, String> labels, Map<String, String> annotations,
                                                    Map<String, Object> fields) {
        GenericKubernetesResource r = new GenericKubernetesResource();
        r.setApiVersion(kind.apiVersion());
        r.setKind(kind.kind());
        r.setMetadata(new ObjectMetaBuilder().withNamespace(ns).withName(name).withUid(name + "-uid")
                .withLabels(new LinkedHashMap<>(labels)).withAnnotations(new LinkedHashMap<>(annotations)).build());
        fields.forEach(r::setAdditionalProperty);
        return r;
    }

    private static final java.lang.management.ThreadMXBean THREADS = ManagementFactory.getThreadMXBean();

    /**
     * @return this thread's CPU time in ns: the figures are CPU time per call, which a shared machine's load does not
     *         inflate the way it inflates wall time (the black-box benchmark measures wall time)
     */
    private static long cpu() {
        return THREADS.getCurrentThreadCpuTime();
    }

    private static void print(String what, long[] nanos) {
        long[] s = nanos.clone();
        Arrays.sort(s);
        System.out.printf(Locale.ROOT, "%-45s CPU p50 %8.3f ms  p99 %8.3f ms  max %8.3f ms  (%,d calls)%n", what,
                s[s.length / 2] / 1e6, s[(int) (s.length * 0.99)] / 1e6, s[s.length - 1] / 1e6, s.length);
    }

    private static long heapAfterGc() throws InterruptedException {
        for (int i = 0; i < 3; i++) {
            System.gc();
            Thread.sleep(200);
        }
        return ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed();
    }

    private static long rss() {
        try {
            for (String line : Files.readAllLines(Path.of("/proc/self/status"))) {
                if (line.startsWith("VmRSS:")) {
                    return Long.parseLong(line.replaceAll("\\D", "")) * 1024;
                }
            }
        } catch (Exception e) {
            return -1;
        }
        return -1;
    }

    static String load() {
        try {
            return Files.readString(Path.of("/proc/loadavg")).split(" ")[0];
        } catch (Exception e) {
            return "?";
        }
    }
}
