package dev.railyard.topology.pairing;

import dev.railyard.api.topology.ExcludedHca;
import dev.railyard.api.topology.Gpu;
import dev.railyard.api.topology.GpuHcaPair;
import dev.railyard.api.topology.Hca;
import dev.railyard.api.topology.HcaPort;
import dev.railyard.api.topology.Locality;
import dev.railyard.api.topology.NodeTopologySpec;
import dev.railyard.api.topology.PcieDistance;
import dev.railyard.topology.discovery.HcaNameOrder;
import dev.railyard.topology.discovery.PciBusId;
import dev.railyard.topology.graph.NodeGraph;
import org.jgrapht.Graph;
import org.jgrapht.alg.interfaces.MatchingAlgorithm;
import org.jgrapht.alg.matching.KuhnMunkresMinimalWeightBipartitePerfectMatching;
import org.jgrapht.graph.DefaultWeightedEdge;
import org.jgrapht.graph.SimpleWeightedGraph;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.stream.Collectors;

/**
 * Pairs every GPU of a node with its nearest rail HCA and says why the other HCAs are not rails.
 *
 * <p><b>Exclusions</b>, in this order, each evaluated on the HCAs still candidate (first matching reason wins):
 * <ol>
 *   <li>software RDMA devices ({@code siw*}, {@code rxe*}): no PCIe locality;</li>
 *   <li>bond members ({@link Hca#bondMaster()} set): the bond device is the rail;</li>
 *   <li>HCAs all of whose listed ports are down;</li>
 *   <li>HCAs SYS to every GPU while another candidate is nearer to some GPU;</li>
 *   <li>when some candidate shares a PCIe switch with a GPU (PIX or PXB), the candidates that share one with no
 *       GPU (front-end or storage ports);</li>
 *   <li>when there are more candidates than GPUs, the candidates that are worse, for every GPU, than that GPU's
 *       nearest candidate.</li>
 * </ol>
 * Rules 4–6 need evidence: they exclude an HCA only when its distance to <em>every</em> GPU is known. An HCA whose
 * distances are partly unknown (damaged dump) is never excluded on guesswork; if it ends up without a GPU it is
 * reported as undecided. Rules 4–6 exclude for lack of a near GPU, so they are not applied to a partial view (a
 * container that sees some GPUs and every NIC, {@link LocalityRules#partialView}).
 *
 * <p><b>Locality.</b> When the source cannot tell which HCA is near which GPU ({@link LocalityRules#cannotTell}, or
 * a parser that says so, such as a virtual machine's PCIe tree) nothing is paired and the spec's
 * {@link Locality} says why; C2C-attached GPUs paired with an HCA of their own CPU (P2C) give
 * {@link Locality.Basis#NUMA}.
 *
 * <p><b>Assignment.</b> GPUs are paired when their distance to every candidate HCA is known, or when they have a
 * known PIX candidate (nothing can be nearer). Each candidate HCA may take at most
 * {@code ceil(#GPUs / #candidate HCAs)} GPUs (balanced load; #GPUs counts every GPU of the node). The pairing is a
 * minimum-cost assignment solved exactly as a perfect matching on the bipartite graph (GPUs + idle fillers) x
 * (HCA copies, one per unit of capacity + "no HCA" fillers) by JGraphT's
 * {@link KuhnMunkresMinimalWeightBipartitePerfectMatching} (Hungarian method, O(n<sup>3</sup>)). Replicating each
 * HCA {@code cap} times is the standard exact reduction of the capacitated assignment to the assignment problem;
 * fillers cost 0 on the GPU side and more than any class on the HCA side, so the matching restricted to real
 * pairs is an optimal capacitated assignment.
 *
 * <p><b>Cost.</b> The cost of a pair of class {@code c} (PIX=0, PXB=1, P2C=2 .. SYS=5, unknown=6) is
 * {@code (n+1)^c * T} plus a
 * tie-break {@code (i - j)^2}, where {@code n} is the number of GPUs being paired, {@code i} the GPU's rank and
 * {@code j} the HCA copy's rank. Because one pair of class {@code c+1} costs more than {@code n} pairs of class
 * {@code c} plus all tie-breaks ({@code T} exceeds the largest possible tie-break sum), the optimum is
 * lexicographic: as few SYS pairs as possible, then as few NODE pairs, and so on down to PXB. Among assignments
 * with the same classes, the tie-break picks the one whose ranks line up (rearrangement inequality: for a fixed set
 * of pairs the sum of squared rank differences is smallest when ranks are matched in order), so lower GPUs go to
 * lower HCAs. Ranks order GPUs and HCAs by PCI bus id when every one has a bus id, otherwise by GPU index and by
 * HCA name with numbers compared as numbers ({@code mlx5_2} before {@code mlx5_10}). The result depends only on
 * the node's topology, not on the order devices are listed in, so identical machines give identical rail maps.
 *
 * <p><b>Rails.</b> Walking the pairs in GPU index order, each HCA gets the next rail index the first time it
 * appears (rail = position in the GPU-ordered pairing), so nodes whose mlx5 numbering differs still line up rail
 * by rail.
 *
 * <p>Notes on the result (GPUs paired beyond PXB, where NCCL does not use GPUDirect RDMA by default; GPUs left
 * unpaired; HCAs undecided or spare) are appended to the spec's warnings with the prefix {@value #NOTE_PREFIX}.
 * Stateless and thread-safe.
 */
public final class RailPairing {
    /** Prefix of the warnings this class adds; earlier ones are replaced when a spec is paired again. */
    public static final String NOTE_PREFIX = "pairing: ";

    /** Largest cost kept exact in a double. */
    private static final double EXACT = 0x1p52;

    /**
     * Pairs a parsed node.
     *
     * @param parsed a parser's result ({@code pairs} and {@code excluded} are ignored and replaced)
     * @return the same node with {@code pairs}, {@code excluded} and the pairing notes filled in
     */
    public NodeTopologySpec pair(NodeTopologySpec parsed) {
        return pair(parsed, NodeGraph.of(parsed));
    }

    /**
     * Pairs a parsed node whose graph is already built.
     *
     * @param parsed a parser's result
     * @param graph  {@code NodeGraph.of(parsed)}
     * @return the same node with {@code pairs}, {@code excluded} and the pairing notes filled in
     */
    public NodeTopologySpec pair(NodeTopologySpec parsed, NodeGraph graph) {
        return new Run(parsed, graph).run();
    }

    private static final class Run {
        private final NodeTopologySpec spec;
        private final NodeGraph graph;
        private final List<Gpu> gpus;
        private final Map<String, PcieDistance[]> dist = new HashMap<>();
        private final Map<String, String> reasons = new HashMap<>();
        private final List<String> notes = new ArrayList<>();

        Run(NodeTopologySpec spec, NodeGraph graph) {
            this.spec = spec;
            this.graph = graph;
            this.gpus = spec.gpus().stream().sorted(Comparator.comparingInt(Gpu::index)).toList();
        }

        NodeTopologySpec run() {
            for (Hca h : spec.hcas()) {
                PcieDistance[] column = new PcieDistance[gpus.size()];
                for (int g = 0; g < gpus.size(); g++) {
                    column[g] = graph.distance(gpus.get(g).index(), h.name());
                }
                dist.put(h.name(), column);
            }
            List<Hca> candidates = new ArrayList<>();
            Set<String> names = new HashSet<>();
            for (Hca h : spec.hcas()) {
                if (!names.add(h.name())) {
                    continue;  // a second HCA of the same name: the first one stands for both
                }
                String reason = deviceReason(h);
                if (reason != null) {
                    reasons.put(h.name(), reason);
                } else {
                    candidates.add(h);
                }
            }
            List<GpuHcaPair> pairs = List.of();
            Locality locality = spec.locality().determined() ? LocalityRules.cannotTell(gpus, candidates, dist)
                    : spec.locality();
            if (gpus.isEmpty()) {
                notes.add(NOTE_PREFIX + "no GPUs, nothing to pair");
                locality = Locality.PCIE;
            } else if (locality != null) {
                notes.add(NOTE_PREFIX + "not paired: " + locality.reason());
            } else {
                List<String> orphans = LocalityRules.partialView(gpus, candidates, dist);
                if (orphans.isEmpty()) {
                    candidates = sysOnlyRule(candidates);
                    candidates = switchRule(candidates);
                    candidates = surplusRule(candidates);
                } else {
                    notes.add(NOTE_PREFIX + LocalityRules.partialViewNote(gpus.size(), candidates.size(), orphans));
                }
                pairs = assign(candidates, orphans);
                locality = LocalityRules.afterPairing(pairs);
            }
            List<ExcludedHca> excluded = new ArrayList<>();
            Set<String> seen = new HashSet<>();
            for (Hca h : spec.hcas()) {
                String reason = reasons.get(h.name());
                if (reason != null && seen.add(h.name())) {
                    excluded.add(new ExcludedHca(h.name(), reason));
                }
            }
            List<String> warnings = new ArrayList<>();
            for (String w : spec.warnings()) {
                if (!w.startsWith(NOTE_PREFIX)) {
                    warnings.add(w);
                }
            }
            warnings.addAll(notes);
            return new NodeTopologySpec(spec.source(), spec.complete(), warnings, spec.gpus(), spec.hcas(),
                    spec.pcieBridges(), spec.numaNodes(), spec.distances(), pairs, excluded, locality);
        }

        // ----- exclusion rules ---------------------------------------------------------------------------

        private static String deviceReason(Hca h) {
            if (h.isSoftware()) {
                return "software RDMA device (" + (h.name().startsWith("siw") ? "SoftiWARP" : "Soft-RoCE")
                        + "): no PCIe locality, never a rail";
            }
            if (h.bondMaster() != null) {
                return "member of bond " + h.bondMaster() + ": the bond device is the rail";
            }
            if (!h.ports().isEmpty() && h.ports().stream().noneMatch(HcaPort::isUp)) {
                return h.ports().stream().map(p -> "port " + p.number() + " is " + p.state())
                        .collect(Collectors.joining(", "));
            }
            return null;
        }

        private List<Hca> sysOnlyRule(List<Hca> candidates) {
            Best nearer = best(candidates, PcieDistance.NODE);
            List<Hca> kept = new ArrayList<>();
            for (Hca h : candidates) {
                PcieDistance nearest = nearestIfAllKnown(h);
                if (nearer != null && nearest == PcieDistance.SYS) {
                    reasons.put(h.name(), "SYS to every GPU while " + nearer.hca + " is " + nearer.distance
                            + " to GPU" + nearer.gpu);
                } else {
                    kept.add(h);
                }
            }
            return kept;
        }

        private List<Hca> switchRule(List<Hca> candidates) {
            List<String> sharers = new ArrayList<>();
            for (Hca h : candidates) {
                PcieDistance n = nearestKnown(h);
                if (n != null && n.isAtMost(PcieDistance.PXB)) {
                    sharers.add(h.name());
                }
            }
            if (sharers.isEmpty()) {
                return candidates;
            }
            String who = sharers.size() == 1 ? sharers.getFirst() + " does"
                    : sharers.getFirst() + " and " + (sharers.size() - 1) + " other HCA" + (sharers.size() > 2 ? "s"
                    : "") + " do";
            List<Hca> kept = new ArrayList<>();
            for (Hca h : candidates) {
                PcieDistance nearest = nearestIfAllKnown(h);
                if (nearest != null && !nearest.isAtMost(PcieDistance.PXB)) {
                    reasons.put(h.name(), "shares no PCIe switch with any GPU (nearest " + nearest + ") while " + who
                            + ": a front-end or storage port");
                } else {
                    kept.add(h);
                }
            }
            return kept;
        }

        private List<Hca> surplusRule(List<Hca> candidates) {
            if (candidates.size() <= gpus.size()) {
                return candidates;
            }
            PcieDistance[] nearest = new PcieDistance[gpus.size()];
            for (Hca h : candidates) {
                PcieDistance[] col = dist.get(h.name());
                for (int g = 0; g < gpus.size(); g++) {
                    if (col[g] != null && (nearest[g] == null || col[g].compareTo(nearest[g]) < 0)) {
                        nearest[g] = col[g];
                    }
                }
            }
            List<Hca> kept = new ArrayList<>();
            for (Hca h : candidates) {
                PcieDistance[] col = dist.get(h.name());
                boolean worseForAll = nearestIfAllKnown(h) != null;
                for (int g = 0; g < gpus.size() && worseForAll; g++) {
                    worseForAll = col[g].compareTo(nearest[g]) > 0;
                }
                if (worseForAll) {
                    reasons.put(h.name(), "at best " + nearestIfAllKnown(h) + " to the GPUs, worse than each GPU's"
                            + " nearest HCA, with more candidate HCAs (" + candidates.size() + ") than GPUs ("
                            + gpus.size() + ")");
                } else {
                    kept.add(h);
                }
            }
            return kept;
        }

        private record Best(String hca, int gpu, PcieDistance distance) {
        }

        /** @return the nearest known (GPU, HCA) pair at or below {@code limit}, or null */
        private Best best(List<Hca> candidates, PcieDistance limit) {
            Best best = null;
            for (Hca h : candidates) {
                PcieDistance[] col = dist.get(h.name());
                for (int g = 0; g < gpus.size(); g++) {
                    if (col[g] != null && col[g].isAtMost(limit)
                            && (best == null || col[g].compareTo(best.distance) < 0)) {
                        best = new Best(h.name(), gpus.get(g).index(), col[g]);
                    }
                }
            }
            return best;
        }

        /** @return the HCA's nearest class when its distance to every GPU is known, else null */
        private PcieDistance nearestIfAllKnown(Hca h) {
            PcieDistance[] col = dist.get(h.name());
            PcieDistance nearest = null;
            for (PcieDistance d : col) {
                if (d == null) {
                    return null;
                }
                nearest = nearest == null || d.compareTo(nearest) < 0 ? d : nearest;
            }
            return nearest;
        }

        private PcieDistance nearestKnown(Hca h) {
            PcieDistance nearest = null;
            for (PcieDistance d : dist.get(h.name())) {
                if (d != null && (nearest == null || d.compareTo(nearest) < 0)) {
                    nearest = d;
                }
            }
            return nearest;
        }

        // ----- assignment --------------------------------------------------------------------------------

        private List<GpuHcaPair> assign(List<Hca> candidates, List<String> orphans) {
            if (candidates.isEmpty()) {
                notes.add(NOTE_PREFIX + "no HCA can serve as a rail; no GPU is paired");
                return List.of();
            }
            // GPUs that can be decided, in rank order
            List<Integer> gpuOrder = rankedGpus();
            Map<Integer, Integer> gpuRank = new HashMap<>();
            for (int r = 0; r < gpuOrder.size(); r++) {
                gpuRank.put(gpuOrder.get(r), r);
            }
            List<Integer> decided = new ArrayList<>();
            Map<Integer, List<String>> unknownOf = new LinkedHashMap<>();
            for (int g : gpuOrder) {
                List<String> unknown = new ArrayList<>();
                boolean pix = false;
                boolean anyKnown = false;
                for (Hca h : candidates) {
                    PcieDistance d = dist.get(h.name())[g];
                    if (d == null) {
                        unknown.add(h.name());
                    } else {
                        anyKnown = true;
                        pix |= d == PcieDistance.PIX;
                    }
                }
                if (anyKnown && (unknown.isEmpty() || pix)) {
                    decided.add(g);
                } else {
                    unknownOf.put(g, unknown);
                }
            }
            // rail HCAs: candidates with a known distance to a decided GPU, in rank order
            List<Hca> rails = new ArrayList<>();
            for (Hca h : candidates) {
                PcieDistance[] col = dist.get(h.name());
                if (decided.stream().anyMatch(g -> col[g] != null)) {
                    rails.add(h);
                }
            }
            rails.sort(hcaOrder(rails));
            int cap = (gpus.size() + candidates.size() - 1) / candidates.size();

            int n = decided.size();
            int realSlots = rails.size() * cap;
            int size = Math.max(realSlots, n);
            Map<Integer, Integer> matchedSlot = n == 0 ? Map.of() : match(decided, gpuRank, rails, cap, size);

            List<GpuHcaPair> unordered = new ArrayList<>();
            for (int g : decided) {
                Integer slot = matchedSlot.get(g);
                PcieDistance d = slot == null || slot >= realSlots ? null
                        : dist.get(rails.get(slot / cap).name())[g];
                if (d == null) {
                    unknownOf.put(g, List.of());
                    continue;
                }
                unordered.add(new GpuHcaPair(gpus.get(g).index(), rails.get(slot / cap).name(), d, 0));
            }
            unordered.sort(Comparator.comparingInt(GpuHcaPair::gpu));
            Map<String, Integer> railOf = new LinkedHashMap<>();
            List<GpuHcaPair> pairs = new ArrayList<>();
            for (GpuHcaPair p : unordered) {
                int rail = railOf.computeIfAbsent(p.hca(), k -> railOf.size());
                pairs.add(new GpuHcaPair(p.gpu(), p.hca(), p.distance(), rail));
            }
            describe(pairs, unknownOf, candidates, cap, orphans);
            return pairs;
        }

        /**
         * Solves the capacitated assignment exactly.
         *
         * @return decided GPU ordinal -> slot index ({@code slot / cap} = index into {@code rails};
         *         {@code >= rails.size() * cap} means "no HCA")
         */
        private Map<Integer, Integer> match(List<Integer> decided, Map<Integer, Integer> gpuRank, List<Hca> rails,
                                            int cap, int size) {
            int n = decided.size();
            int realSlots = rails.size() * cap;
            long maxRank = Math.max(gpus.size(), size);
            double tieBound = 1 + (double) n * maxRank * maxRank;
            double[] classCost = new double[PcieDistance.values().length + 1];
            double base = n + 1;
            boolean lexicographic = Math.pow(base, classCost.length - 1) * tieBound < EXACT;
            for (int c = 0; c < classCost.length; c++) {
                classCost[c] = (lexicographic ? Math.pow(base, c) : c + 1) * tieBound;
            }
            double unpaired = classCost[classCost.length - 1];

            Graph<Integer, DefaultWeightedEdge> bip = new SimpleWeightedGraph<>(DefaultWeightedEdge.class);
            Set<Integer> left = new LinkedHashSet<>();
            Set<Integer> right = new LinkedHashSet<>();
            for (int i = 0; i < size; i++) {
                bip.addVertex(i);
                left.add(i);
                bip.addVertex(size + i);
                right.add(size + i);
            }
            for (int i = 0; i < size; i++) {
                Integer g = i < n ? decided.get(i) : null;
                for (int s = 0; s < size; s++) {
                    double w;
                    if (g == null) {
                        w = 0;
                    } else if (s >= realSlots) {
                        w = unpaired;
                    } else {
                        PcieDistance d = dist.get(rails.get(s / cap).name())[g];
                        long diff = gpuRank.get(g) - s;
                        w = (d == null ? unpaired : classCost[d.ordinal()]) + diff * diff;
                    }
                    bip.setEdgeWeight(bip.addEdge(i, size + s), w);
                }
            }
            MatchingAlgorithm.Matching<Integer, DefaultWeightedEdge> m =
                    new KuhnMunkresMinimalWeightBipartitePerfectMatching<>(bip, left, right).getMatching();
            Map<Integer, Integer> slotOf = new HashMap<>();
            for (DefaultWeightedEdge e : m.getEdges()) {
                int a = bip.getEdgeSource(e);
                int b = bip.getEdgeTarget(e);
                int l = Math.min(a, b);
                int r = Math.max(a, b) - size;
                if (l < n) {
                    slotOf.put(decided.get(l), r);
                }
            }
            return slotOf;
        }

        private List<Integer> rankedGpus() {
            List<Integer> order = new ArrayList<>();
            for (int g = 0; g < gpus.size(); g++) {
                order.add(g);
            }
            boolean byBus = gpus.stream().allMatch(g -> PciBusId.parse(g.pciBusId()).isPresent());
            if (byBus) {
                order.sort(Comparator.comparing(g -> PciBusId.parse(gpus.get(g).pciBusId()).orElseThrow()));
            }
            return order;
        }

        private static Comparator<Hca> hcaOrder(List<Hca> hcas) {
            boolean byBus = hcas.stream().allMatch(h -> PciBusId.parse(h.pciBusId()).isPresent());
            Comparator<Hca> byName = Comparator.comparing(Hca::name, HcaNameOrder.INSTANCE);
            return byBus ? Comparator.<Hca, PciBusId>comparing(h -> PciBusId.parse(h.pciBusId()).orElseThrow())
                    .thenComparing(byName) : byName;
        }

        // ----- notes -------------------------------------------------------------------------------------

        private void describe(List<GpuHcaPair> pairs, Map<Integer, List<String>> unknownOf, List<Hca> candidates,
                              int cap, List<String> orphans) {
            Map<PcieDistance, List<String>> far = new EnumMap<>(PcieDistance.class);
            for (GpuHcaPair p : pairs) {
                if (!p.distance().gpuDirectByDefault()) {
                    far.computeIfAbsent(p.distance(), k -> new ArrayList<>()).add("GPU" + p.gpu());
                }
            }
            far.forEach((d, list) -> notes.add(NOTE_PREFIX + String.join(", ", list)
                    + (list.size() == 1 ? " reaches its" : " reach their") + " rail HCA only at " + d
                    + "; NCCL uses GPUDirect RDMA only up to PXB unless NCCL_NET_GDR_LEVEL is raised"));
            Map<Integer, List<String>> byIndex = new TreeMap<>();
            unknownOf.forEach((g, list) -> byIndex.put(gpus.get(g).index(), list));
            byIndex.forEach((index, unknown) -> notes.add(NOTE_PREFIX + "GPU" + index + " not paired: " + (unknown
                    .isEmpty() ? "no rail HCA left within the balanced load of " + cap + " GPU(s) per HCA"
                    : "distances to " + abbreviate(unknown) + " unknown")));
            Set<String> used = pairs.stream().map(GpuHcaPair::hca).collect(Collectors.toSet());
            List<String> undecided = new ArrayList<>();
            List<String> spare = new ArrayList<>();
            List<String> unseen = new ArrayList<>();
            Set<Integer> unknownGpus = new TreeSet<>();
            for (Hca h : candidates) {
                if (used.contains(h.name())) {
                    continue;
                }
                if (orphans.contains(h.name())) {
                    unseen.add(h.name());
                    continue;
                }
                PcieDistance[] col = dist.get(h.name());
                boolean partial = false;
                for (int g = 0; g < col.length; g++) {
                    if (col[g] == null) {
                        partial = true;
                        unknownGpus.add(gpus.get(g).index());
                    }
                }
                (partial ? undecided : spare).add(h.name());
            }
            if (!undecided.isEmpty()) {
                notes.add(NOTE_PREFIX + abbreviate(undecided) + (undecided.size() == 1 ? " is" : " are")
                        + " neither rail nor excluded: distances to "
                        + abbreviate(unknownGpus.stream().map(i -> "GPU" + i).toList())
                        + " unknown");
            }
            if (!spare.isEmpty()) {
                notes.add(NOTE_PREFIX + abbreviate(spare) + (spare.size() == 1 ? " is a spare" : " are spares")
                        + ": a candidate the balanced minimum-cost pairing did not need");
            }
            if (!unseen.isEmpty()) {
                notes.add(NOTE_PREFIX + abbreviate(unseen) + (unseen.size() == 1 ? " is" : " are")
                        + " neither rail nor excluded: no GPU this view shows is near, a GPU it does not show may be");
            }
        }

        private static String abbreviate(List<String> names) {
            if (names.size() <= 6) {
                return String.join(", ", names);
            }
            return String.join(", ", names.subList(0, 5)) + " and " + (names.size() - 5) + " more";
        }
    }
}
