package dev.railyard.scheduler.engine;

import dev.railyard.api.topology.Gpu;
import dev.railyard.api.topology.GpuHcaDistance;
import dev.railyard.api.topology.GpuHcaPair;
import dev.railyard.api.topology.Hca;
import dev.railyard.api.topology.HcaPort;
import dev.railyard.api.topology.NodeTopologySpec;
import dev.railyard.api.topology.PcieDistance;
import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * The static rail facts of one node's topology, indexed for the engine: rail → HCA, each GPU's own pair, GPU–HCA
 * distances, netdev → HCA, and PCIe locality groups. Computed once per {@link NodeTopologySpec} instance (cached by
 * identity; specs are immutable).
 */
final class NodeRails {
    private static final Cache<NodeTopologySpec, NodeRails> CACHE = Caffeine.newBuilder()
            .weakKeys().maximumSize(100_000).build();

    /** GPU indices in ascending order. */
    final int[] gpus;
    /** Position of a GPU index in {@link #gpus}. */
    final Map<Integer, Integer> gpuPos = new HashMap<>();
    /** Rail index → HCA name ({@code null} for a gap). */
    final String[] railHca;
    final Map<String, Integer> hcaRail = new HashMap<>();
    /** GPU index → its own pair from the rail map, or absent. */
    final Map<Integer, GpuHcaPair> home = new HashMap<>();
    /** GPU index → HCA → distance class. */
    final Map<Integer, Map<String, PcieDistance>> distance = new HashMap<>();
    /** netdev → HCA name. */
    final Map<String, String> netdevHca = new HashMap<>();
    /** HCA → (port number, netdev) of its first usable port. */
    final Map<String, HcaPort> firstPort = new HashMap<>();
    final boolean netdevsKnown;
    /** Group id of each GPU position; GPUs under one PCIe switch (or sharing one rail HCA) form a group. */
    final int[] group;
    final int[] groupSize;
    final List<String> groupNames = new ArrayList<>();
    final Map<Integer, Gpu> gpuInfo = new HashMap<>();

    private NodeRails(NodeTopologySpec spec) {
        List<Gpu> gs = new ArrayList<>(spec.gpus());
        gs.sort((a, b) -> Integer.compare(a.index(), b.index()));
        gpus = new int[gs.size()];
        for (int i = 0; i < gs.size(); i++) {
            gpus[i] = gs.get(i).index();
            gpuPos.put(gpus[i], i);
            gpuInfo.put(gpus[i], gs.get(i));
        }
        int maxRail = -1;
        for (GpuHcaPair p : spec.pairs()) {
            maxRail = Math.max(maxRail, p.rail());
        }
        railHca = new String[maxRail + 1];
        for (GpuHcaPair p : spec.pairs()) {
            home.putIfAbsent(p.gpu(), p);
            railHca[p.rail()] = p.hca();
            hcaRail.put(p.hca(), p.rail());
        }
        for (GpuHcaDistance d : spec.distances()) {
            distance.computeIfAbsent(d.gpu(), k -> new HashMap<>()).put(d.hca(), d.distance());
        }
        boolean known = false;
        for (Hca h : spec.hcas()) {
            for (HcaPort p : h.ports()) {
                for (String nd : p.netdevs()) {
                    netdevHca.putIfAbsent(nd, h.name());
                    known = true;
                }
                if (p.isUp()) {
                    firstPort.putIfAbsent(h.name(), p);
                }
            }
        }
        netdevsKnown = known;
        // locality groups: the GPU's PCIe parent when the source has a tree, else the HCA of its own pair
        Map<String, Integer> ids = new LinkedHashMap<>();
        group = new int[gpus.length];
        for (int i = 0; i < gpus.length; i++) {
            Gpu g = gs.get(i);
            GpuHcaPair p = home.get(g.index());
            String key = g.pcieParent() != null ? "pcie " + g.pcieParent()
                    : p != null ? "hca " + p.hca() : "gpu " + g.index();
            Integer id = ids.get(key);
            if (id == null) {
                id = ids.size();
                ids.put(key, id);
                groupNames.add(key);
            }
            group[i] = id;
        }
        groupSize = new int[ids.size()];
        for (int gId : group) {
            groupSize[gId]++;
        }
    }

    static NodeRails of(NodeTopologySpec spec) {
        return CACHE.get(spec, NodeRails::new);
    }

    int railCount() {
        return railHca.length;
    }

    /** @return the distance class between a GPU and an HCA, or null when the topology does not give it */
    PcieDistance distance(int gpu, String hca) {
        GpuHcaPair p = home.get(gpu);
        if (p != null && p.hca().equals(hca)) {
            return p.distance();
        }
        Map<String, PcieDistance> m = distance.get(gpu);
        return m == null ? null : m.get(hca);
    }

    /** @return rail → HCA for the non-empty rails, ascending */
    Map<Integer, String> rails() {
        Map<Integer, String> m = new TreeMap<>();
        for (int r = 0; r < railHca.length; r++) {
            if (railHca[r] != null) {
                m.put(r, railHca[r]);
            }
        }
        return m;
    }
}
