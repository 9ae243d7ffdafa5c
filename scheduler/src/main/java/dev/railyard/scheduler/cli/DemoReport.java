package dev.railyard.scheduler.cli;

import dev.railyard.api.topology.PcieDistance;
import dev.railyard.scheduler.engine.ClusterSnapshot;
import dev.railyard.scheduler.engine.GangPlan;
import dev.railyard.scheduler.engine.GpuBinding;
import dev.railyard.scheduler.engine.NodeState;
import dev.railyard.scheduler.engine.PlannedPod;
import dev.railyard.scheduler.engine.Reason;
import dev.railyard.scheduler.ipam.PodNetworksRequest;
import dev.railyard.scheduler.ipam.PoolStatus;
import dev.railyard.scheduler.ipam.PoolVerdict;

import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * The demo's text: a header, one summary row per job (nodes, GPU → HCA pairs, PCIe distance, rails, cost, result),
 * the terms explained once, the address pools after the demo; {@link DemoDetails} adds each job's details with
 * {@code --verbose}. Every line is at most {@link DemoText#WIDTH} characters.
 */
final class DemoReport {
    private final DemoText out;
    private final DemoCluster.Loaded cluster;

    DemoReport(PrintWriter writer, DemoCluster.Loaded cluster) {
        this.out = new DemoText(writer);
        this.cluster = cluster;
    }

    DemoText text() {
        return out;
    }

    void header() {
        ClusterSnapshot s = cluster.snapshot();
        Map<String, Integer> machines = new LinkedHashMap<>();
        cluster.machineOf().values().forEach(m -> machines.merge(m, 1, Integer::sum));
        List<String> kinds = new ArrayList<>();
        machines.forEach((m, n) -> kinds.add(m + " ×" + n));
        List<String> busy = new ArrayList<>();
        for (NodeState n : s.nodes()) {
            if (!n.allocatedGpus().isEmpty()) {
                busy.add(n.name() + " GPU" + DemoText.ranges(new ArrayList<>(n.allocatedGpus())));
            }
        }
        out.wrap("Railyard demo: " + s.nodes().size() + " nodes built from real nvidia-smi topology dumps ("
                + String.join(", ", kinds) + "), the seed's " + cluster.networks().size() + " rail networks with "
                + "whereabouts pools, a rail-optimised fabric (" + String.join(" / ", s.fabric().tierNames())
                + "). Busy before the demo: " + String.join(", ", busy) + ".", "  ");
    }

    /** One row per job; the result column wraps under itself. */
    void summary(List<DemoRun.Placed> runs) {
        List<List<String>> rows = new ArrayList<>();
        rows.add(List.of("JOB", "PODS", "NODES", "GPUs→HCA (rank 0)", "DIST", "RAILS", "COST", "RESULT"));
        for (DemoRun.Placed r : runs) {
            String pods = r.gang().pods().size() + "×" + r.gang().pods().get(0).gpus();
            if (!r.outcome().schedulable()) {
                rows.add(List.of(r.gang().key(), pods, "-", "-", "-", "-", "-", "refused: "
                        + String.join("; ", r.outcome().reasons().stream().map(Reason::summary).toList())));
                continue;
            }
            GangPlan plan = r.outcome().plan();
            PlannedPod first = plan.pods().get(0);
            boolean sameRails = plan.pods().stream().allMatch(p -> p.rails().equals(first.rails()));
            rows.add(List.of(r.gang().key(), pods, DemoText.nodes(plan.nodes()), gpuToHca(first),
                    farthest(plan).name(), sameRails ? first.rails().toString() : "mixed",
                    plan.cost().hops() + "/" + plan.cost().local() + "/" + plan.cost().slack(),
                    r.before().fabric().tierName(plan.tier()) + " " + plan.domain()));
        }
        out.table(rows);
    }

    void terms() {
        out.println("");
        out.println("How to read it:");
        out.wrap("  PODS      pods × GPUs per pod, as the job's tasks ask", "            ");
        out.wrap("  GPUs→HCA  the HCA (RDMA NIC) each GPU of the first pod sends through, by GPU index; mlx5_N is the "
                + "node's HCA on rail N", "            ");
        out.wrap("  DIST      the farthest PCIe path of those pairs, best first: PIX (one PCIe switch), PXB "
                + "(several switches), P2C (a Grace GPU to a NIC of its own CPU over NVLink-C2C), PHB (the CPU's host bridge), NODE (two host bridges of one socket), SYS "
                + "(across sockets); NCCL uses GPUDirect RDMA only up to PXB", "            ");
        out.wrap("  RAILS     {rail×GPUs} of each pod; pods with equal rail sets send rail to rail through the "
                + "same leaf switches", "            ");
        out.wrap("  COST      hops/local/slack, each smaller is better, compared in that order: switch hops "
                + "between the gang's pods; the node-local penalty (10 per GPU step beyond PIX: PXB 1, PHB 4, "
                + "NODE 5, SYS 8; 4 per PCIe group left partly used; 1 per free GPU left on a used node); free GPUs "
                + "left in the chosen domain (tightest fit first)", "            ");
        out.wrap("  RESULT    the smallest fabric domain holding every pod (node < leaf < spine < core; a leaf domain "
                + "is one leaf per rail used, named by its leaves: two joined by +, more as the first and how many "
                + "more), or why the job is refused", "            ");
    }

    /** Address pools after the demo, one line per network. */
    void pools() {
        out.println("");
        out.println("address pools after the demo:");
        for (DemoCluster.NetworkDoc n : cluster.networks()) {
            for (PoolStatus p : pools(n)) {
                out.println(String.format("  %-20s pool %-15s %4d of %4d free (%d allocated%s, %d held by the demo's"
                                + " pods)", n.name(), p.poolName(), p.free(), p.usable(), p.allocated(),
                        p.staleAllocations().isEmpty() ? "" : " of which " + p.staleAllocations().size() + " stale",
                        p.inFlight()));
            }
        }
    }

    private List<PoolStatus> pools(DemoCluster.NetworkDoc n) {
        PoolVerdict v = cluster.ledger().check(PodNetworksRequest.ofAnnotation(cluster.networkNamespace(),
                n.name()), 0, null);
        return v.pools();
    }

    /**
     * The SVG's legend for HCAs and pools: per network, its rail, HCA, netdev and pool with the addresses left.
     */
    List<String> legend() {
        List<String> out = new ArrayList<>();
        out.add("GPUs: white = free, grey = busy before the demo, coloured = placed by the job of that colour");
        out.add("cables: one per rail from a node to its rail's leaf; rail r = the node's HCA mlx5_r; coloured = "
                + "used by a placed pod, dashed = idle");
        for (DemoCluster.NetworkDoc n : cluster.networks()) {
            String hca = hcaOf(n.master());
            Integer rail = hca == null ? null : railOf(hca);
            for (PoolStatus p : pools(n)) {
                out.add((rail == null ? "" : "rail " + rail + ", ") + (hca == null ? "" : hca + ", ") + n.master()
                        + ": network " + n.name() + ", pool " + p.poolName() + " (" + p.range() + "), "
                        + p.free() + " of " + p.usable() + " addresses free after the demo");
            }
        }
        return out;
    }

    private String hcaOf(String netdev) {
        for (DemoCluster.MachineDoc m : cluster.machines().values()) {
            for (var e : m.netdevs().entrySet()) {
                if (e.getValue().equals(netdev)) {
                    return e.getKey();
                }
            }
        }
        return null;
    }

    private Integer railOf(String hca) {
        for (NodeState n : cluster.snapshot().nodes()) {
            if (n.topology() != null) {
                for (var p : n.topology().pairs()) {
                    if (p.hca().equals(hca)) {
                        return p.rail();
                    }
                }
            }
        }
        return null;
    }

    /** @return {@code 0,1→mlx5_0 2,3→mlx5_1}: the pod's GPU indices grouped by HCA */
    static String gpuToHca(PlannedPod p) {
        List<String> parts = new ArrayList<>();
        gpusByHca(p).forEach((h, g) -> parts.add(DemoText.join(g) + "→" + h));
        return String.join(" ", parts);
    }

    /** @return HCA → the pod's GPUs on it, in local-rank order */
    static Map<String, List<Integer>> gpusByHca(PlannedPod p) {
        Map<String, List<Integer>> byHca = new LinkedHashMap<>();
        for (GpuBinding b : p.gpus()) {
            byHca.computeIfAbsent(b.hca(), k -> new ArrayList<>()).add(b.gpu());
        }
        return byHca;
    }

    /** @return the farthest GPU–HCA distance class of the plan */
    static PcieDistance farthest(GangPlan plan) {
        PcieDistance worst = PcieDistance.PIX;
        for (PlannedPod p : plan.pods()) {
            for (GpuBinding b : p.gpus()) {
                worst = b.distance().compareTo(worst) > 0 ? b.distance() : worst;
            }
        }
        return worst;
    }

    /** @return the distance class of each HCA of the pod, the farthest of its GPUs */
    static Map<String, PcieDistance> distanceByHca(PlannedPod p) {
        Map<String, PcieDistance> out = new TreeMap<>();
        for (GpuBinding b : p.gpus()) {
            out.merge(b.hca(), b.distance(), (a, c) -> a.compareTo(c) >= 0 ? a : c);
        }
        return out;
    }
}
