package dev.railyard.benchmarks.scale;

import dev.railyard.api.whereabouts.IPPool;
import dev.railyard.api.whereabouts.OverlappingRangeIPReservation;
import dev.railyard.api.whereabouts.NodeSlicePool;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;

import java.io.PrintStream;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.IntConsumer;
import java.util.function.Supplier;

/**
 * Creates a {@link ClusterLayout} through the API server, {@code threads} requests wide, and keeps what the load
 * needs: every node's Volcano NodeInfo body and the pending gang's TaskInfo bodies built from the objects exactly as
 * the API server returned them, the kube pod's JSON, and the names of the bound pods the churn updates.
 *
 * <p>Order: namespaces, the four networks (with their NodeSlicePools in {@link ScaleNetworks}' node-slice shape), Nodes (created with their status, as kubelet registers them),
 * NodeTopologies (create, then status),
 * PodGroups, pods node by node (create, then a Running status as kubelet writes it), IPPools (one per network, or
 * one per network and node), an OverlappingRangeIPReservation per allocation (whereabouts' default), the pending gang
 * and kube pod. Transient API errors (no answer, 429, 5xx) are retried up to 6 times with backoff; a create that
 * meets 409 after a retry reads the object back.
 */
final class ClusterPopulator {

    /**
     * What the load needs from the populated cluster.
     *
     * @param nodeNames   node names, index order
     * @param nodeInfos   Volcano NodeInfo body per node
     * @param gangTasks   Volcano TaskInfo body per pending gang pod, rank order
     * @param kubePodJson the pending kube-scheduler pod as stored
     * @param boundPods   {@code namespace/name} of every bound pod (churn targets)
     * @param freeNodes   indices of nodes with all 8 GPUs free
     * @param steps       seconds per population step, in order
     * @param objects     objects created, by kind
     */
    record Populated(List<String> nodeNames, byte[][] nodeInfos, List<byte[]> gangTasks, String kubePodJson,
                     List<String> boundPods, List<Integer> freeNodes, Map<String, Double> steps,
                     Map<String, Integer> objects) {
    }

    private final KubernetesClient client;
    private final KubernetesSerialization ser;
    private final ClusterLayout layout;
    private final int threads;
    private final PrintStream log;
    private final ScaleNetworks networks;
    private final ScaleObjects objects;

    /** @param nodeSlices whereabouts node slices whatever the size ({@link ScaleNetworks#of(ClusterLayout, boolean)}) */
    ClusterPopulator(KubernetesClient client, ClusterLayout layout, boolean nodeSlices, int threads, PrintStream log) {
        this.client = client;
        this.ser = client.getKubernetesSerialization();
        this.layout = layout;
        this.threads = threads;
        this.log = log;
        this.networks = ScaleNetworks.of(layout, nodeSlices);
        this.objects = new ScaleObjects(ser, networks);
    }

    // MethodLength: long because the population steps run in the order the API server needs them, each a few lines
    Populated populate() {
        Map<String, Double> steps = new LinkedHashMap<>();
        Map<String, Integer> counts = new LinkedHashMap<>();
        long t = System.nanoTime();
        for (String ns : List.of(ClusterLayout.PROD, "gpu-operator", "network-operator", "monitoring", "railyard-system")) {
            client.namespaces().resource(new NamespaceBuilder().withNewMetadata().withName(ns).endMetadata().build())
                    .create();
        }
        for (HasMetadata net : networks.networks(client)) {
            create(net);
        }
        for (NodeSlicePool slices : networks.slicePools()) {
            NodeSlicePool created = create(slices);
            created.setStatus(slices.getStatus());
            status(created);
        }
        t = step(steps, "namespaces + networks", t);

        int n = layout.nodes();
        String[] nodeJson = new String[n];
        Node[] nodes = new Node[n];
        parallel("nodes", n, i -> {
            Node created = create(objects.node(i));
            Node stored = created;
            if (created.getStatus() == null || created.getStatus().getAllocatable() == null) {
                // status dropped at create (older API servers): write it through the status subresource
                Node withStatus = objects.node(i);
                withStatus.setMetadata(created.getMetadata());
                stored = status(withStatus);
            }
            nodes[i] = stored;
            nodeJson[i] = ser.asJson(stored);
        });
        counts.put("Node", n);
        t = step(steps, "nodes", t);

        List<ClusterLayout.BoundGang> gangs = layout.boundGangs();
        List<List<ClusterLayout.GpuPod>> gpuPodsByNode = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            gpuPodsByNode.add(new ArrayList<>());
        }
        List<ScaleNetworks.Holder> holders = new ArrayList<>();
        Map<String, Integer> offsets = new LinkedHashMap<>();
        for (ClusterLayout.BoundGang g : gangs) {
            for (ClusterLayout.GpuPod p : g.pods()) {
                List<ClusterLayout.GpuPod> onNode = gpuPodsByNode.get(p.node());
                int offset = networks.offset(holders.size(), onNode.size());
                onNode.add(p);
                offsets.put(p.name(), offset);
                holders.add(new ScaleNetworks.Holder(p.name(), p.node(), offset));
            }
        }
        parallel("node topologies", n, i -> {
            GenericKubernetesResource nt = objects.nodeTopology(i, gpuPodsByNode.get(i));
            Object status = nt.getAdditionalProperties().get("status");
            GenericKubernetesResource created = create(nt);
            created.getAdditionalProperties().put("status", status);
            status(created);
        });
        counts.put("NodeTopology", n);
        t = step(steps, "node topologies", t);

        parallel("pod groups", gangs.size() + 1, k -> create(k < gangs.size()
                ? ScaleObjects.podGroup(gangs.get(k).name(), gangs.get(k).pods().size(),
                gangs.get(k).pods().getFirst().gpus().length)
                : ScaleObjects.podGroup(ClusterLayout.GANG, layout.gangSize(), 8)));
        counts.put("PodGroup", gangs.size() + 1);
        t = step(steps, "pod groups", t);

        byte[][] nodeInfos = new byte[n][];
        List<String> bound = java.util.Collections.synchronizedList(new ArrayList<>());
        AtomicInteger podCount = new AtomicInteger();
        parallel("bound pods", n, i -> {
            List<Pod> pods = new ArrayList<>();
            for (int d = 0; d < layout.daemonsPerNode(); d++) {
                pods.add(ScaleObjects.daemonPod(i, d));
            }
            for (ClusterLayout.GpuPod p : gpuPodsByNode.get(i)) {
                pods.add(objects.boundGpuPod(p, offsets.get(p.name())));
            }
            List<byte[]> tasks = new ArrayList<>();
            List<Pod> stored = new ArrayList<>();
            for (int k = 0; k < pods.size(); k++) {
                Pod created = create(pods.get(k));
                created.setStatus(ScaleObjects.running(created, i, String.format("10.%d.%d.%d", 128 + i / 256, i % 256,
                        k + 2)));
                Pod running = status(created);
                String job = running.getMetadata().getAnnotations() == null ? null
                        : running.getMetadata().getAnnotations().get("scheduling.k8s.io/group-name");
                tasks.add(VolcanoWire.taskInfo(ser.asJson(running), running,
                        job == null ? "" : ClusterLayout.PROD + "/" + job, job == null ? "" : "worker",
                        VolcanoWire.RUNNING));
                stored.add(running);
                bound.add(running.getMetadata().getNamespace() + "/" + running.getMetadata().getName());
            }
            podCount.addAndGet(pods.size());
            nodeInfos[i] = VolcanoWire.nodeInfo(nodeJson[i], nodes[i], tasks, stored);
            nodeJson[i] = null;
        });
        counts.put("Pod (bound)", podCount.get());
        t = step(steps, "bound pods", t);

        List<IPPool> pools = networks.pools(holders);
        parallel("ip pools", pools.size(), k -> create(pools.get(k)));
        counts.put("IPPool", pools.size());
        counts.put("IPPool allocations", holders.size() * networks.ranges().size());
        counts.put("NodeSlicePool", networks.slicePools().size());
        t = step(steps, "ip pools", t);
        List<OverlappingRangeIPReservation> reservations = networks.reservations(holders);
        parallel("reservations", reservations.size(), k -> create(reservations.get(k)));
        counts.put("OverlappingRangeIPReservation", reservations.size());
        t = step(steps, "reservations", t);

        List<String> gangPods = layout.gangPods();
        byte[][] gangTasks = new byte[gangPods.size()][];
        parallel("pending gang", gangPods.size(), k -> {
            Pod p = create(ScaleObjects.pendingGangPod(gangPods.get(k)));
            gangTasks[k] = VolcanoWire.taskInfo(ser.asJson(p), p, ClusterLayout.PROD + "/" + ClusterLayout.GANG, "worker",
                    VolcanoWire.PENDING);
        });
        Pod kube = create(ScaleObjects.pendingKubePod());
        counts.put("Pod (pending)", gangPods.size() + 1);
        step(steps, "pending pods", t);

        List<String> names = new ArrayList<>();
        List<Integer> free = new ArrayList<>();
        ClusterLayout.Occupancy[] occ = layout.occupancy();
        for (int i = 0; i < n; i++) {
            names.add(ClusterLayout.nodeName(i));
            if (occ[i] == ClusterLayout.Occupancy.FREE) {
                free.add(i);
            }
        }
        return new Populated(names, nodeInfos, List.of(gangTasks), ser.asJson(kube), List.copyOf(bound), free, steps,
                counts);
    }

    private double seconds(long since) {
        return (System.nanoTime() - since) / 1e9;
    }

    private long step(Map<String, Double> steps, String what, long since) {
        double s = seconds(since);
        steps.put(what, s);
        log.printf("[scale]   %-22s %7.1f s%n", what, s);
        return System.nanoTime();
    }

    private <T extends HasMetadata> T create(T object) {
        try {
            return retry(() -> client.resource(object).create());
        } catch (KubernetesClientException e) {
            if (e.getCode() == 409) {
                // every name is new in a fresh cluster: an earlier attempt (ours, or the client's own retry after
                // a lost answer) was stored
                return client.resource(object).get();
            }
            throw e;
        }
    }

    /**
     * Writes {@code desired}'s status. A 409 means the object moved on since it was read: under load that is an
     * earlier attempt of this same write (the client retries a request whose answer was lost), so the same status
     * is written again on the current version.
     */
    private <T extends HasMetadata> T status(T desired) {
        try {
            return retry(() -> client.resource(desired).updateStatus());
        } catch (KubernetesClientException e) {
            if (e.getCode() != 409) {
                throw e;
            }
            desired.getMetadata().setResourceVersion(client.resource(desired).get().getMetadata().getResourceVersion());
            return retry(() -> client.resource(desired).updateStatus());
        }
    }

    /** Runs {@code call}, retrying transient API errors (no answer, 429, 5xx) up to 6 attempts with backoff. */
    static <T> T retry(Supplier<T> call) {
        for (int attempt = 1; ; attempt++) {
            try {
                return call.get();
            } catch (KubernetesClientException e) {
                int code = e.getCode();
                boolean transientError = code == 0 || code == 429 || code >= 500;
                if (!transientError || attempt >= 6) {
                    throw e;
                }
                ScaleControlPlane.sleep(200L << attempt);
            }
        }
    }

    /** Runs {@code body} for 0..count-1 on {@link #threads} threads; the first failure stops the rest and is thrown. */
    private void parallel(String what, int count, IntConsumer body) {
        ExecutorService pool = Executors.newFixedThreadPool(threads, r -> {
            Thread th = new Thread(r, "populate");
            th.setDaemon(true);
            return th;
        });
        AtomicInteger next = new AtomicInteger();
        AtomicInteger done = new AtomicInteger();
        long start = System.nanoTime();
        long[] lastReport = {start};
        try {
            List<Future<?>> futures = new ArrayList<>();
            for (int w = 0; w < threads; w++) {
                futures.add(pool.submit(() -> {
                    int i;
                    while ((i = next.getAndIncrement()) < count && !Thread.currentThread().isInterrupted()) {
                        body.accept(i);
                        int d = done.incrementAndGet();
                        long now = System.nanoTime();
                        synchronized (lastReport) {
                            if (now - lastReport[0] > 30_000_000_000L) {
                                lastReport[0] = now;
                                log.printf("[scale]     %s: %d of %d (%.0f/s)%n", what, d, count, d / seconds(start));
                            }
                        }
                    }
                    return null;
                }));
            }
            for (Future<?> f : futures) {
                f.get();
            }
        } catch (java.util.concurrent.ExecutionException e) {
            Throwable cause = e.getCause();
            throw cause instanceof RuntimeException re ? re : new IllegalStateException(what + ": " + cause, cause);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while creating " + what, e);
        } finally {
            pool.shutdownNow();
        }
    }
}
