package dev.railyard.scheduler.engine;

import dev.railyard.api.topology.GpuHcaPair;
import dev.railyard.api.topology.PcieDistance;
import dev.railyard.scheduler.ipam.NetworkSelection;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * One node seen by one pod shape: which of its rails the pod can use, the rail HCA each free GPU would send
 * through, which GPUs qualify under the distance limit, and what blocks the node outright. Immutable.
 *
 * <p><b>Usable rails.</b> A rail (an HCA of the node's rail map) is usable when the pod reaches its HCA: through a
 * network whose master netdev is a port of that HCA (when the pod has networks and the node's netdevs are known),
 * and through an RDMA resource the pod requests that exposes that HCA (when the pod requests any with a known HCA).
 *
 * <p><b>GPU binding.</b> A free GPU whose own rail (its pair in the node's rail map) is usable binds to it. Otherwise
 * it binds to the nearest usable rail HCA by the node's distance table, ties to the rail with fewest GPUs bound so
 * far, then the lowest rail. A GPU qualifies when its binding is at or under the distance limit (any distance when
 * the limit is null).
 */
public final class NodeRailView {
    private final NodeState node;
    private final PodRequest pod;
    private final PcieDistance limit;
    final NodeRails rails;
    private final List<Reason> blockers;
    private final boolean[] usable;
    /** Binding per GPU position (free and bound GPUs), null otherwise. */
    final GpuBinding[] binding;
    final boolean[] eligible;
    /** Eligible GPU positions per rail, nearest first, then by GPU index. */
    final int[][] eligibleOnRail;
    /** All eligible GPU positions, nearest first, then by GPU index. */
    final int[] eligibleAll;
    final int[] eligiblePerRail;
    final int freeGpus;
    /**
     * Per GPU position: whether the GPU can serve this pod shape at all, judged by its own pair (at or under the
     * limit; every GPU when there is no limit). Fragmentation and tightness count only such GPUs: a GPU that only
     * reaches an HCA at SYS is no loss to a ≤ PXB cluster when it stays idle.
     */
    final boolean[] capable;
    /** Capable GPUs per locality group (free or not). */
    final int[] groupSize;
    /** Free capable GPUs per locality group. */
    final int[] groupFree;
    /** Free capable GPUs on the node. */
    final int freeCapable;
    private final long podsByResources;
    private final Map<Integer, Integer> railNetwork;
    private final ResourceReach resources;
    private final NetworkReach networks;
    private final Bindings bindings;
    private final Eligible eligibleIndex;
    /** {@link #reasonsForOnePod()}, computed once and shared with twins. */
    private final List<List<Reason>> oneCache;

    /** Free GPUs bound to rail HCAs, and the locality-group counts over capable GPUs. */
    private record Bindings(GpuBinding[] binding, boolean[] eligible, boolean[] capable, int[] groupSize,
                            int[] groupFree, int freeGpus, int freeCapable) {
        static Bindings none() {
            return new Bindings(new GpuBinding[0], new boolean[0], new boolean[0], new int[0], new int[0], 0, 0);
        }
    }

    /** The eligible GPU positions indexed: per rail and in all, nearest first, then by GPU index. */
    private record Eligible(int[][] onRail, int[] all, int[] perRail) {
        static Eligible none() {
            return new Eligible(new int[0][], new int[0], new int[0]);
        }
    }

    /**
     * What the pod's RDMA resources allow.
     *
     * @param podsByResources pods the free slots admit ({@link Long#MAX_VALUE} when the pod asks for none)
     * @param usable          per rail, whether a requested resource exposes its HCA; null when no requested
     *                        resource names a known HCA (then resources do not restrict rails)
     */
    private record ResourceReach(long podsByResources, boolean[] usable) {
    }

    /**
     * What the pod's networks reach.
     *
     * @param usable      per rail, whether some network's master netdev is a port of its HCA; null when unknown
     * @param railNetwork rail → index (into the pod's networks) of the first network on it
     */
    private record NetworkReach(boolean[] usable, Map<Integer, Integer> railNetwork) {
    }

    private NodeRailView(NodeState node, PodRequest pod, PcieDistance limit, NodeRails rails, List<Reason> blockers,
                         boolean[] usable, ResourceReach resources, NetworkReach networks, Bindings b, Eligible e,
                         List<List<Reason>> oneCache) {
        this.node = node;
        this.pod = pod;
        this.limit = limit;
        this.rails = rails;
        this.blockers = List.copyOf(blockers);
        this.usable = usable;
        this.binding = b.binding();
        this.eligible = b.eligible();
        this.capable = b.capable();
        this.groupSize = b.groupSize();
        this.groupFree = b.groupFree();
        this.freeGpus = b.freeGpus();
        this.freeCapable = b.freeCapable();
        this.eligibleOnRail = e.onRail();
        this.eligibleAll = e.all();
        this.eligiblePerRail = e.perRail();
        this.podsByResources = resources.podsByResources();
        this.railNetwork = networks.railNetwork();
        this.resources = resources;
        this.networks = networks;
        this.bindings = b;
        this.eligibleIndex = e;
        this.oneCache = oneCache;
    }

    /**
     * @return this view for another node whose topology (same instance), allocated GPUs, RDMA resources and
     * schedulability are the same; shares all computed data
     */
    NodeRailView forTwin(NodeState twin) {
        return new NodeRailView(twin, pod, limit, rails, blockers, usable, resources, networks, bindings,
                eligibleIndex, oneCache);
    }

    /**
     * Builds the view in named steps: blockers of the whole node, what the RDMA resources and networks reach, the
     * usable rails, each free GPU's binding, the eligible GPUs indexed.
     *
     * @param snapshot the cluster
     * @param node     the node
     * @param pod      the pod (its shape matters, not its name)
     * @param limit    farthest distance class a GPU may pair at, or null for any
     * @return the view
     */
    public static NodeRailView of(ClusterSnapshot snapshot, NodeState node, PodRequest pod, PcieDistance limit) {
        NodeRails rails = node.topology() == null ? null : NodeRails.of(node.topology());
        List<Reason> block = new ArrayList<>();
        if (!node.schedulable()) {
            block.add(new Reason(ReasonCode.NODE_UNSCHEDULABLE, "node unschedulable", "cordoned or not ready"));
        }
        ResourceReach resources = resourceReach(node, pod, rails, block);
        NetworkReach networks = networkReach(snapshot, pod, rails, block);
        List<List<Reason>> oneCache = new CopyOnWriteArrayList<>();
        if (rails == null) {
            if (pod.gpus() > 0) {
                block.add(new Reason(ReasonCode.NO_NODE_TOPOLOGY, "no NodeTopology",
                        "the node has no NodeTopology; its GPU–HCA pairs are unknown"));
            }
            return new NodeRailView(node, pod, limit, null, block, new boolean[0], resources, networks,
                    Bindings.none(), Eligible.none(), oneCache);
        }
        boolean[] usable = usableRails(rails, pod, resources, networks, block);
        Bindings b = bindFreeGpus(node, rails, usable, limit);
        return new NodeRailView(node, pod, limit, rails, block, usable, resources, networks, b,
                indexEligible(rails, b), oneCache);
    }

    /** Step: the pod's RDMA resources on the node (missing or full ones block it) and the rails they expose. */
    private static ResourceReach resourceReach(NodeState node, PodRequest pod, NodeRails rails, List<Reason> block) {
        long byRes = Long.MAX_VALUE;
        boolean[] resUsable = null;
        for (var e : pod.rdmaResources().entrySet()) {
            HcaResource r = node.hcaResource(e.getKey());
            if (r == null) {
                block.add(new Reason(ReasonCode.HCA_RESOURCE_MISSING, "no resource " + e.getKey(),
                        e.getKey() + " is not advertised on the node"));
                byRes = 0;
                continue;
            }
            long req = Math.max(1, e.getValue());
            if (r.free() < req) {
                block.add(new Reason(ReasonCode.HCA_RESOURCE_FULL, "resource " + e.getKey() + " full",
                        e.getKey() + ": " + r.free() + " of " + r.capacity() + " slots free, " + req + " needed"));
            }
            byRes = Math.min(byRes, r.free() / req);
            if (rails != null && r.hca() != null) {
                Integer rail = rails.hcaRail.get(r.hca());
                if (resUsable == null) {
                    resUsable = new boolean[rails.railCount()];
                }
                if (rail != null) {
                    resUsable[rail] = true;
                }
            }
        }
        return new ResourceReach(byRes, resUsable);
    }

    /** Step: each network's master netdev on the node (a missing one blocks it) and the rails they reach. */
    private static NetworkReach networkReach(ClusterSnapshot snapshot, PodRequest pod, NodeRails rails,
                                             List<Reason> block) {
        boolean[] netUsable = null;
        Map<Integer, Integer> railNet = new LinkedHashMap<>();
        List<NetworkSelection> sels = pod.selections();
        for (int i = 0; i < sels.size(); i++) {
            SecondaryNetwork net = snapshot.network(sels.get(i).key());
            if (net == null || net.master() == null || rails == null || !rails.netdevsKnown) {
                continue;
            }
            String hca = rails.netdevHca.get(net.master());
            if (hca == null) {
                block.add(new Reason(ReasonCode.NETWORK_MASTER_MISSING, "no netdev " + net.master(),
                        "network " + net.key() + ": master " + net.master() + " is not on the node"));
                continue;
            }
            Integer rail = rails.hcaRail.get(hca);
            if (netUsable == null) {
                netUsable = new boolean[rails.railCount()];
            }
            if (rail != null) {
                netUsable[rail] = true;
                railNet.putIfAbsent(rail, i);
            }
        }
        return new NetworkReach(netUsable, railNet);
    }

    /** Step: the rails the pod reaches through both its networks and its resources; none blocks a GPU pod. */
    private static boolean[] usableRails(NodeRails rails, PodRequest pod, ResourceReach resources,
                                         NetworkReach networks, List<Reason> block) {
        int nr = rails.railCount();
        boolean[] usable = new boolean[nr];
        int usableCount = 0;
        for (int r = 0; r < nr; r++) {
            usable[r] = rails.railHca[r] != null && (networks.usable() == null || networks.usable()[r])
                    && (resources.usable() == null || resources.usable()[r]);
            if (usable[r]) {
                usableCount++;
            }
        }
        if (pod.gpus() > 0 && nr == 0) {
            block.add(new Reason(ReasonCode.NO_NODE_TOPOLOGY, "no GPU–HCA rail map",
                    "the node's NodeTopology pairs no GPU with an HCA"));
        } else if (pod.gpus() > 0 && usableCount == 0) {
            block.add(new Reason(ReasonCode.NO_USABLE_RAIL, "no rail HCA on the pod's networks",
                    "none of the node's rail HCAs (" + String.join(", ", rails.rails().values())
                            + ") is reached by the pod's networks and RDMA resources"));
        }
        return usable;
    }

    /** Step: binds each free GPU to its own rail HCA when usable, else the nearest usable one (class Javadoc). */
    private static Bindings bindFreeGpus(NodeState node, NodeRails rails, boolean[] usable, PcieDistance limit) {
        int n = rails.gpus.length;
        int nr = usable.length;
        GpuBinding[] binding = new GpuBinding[n];
        boolean[] eligible = new boolean[n];
        boolean[] capable = new boolean[n];
        int[] groupSize = new int[rails.groupSize.length];
        int[] groupFree = new int[rails.groupSize.length];
        for (int i = 0; i < n; i++) {
            GpuHcaPair own = rails.home.get(rails.gpus[i]);
            capable[i] = limit == null || (own != null && own.distance().allowedUnder(limit));
            if (capable[i]) {
                groupSize[rails.group[i]]++;
            }
        }
        int[] boundPerRail = new int[nr];
        int free = 0;
        int freeCap = 0;
        for (int i = 0; i < n; i++) {
            int gpu = rails.gpus[i];
            if (node.allocatedGpus().contains(gpu)) {
                continue;
            }
            free++;
            if (capable[i]) {
                groupFree[rails.group[i]]++;
                freeCap++;
            }
            GpuBinding b = bindOne(rails, usable, gpu, boundPerRail);
            if (b != null) {
                binding[i] = b;
                boundPerRail[b.rail()]++;
                eligible[i] = limit == null || b.distance().allowedUnder(limit);
            }
        }
        return new Bindings(binding, eligible, capable, groupSize, groupFree, free, freeCap);
    }

    /** @return the GPU's binding: its own pair when that rail is usable, else the nearest usable rail; or null */
    private static GpuBinding bindOne(NodeRails rails, boolean[] usable, int gpu, int[] boundPerRail) {
        GpuHcaPair own = rails.home.get(gpu);
        if (own != null && own.rail() < usable.length && usable[own.rail()]) {
            return new GpuBinding(gpu, own.hca(), own.rail(), own.distance(), true);
        }
        PcieDistance best = null;
        int bestRail = -1;
        for (int r = 0; r < usable.length; r++) {
            if (!usable[r]) {
                continue;
            }
            PcieDistance d = rails.distance(gpu, rails.railHca[r]);
            if (d == null) {
                continue;
            }
            if (best == null || d.compareTo(best) < 0 || (d == best && boundPerRail[r] < boundPerRail[bestRail])) {
                best = d;
                bestRail = r;
            }
        }
        return best == null ? null : new GpuBinding(gpu, rails.railHca[bestRail], bestRail, best, false);
    }

    /** Step: the eligible GPU positions per rail and in all, nearest first, then by GPU index. */
    private static Eligible indexEligible(NodeRails rails, Bindings b) {
        int nr = rails.railCount();
        int[] perRailCount = new int[nr];
        List<List<Integer>> perRail = new ArrayList<>();
        for (int r = 0; r < nr; r++) {
            perRail.add(new ArrayList<>());
        }
        List<Integer> all = new ArrayList<>();
        GpuBinding[] binding = b.binding();
        for (int i = 0; i < binding.length; i++) {
            if (b.eligible()[i]) {
                perRail.get(binding[i].rail()).add(i);
                all.add(i);
                perRailCount[binding[i].rail()]++;
            }
        }
        Comparator<Integer> nearest = Comparator.<Integer>comparingInt(i -> binding[i].distance().ordinal())
                .thenComparingInt(i -> rails.gpus[i]);
        int[][] onRail = new int[nr][];
        for (int r = 0; r < nr; r++) {
            perRail.get(r).sort(nearest);
            onRail[r] = perRail.get(r).stream().mapToInt(Integer::intValue).toArray();
        }
        all.sort(nearest);
        return new Eligible(onRail, all.stream().mapToInt(Integer::intValue).toArray(), perRailCount);
    }

    /** @return the node */
    public NodeState node() {
        return node;
    }

    /** @return the pod shape */
    public PodRequest pod() {
        return pod;
    }

    /** @return the distance limit, or null for none */
    public PcieDistance limit() {
        return limit;
    }

    /** @return reasons that rule the node out whatever GPUs are chosen (resources, netdevs, topology, cordon) */
    public List<Reason> blockers() {
        return blockers;
    }

    /** @return the number of rails in the node's rail map */
    public int railCount() {
        return usable.length;
    }

    /** @return true when the pod can use rail r on this node */
    public boolean usable(int rail) {
        return rail >= 0 && rail < usable.length && usable[rail];
    }

    /** @return the HCA of rail r, or null */
    public String railHca(int rail) {
        return rails == null || rail >= rails.railHca.length ? null : rails.railHca[rail];
    }

    /** @return free GPUs on the node */
    public int freeGpus() {
        return freeGpus;
    }

    /** @return qualifying free GPUs per rail */
    public int[] eligiblePerRail() {
        return eligiblePerRail.clone();
    }

    /** @return qualifying free GPUs in all */
    public int eligibleCount() {
        return eligibleAll.length;
    }

    /** @return the binding of every free GPU that has one, by GPU index */
    public List<GpuBinding> bindings() {
        List<GpuBinding> out = new ArrayList<>();
        for (GpuBinding b : binding) {
            if (b != null) {
                out.add(b);
            }
        }
        return out;
    }

    /** @return true when the GPU is free, bound and within the limit */
    public boolean qualifies(int gpu) {
        Integer i = rails == null ? null : rails.gpuPos.get(gpu);
        return i != null && eligible[i];
    }

    /** @return the index (into the pod's networks) of the network on rail r's HCA, or -1 */
    public int networkOnRail(int rail) {
        return railNetwork.getOrDefault(rail, -1);
    }

    /** @return how many pods of this shape the node's RDMA resource slots admit ({@link Long#MAX_VALUE} if none asked) */
    public long podsByResources() {
        return podsByResources;
    }

    /**
     * @return how many pods of this shape fit with the given rail vector (or with any rails when {@code vector} is
     * null), counting GPUs and RDMA resource slots; 0 when blocked
     */
    public int capacity(RailVector vector) {
        if (!blockers.isEmpty()) {
            return 0;
        }
        long cap = podsByResources;
        int g = pod.gpus();
        if (g == 0) {
            return (int) Math.min(cap, Integer.MAX_VALUE);
        }
        if (vector == null) {
            cap = Math.min(cap, eligibleAll.length / g);
        } else {
            if (vector.width() > eligiblePerRail.length) {
                return 0;
            }
            for (int r = 0; r < vector.width(); r++) {
                int c = vector.count(r);
                if (c > 0) {
                    cap = Math.min(cap, eligiblePerRail[r] / c);
                }
            }
        }
        return (int) Math.min(cap, Integer.MAX_VALUE);
    }

    /** @return the node's locality groups (GPUs under one PCIe switch), 0 without a rail map */
    int groupCount() {
        return rails == null ? 0 : groupSize.length;
    }

    /** @return the node's GPUs, free or not, 0 without a rail map */
    int gpuCount() {
        return rails == null ? 0 : rails.gpus.length;
    }

    /**
     * @param positions GPU positions taken
     * @return locality groups some but not all of whose capable GPUs are free once those are taken
     */
    int brokenGroupsAfter(int[] positions) {
        if (rails == null) {
            return 0;
        }
        int[] after = groupFree.clone();
        for (int p : positions) {
            take(after, p);
        }
        int broken = 0;
        for (int g = 0; g < groupSize.length; g++) {
            if (after[g] > 0 && after[g] < groupSize[g]) {
                broken++;
            }
        }
        return broken;
    }

    /** Removes a chosen GPU position from per-group free counts (no-op for GPUs that are not capable). */
    void take(int[] groupFreeCounts, int position) {
        if (capable[position]) {
            groupFreeCounts[rails.group[position]]--;
        }
    }

    /** Puts a GPU position back (undoes {@link #take}). */
    void untake(int[] groupFreeCounts, int position) {
        if (capable[position]) {
            groupFreeCounts[rails.group[position]]++;
        }
    }

    /** @return the reasons one pod of this shape cannot go on the node (blockers, then GPUs); empty when it can */
    public List<Reason> reasonsForOnePod() {
        if (!oneCache.isEmpty()) {
            return oneCache.get(0);
        }
        List<Reason> r = List.copyOf(computeReasonsForOnePod());
        if (oneCache.isEmpty()) {
            oneCache.add(r);
        }
        return r;
    }

    private List<Reason> computeReasonsForOnePod() {
        List<Reason> out = new ArrayList<>(blockers);
        int g = pod.gpus();
        if (g == 0 || rails == null || railCount() == 0) {
            return out;
        }
        if (freeGpus < g && rails.gpus.length < g) {
            out.add(new Reason(ReasonCode.GPUS_EXCEED_NODE, "fewer GPUs than requested",
                    g + " needed, the node has " + rails.gpus.length));
        } else if (freeGpus < g) {
            out.add(new Reason(ReasonCode.INSUFFICIENT_GPUS, "insufficient free GPUs",
                    g + " needed, " + freeGpus + " free"));
        } else if (eligibleAll.length < g) {
            String lim = limit == null ? "any distance" : "≤ " + limit;
            List<String> far = new ArrayList<>();
            for (int i = 0; i < binding.length; i++) {
                if (node.allocatedGpus().contains(rails.gpus[i]) || eligible[i]) {
                    continue;
                }
                GpuBinding b = binding[i];
                far.add(b == null ? "GPU" + rails.gpus[i] + " no usable HCA"
                        : "GPU" + rails.gpus[i] + " " + b.distance() + " to " + b.hca());
            }
            String needed = g + (g == 1 ? " GPU" : " GPUs") + " needed at " + lim + " from the pod's HCAs, "
                    + eligibleAll.length + " qualify (" + String.join(", ", far) + ")";
            int inHardware = gpusPairingWithinLimit();
            // held GPUs that would qualify: evicting their pods can make room (Unschedulable); otherwise the node's
            // hardware, as the pod's networks and RDMA resources reach it, cannot (UnschedulableAndUnresolvable)
            out.add(inHardware >= g
                    ? new Reason(ReasonCode.GPU_PAIRS_HELD, "no free GPU pair at " + lim, needed + "; "
                            + (inHardware - eligibleAll.length) + " more pair so but are held by pods on the node")
                    : new Reason(ReasonCode.NO_GPU_PAIR_WITHIN_DISTANCE, "too few GPUs pair at " + lim, needed + "; "
                            + inHardware + " of the node's " + rails.gpus.length + " GPUs pair so, free or not"));
        }
        return out;
    }

    /**
     * @return the node's GPUs, free or held, that would bind (as a free one does) to a rail HCA the pod reaches at or
     *         under the limit: what the node could give the pod if every pod on it left
     */
    private int gpusPairingWithinLimit() {
        int[] noneBound = new int[usable.length];
        int n = 0;
        for (int i = 0; i < rails.gpus.length; i++) {
            GpuBinding b = bindOne(rails, usable, rails.gpus[i], noneBound);
            if (b != null && (limit == null || b.distance().isAtMost(limit))) {
                n++;
            }
        }
        return n;
    }

    @Override
    public String toString() {
        return "NodeRailView[" + node.name() + " usable=" + Arrays.toString(usable) + " eligible/rail="
                + Arrays.toString(eligiblePerRail) + " blockers=" + blockers + "]";
    }
}
