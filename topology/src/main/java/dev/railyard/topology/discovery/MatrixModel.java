package dev.railyard.topology.discovery;

import dev.railyard.api.topology.DiscoverySource;
import dev.railyard.api.topology.Gpu;
import dev.railyard.api.topology.GpuHcaDistance;
import dev.railyard.api.topology.Hca;
import dev.railyard.api.topology.HcaPort;
import dev.railyard.api.topology.NodeTopologySpec;
import dev.railyard.api.topology.NumaNode;
import dev.railyard.api.topology.NvLink;
import dev.railyard.api.topology.PcieDistance;
import dev.railyard.topology.discovery.MatrixParts.Cell;
import dev.railyard.topology.discovery.MatrixParts.Column;
import dev.railyard.topology.discovery.MatrixParts.Header;
import dev.railyard.topology.discovery.MatrixParts.RowDraft;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Turns the cells of a read matrix ({@link MatrixPass}, {@link MatrixRows}) into the node model: GPU–HCA distances
 * (a GPU row and the HCA row's symmetric cell reconciled), GPU NUMA nodes and C2C attachment from the affinity
 * columns, HCA names from the NIC Legend, NVLink peers, and port states and identities from side listings.
 *
 * <p>Affinity columns (see {@code docs/formats/nvidia-smi-topo.md}): {@code NUMA Affinity} is one NUMA node id
 * on x86 hosts, a list such as {@code 0,3-9,11-17} on Grace hosts, whose first entry is the CPU's node (the others
 * are GPU memory nodes); {@code GPU NUMA ID} is the GPU's own memory node on coherent (NVLink-C2C) platforms and
 * {@code N/A} elsewhere, so a number there marks the GPU as C2C-attached. nvidia-smi prints no affinity for NICs:
 * their NUMA node is inferred from GPUs at PIX..NODE distance only.
 */
final class MatrixModel {
    private static final Pattern LEADING_NUMBER = Pattern.compile("(\\d+)(?:[,-].*)?");

    private final MatrixPass p;

    MatrixModel(MatrixPass pass) {
        this.p = pass;
    }

    /** NUMA node, CPU list and C2C attachment of each GPU row, by GPU column position. */
    private record Affinity(Integer[] numa, Boolean[] c2c, Map<Integer, String> numaCpus) {
    }

    NodeTopologySpec build(Header header, int lastRowIdx) {
        List<Column> gpuCols = p.columns.stream().filter(Column::isGpu).toList();
        List<Column> hcaCols = p.columns.stream().filter(c -> !c.isGpu()).toList();
        reportMissingRows(header);
        int nextHeader = p.nextHeaderAfter(lastRowIdx);
        String[] hcaNames = hcaNames(hcaCols, lastRowIdx + 1, nextHeader);
        PcieDistance[][] dist = distances(gpuCols, hcaCols, hcaNames);
        Affinity affinity = affinity(header, gpuCols);
        c2cCells(dist, affinity.c2c());
        Map<String, HcaPortListing.Device> portsByHca = portsByHca(hcaCols, hcaNames, p.hcaNamesFromLegend);
        List<Gpu> gpus = gpus(gpuCols, affinity);
        List<Hca> hcas = new ArrayList<>();
        for (int hi = 0; hi < hcaCols.size(); hi++) {
            HcaPortListing.Device d = portsByHca.get(hcaNames[hi]);
            hcas.add(new Hca(hcaNames[hi], d == null ? null : d.pciBusId(), hcaNuma(dist, affinity.numa(), hi),
                    d == null ? List.<HcaPort>of() : d.ports(), null, null));
        }
        return new NodeTopologySpec(DiscoverySource.NVIDIA_SMI, !p.damaged, p.warnings, gpus, hcas, List.of(),
                numaNodes(affinity), distanceList(gpuCols, hcaNames, dist), List.of(), List.of());
    }

    /** Distances, reconciling GPU rows with HCA rows; a disagreement is damage and named in a warning. */
    private PcieDistance[][] distances(List<Column> gpuCols, List<Column> hcaCols, String[] hcaNames) {
        PcieDistance[][] dist = new PcieDistance[gpuCols.size()][hcaCols.size()];
        for (int gi = 0; gi < gpuCols.size(); gi++) {
            Column g = gpuCols.get(gi);
            List<String> recovered = new ArrayList<>();
            for (int hi = 0; hi < hcaCols.size(); hi++) {
                Column h = hcaCols.get(hi);
                PcieDistance a = pcie(g, h);
                PcieDistance b = pcie(h, g);
                if (a != null && b != null && a != b) {
                    dist[gi][hi] = disagreement(g, h, hcaNames[hi], a, b);
                } else {
                    dist[gi][hi] = a != null ? a : b;
                    if (a == null && b != null && p.rows[g.index()] != null) {
                        recovered.add(hcaNames[hi]);
                    }
                }
            }
            if (!recovered.isEmpty()) {
                p.warn(p.rows[g.index()].lineNo, p.rows[g.index()].labelEndCol, g.name() + ": distances to "
                        + String.join(", ", recovered) + " taken from the symmetric cells of the HCA rows");
            }
        }
        return dist;
    }

    /** @return the value from an undamaged HCA row when the GPU row is damaged, else the GPU row's */
    private PcieDistance disagreement(Column g, Column h, String hcaName, PcieDistance a, PcieDistance b) {
        p.damaged = true;
        RowDraft gr = p.rows[g.index()];
        RowDraft hr = p.rows[h.index()];
        boolean useHcaRow = !gr.clean && hr.clean;
        String named = h.name().equals(hcaName) ? h.name() : h.name() + " (" + hcaName + ")";
        p.warn(gr.lineNo, gr.cellCols[h.index()], "row " + g.name() + " says " + a + " to " + named
                + " but row " + h.name() + " (line " + hr.lineNo + ", column " + hr.cellCols[g.index()]
                + ") says " + b + "; using " + (useHcaRow ? b + " from the undamaged " + h.name()
                + " row" : a + " from the GPU row"));
        return useHcaRow ? b : a;
    }

    /** Reads NUMA Affinity (a node id, or a list whose first entry is the CPU node), CPU Affinity and GPU NUMA ID. */
    private Affinity affinity(Header header, List<Column> gpuCols) {
        Integer[] gpuNuma = new Integer[gpuCols.size()];
        Boolean[] c2c = new Boolean[gpuCols.size()];
        Map<Integer, String> numaCpus = new TreeMap<>();
        for (int gi = 0; gi < gpuCols.size(); gi++) {
            RowDraft r = p.rows[gpuCols.get(gi).index()];
            if (r == null) {
                continue;
            }
            Map<String, String> tail = tail(header, r);
            String numa = tail.get(MatrixPass.NUMA_AFFINITY);
            Matcher first = numa == null ? null : LEADING_NUMBER.matcher(numa);
            if (first != null && first.matches()) {
                gpuNuma[gi] = Integer.valueOf(first.group(1));
                String cpus = tail.get(MatrixPass.CPU_AFFINITY);
                if (cpus != null && !cpus.equals("N/A")) {
                    numaCpus.putIfAbsent(gpuNuma[gi], cpus);
                }
            }
            String memory = tail.get(MatrixPass.GPU_NUMA_ID);
            if (memory != null) {
                c2c[gi] = memory.matches("\\d+") ? Boolean.TRUE : memory.equals("N/A") ? Boolean.FALSE : null;
            }
        }
        return new Affinity(gpuNuma, c2c, numaCpus);
    }

    private List<Gpu> gpus(List<Column> gpuCols, Affinity affinity) {
        Map<Integer, GpuListing.Identity> identities = GpuListing.parse(p.lines);
        List<Gpu> gpus = new ArrayList<>();
        for (int gi = 0; gi < gpuCols.size(); gi++) {
            Column g = gpuCols.get(gi);
            List<NvLink> links = new ArrayList<>();
            for (Column peer : gpuCols) {
                if (peer == g) {
                    continue;
                }
                Cell a = cell(g, peer);
                Cell b = cell(peer, g);
                int nv = a != null && a.nvlinks() > 0 ? a.nvlinks()
                        : b != null && b.nvlinks() > 0 ? b.nvlinks() : 0;
                if (nv > 0) {
                    links.add(new NvLink(peer.gpuIndex(), nv));
                }
            }
            GpuListing.Identity id = identities.getOrDefault(g.gpuIndex(),
                    new GpuListing.Identity(null, null, null));
            gpus.add(new Gpu(g.gpuIndex(), id.uuid(), id.pciBusId(), affinity.numa()[gi], id.model(), links, null,
                    affinity.c2c()[gi]));
        }
        gpus.sort(Comparator.comparingInt(Gpu::index));
        return gpus;
    }

    /**
     * A C2C-attached GPU's PHB or NODE cell is a NIC of its own CPU: NCCL's P2C (docs/formats/nvidia-smi-topo.md,
     * nccl-topology.md), as the sysfs and NCCL XML readers classify it.
     */
    private static void c2cCells(PcieDistance[][] dist, Boolean[] c2c) {
        for (int gi = 0; gi < dist.length; gi++) {
            for (int hi = 0; Boolean.TRUE.equals(c2c[gi]) && hi < dist[gi].length; hi++) {
                if (dist[gi][hi] == PcieDistance.PHB || dist[gi][hi] == PcieDistance.NODE) {
                    dist[gi][hi] = PcieDistance.P2C;
                }
            }
        }
    }

    private static List<GpuHcaDistance> distanceList(List<Column> gpuCols, String[] hcaNames,
                                                     PcieDistance[][] dist) {
        List<GpuHcaDistance> distances = new ArrayList<>();
        List<Integer> gpuOrder = new ArrayList<>();
        for (int gi = 0; gi < gpuCols.size(); gi++) {
            gpuOrder.add(gi);
        }
        gpuOrder.sort(Comparator.comparingInt(gi -> gpuCols.get(gi).gpuIndex()));
        for (int gi : gpuOrder) {
            for (int hi = 0; hi < hcaNames.length; hi++) {
                if (dist[gi][hi] != null) {
                    distances.add(new GpuHcaDistance(gpuCols.get(gi).gpuIndex(), hcaNames[hi], dist[gi][hi]));
                }
            }
        }
        return distances;
    }

    private static List<NumaNode> numaNodes(Affinity affinity) {
        Map<Integer, String> cpus = new TreeMap<>(affinity.numaCpus());
        for (Integer id : affinity.numa()) {
            if (id != null) {
                cpus.putIfAbsent(id, null);
            }
        }
        List<NumaNode> numaNodes = new ArrayList<>();
        cpus.forEach((id, list) -> numaNodes.add(new NumaNode(id, null, list)));
        return numaNodes;
    }

    private void reportMissingRows(Header header) {
        List<String> missing = new ArrayList<>();
        for (Column c : p.columns) {
            if (p.rows[c.index()] == null) {
                missing.add(c.name());
            }
        }
        if (!missing.isEmpty()) {
            p.damaged = true;
            Column first = p.byName.get(missing.getFirst());
            p.warn(header.lineIdx() + 1, first.col(), "no row for " + MatrixPass.abbreviateList(missing)
                    + "; their cells are known only from the symmetric cells of the other rows");
        }
    }

    private Map<String, String> tail(Header header, RowDraft r) {
        Map<String, String> values = new HashMap<>();
        for (int i = 0; i < header.tailNames().size() && i < r.tail.size(); i++) {
            values.put(header.tailNames().get(i), r.tail.get(i).text());
        }
        return values;
    }

    private static Integer hcaNuma(PcieDistance[][] dist, Integer[] gpuNuma, int hi) {
        Integer numa = null;
        for (int gi = 0; gi < dist.length; gi++) {
            if (dist[gi][hi] != null && dist[gi][hi] != PcieDistance.SYS && gpuNuma[gi] != null) {
                if (numa != null && !numa.equals(gpuNuma[gi])) {
                    return null;
                }
                numa = gpuNuma[gi];
            }
        }
        return numa;
    }

    private PcieDistance pcie(Column row, Column col) {
        Cell c = cell(row, col);
        if (c == null) {
            return null;
        }
        if (c.distance() == null) {
            RowDraft r = p.rows[row.index()];
            p.damaged = true;
            p.warn(r.lineNo, r.cellCols[col.index()], "row " + row.name() + ": cell '" + c + "' for " + col.name()
                    + " is not a PCIe class; treated as unknown");
            r.cells[col.index()] = null;
            return null;
        }
        return c.distance();
    }

    private Cell cell(Column row, Column col) {
        RowDraft r = p.rows[row.index()];
        return r == null ? null : r.cells[col.index()];
    }

    private String[] hcaNames(List<Column> hcaCols, int from, int to) {
        String[] names = new String[hcaCols.size()];
        Map<Integer, Integer> nicToHca = new HashMap<>();
        for (int hi = 0; hi < hcaCols.size(); hi++) {
            names[hi] = hcaCols.get(hi).name();
            Matcher m = MatrixPass.NIC_COLUMN.matcher(names[hi]);
            if (m.matches()) {
                nicToHca.put(Integer.parseInt(m.group(1)), hi);
            }
        }
        if (nicToHca.isEmpty()) {
            return names;
        }
        Map<Integer, String> legend = new LinkedHashMap<>();
        Map<Integer, Integer> legendLine = new HashMap<>();
        for (int i = from; i < to; i++) {
            Matcher m = p.lines.get(i).contains("NIC") ? MatrixPass.LEGEND_ENTRY.matcher(p.lines.get(i)) : null;
            if (m != null && m.matches()) {
                int nic = Integer.parseInt(m.group(1));
                if (legend.putIfAbsent(nic, m.group(2)) == null) {
                    legendLine.put(nic, i + 1);
                }
            }
        }
        if (legend.isEmpty()) {
            p.warnNoPos("no NIC Legend: HCAs keep the column names " + names[nicToHca.values().iterator().next()]
                    + ".. (nvidia-smi gives the RDMA device names only in the NIC Legend)");
            return names;
        }
        p.hcaNamesFromLegend = true;
        Map<String, Integer> used = new HashMap<>();
        for (String n : names) {
            used.put(n, -1);
        }
        List<String> unnamed = new ArrayList<>();
        for (Map.Entry<Integer, Integer> e : new TreeMap<>(nicToHca).entrySet()) {
            String name = legend.get(e.getKey());
            if (name == null) {
                unnamed.add(names[e.getValue()]);
                continue;
            }
            if (used.containsKey(name) && !name.equals(names[e.getValue()])) {
                p.warn(legendLine.get(e.getKey()), 1, "NIC Legend gives " + name + " to NIC" + e.getKey()
                        + " but that name is already taken; keeping NIC" + e.getKey());
                continue;
            }
            used.put(name, e.getValue());
            names[e.getValue()] = name;
        }
        for (Integer nic : legend.keySet()) {
            if (!nicToHca.containsKey(nic)) {
                p.warn(legendLine.get(nic), 1, "NIC Legend entry NIC" + nic + " has no column in the matrix");
            }
        }
        if (!unnamed.isEmpty()) {
            p.warnNoPos("NIC Legend has no entry for " + MatrixPass.abbreviateList(unnamed)
                    + "; they keep their column names");
        }
        return names;
    }

    private Map<String, HcaPortListing.Device> portsByHca(List<Column> hcaCols, String[] names, boolean legend) {
        HcaPortListing listing = HcaPortListing.parse(p.lines);
        Map<String, HcaPortListing.Device> result = new HashMap<>();
        if (listing.isEmpty()) {
            return result;
        }
        List<String> known = Arrays.asList(names);
        boolean assumed = false;
        for (HcaPortListing.Device d : listing.devices().values()) {
            if (known.contains(d.hca())) {
                result.put(d.hca(), d);
                continue;
            }
            Matcher m = MatrixPass.MLX5.matcher(d.hca());
            String nic = m.matches() ? "NIC" + m.group(1) : null;
            if (!legend && nic != null && known.contains(nic)) {
                if (!assumed) {
                    p.warn(d.line(), 1, "no NIC Legend: assuming NICk = mlx5_k to apply the port states listed"
                            + " for " + d.hca() + " and the other mlx5 devices (nvidia-smi usually numbers NICs"
                            + " in RDMA device order, but only the NIC Legend says so)");
                    assumed = true;
                }
                result.put(nic, d);
                continue;
            }
            p.warn(d.line(), 1, d.hca() + " is not an HCA of the matrix; its port state is ignored");
        }
        return result;
    }
}
