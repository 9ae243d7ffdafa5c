package dev.railyard.scheduler.hints;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.railyard.api.hints.HintAnnotations;
import dev.railyard.api.hints.PlacementHint;
import dev.railyard.api.topology.Gpu;
import dev.railyard.api.topology.GpuHcaPair;
import dev.railyard.api.topology.Hca;
import dev.railyard.api.topology.HcaPort;
import dev.railyard.api.topology.NodeTopologySpec;
import dev.railyard.api.topology.PcieDistance;
import dev.railyard.scheduler.engine.ClusterSnapshot;
import dev.railyard.scheduler.engine.GangPlan;
import dev.railyard.scheduler.engine.GpuBinding;
import dev.railyard.scheduler.engine.NodeState;
import dev.railyard.scheduler.engine.PlannedPod;
import dev.railyard.scheduler.engine.PodRequest;
import dev.railyard.scheduler.engine.SecondaryNetwork;
import dev.railyard.scheduler.ipam.NetworkSelection;
import dev.railyard.topology.fabric.FabricPosition;
import inet.ipaddr.IPAddress;
import inet.ipaddr.IPAddressString;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/**
 * Builds the {@code railyard.dev/placement} hint for one planned pod from the plan, the node's topology, the pod's
 * networks and the fabric, and turns it into annotations. Pure; thread-safe. The hint also carries the node's whole
 * rail map ({@code nodeGpus}: every paired GPU with its own HCA) so that {@code railyard env} can re-pair when the
 * device plugin hands the pod other GPUs than planned.
 *
 * <p>Per GPU (local-rank order): the rail HCA the plan bound it to, that HCA's first active port, the port's netdev
 * that is the master of one of the pod's networks (else its first netdev), and that network with the pod interface
 * multus gives it ({@code net1}, ... in annotation order). NCCL settings:
 * <ul>
 *   <li>{@code NCCL_IB_HCA = =<hca>:<port>,...}: the distinct HCAs in local-rank order, exact-match syntax;</li>
 *   <li>{@code NCCL_SOCKET_IFNAME = =eth0}: bootstrap over the pod's primary interface, as the seed setup does;</li>
 *   <li>{@code NCCL_IB_ADDR_RANGE}: the smallest CIDR covering the ranges of the networks on those HCAs
 *       ({@code 192.168.4.0/22} and {@code 192.168.8.0/22} give {@code 192.168.0.0/20}), with
 *       {@code NCCL_IB_ADDR_FAMILY} {@code AF_INET} or {@code AF_INET6}; absent when no range is known;</li>
 *   <li>{@code NCCL_NET_GDR_LEVEL}: only when some pair is farther than PXB (P2C aside): {@code PHB} for PHB or NODE
 *       (NCCL has no NODE class), {@code SYS} for SYS, so NCCL still uses GPUDirect RDMA at the distance the plan
 *       accepted; {@code NCCL_NET_GDR_C2C=1} when a pair is P2C ({@link NcclSyntax}).</li>
 * </ul>
 * These are in the syntax every NCCL release accepts; {@link NcclSyntax#forVersion} rewrites them for the release a
 * job declares. When the node is in an NVLink domain the hint names it and, from a gang plan, the gang's ranks in it
 * ({@code nvlink}): they talk over NVLink rather than RDMA; the flat {@code railyard.dev/nvlink-domain} is written
 * when more than one of the gang's pods are there (or their number is unknown).
 */
public final class PlacementHints {
    /** Bootstrap interface recommended for {@code NCCL_SOCKET_IFNAME}. */
    public static final String SOCKET_IFNAME = "=eth0";

    private static final ObjectMapper JSON = new ObjectMapper();

    private PlacementHints() {
    }

    /**
     * @param snapshot the cluster the plan was made on
     * @param plan     the gang plan
     * @param pod      the planned pod
     * @param request  the pod's request (for its networks)
     * @return the hint, its {@code gangSize} counting the plan's pods and the members already bound
     *         ({@link GangPlan#gangSize()})
     * @throws IllegalArgumentException when the pod's node is not in the snapshot
     */
    public static PlacementHint hint(ClusterSnapshot snapshot, GangPlan plan, PlannedPod pod, PodRequest request) {
        PlacementHint h = hint(snapshot, plan.gang(), plan.gangSize(), pod, request, null);
        return h.nvlink() == null ? h : h.withNvlink(peers(snapshot, plan, h.nvlink().domain()));
    }

    /**
     * The gang's members in one NVLink domain: the plan's pods on nodes of the domain and the bound members there.
     */
    private static PlacementHint.NvlinkPeers peers(ClusterSnapshot snapshot, GangPlan plan, String domain) {
        List<Integer> ranks = new ArrayList<>();
        int peers = 0;
        for (PlannedPod p : plan.pods()) {
            if (domain.equals(snapshot.fabric().nvlinkDomain(p.node()))) {
                peers++;
                if (p.rank() != null) {
                    ranks.add(p.rank());
                }
            }
        }
        for (dev.railyard.scheduler.engine.BoundMember b : plan.bound()) {
            if (domain.equals(snapshot.fabric().nvlinkDomain(b.node()))) {
                peers++;
                if (b.rank() != null) {
                    ranks.add(b.rank());
                }
            }
        }
        ranks.sort(null);
        return new PlacementHint.NvlinkPeers(domain, ranks.size() == peers ? ranks : List.of(), peers);
    }

    /**
     * The hint for a pod placed outside a whole-gang plan (see {@link OffPlanHints}).
     *
     * @param snapshot   the cluster holding the pod's node
     * @param gang       {@code namespace/name} of the gang
     * @param gangSize   pods in the gang, bound members included
     * @param pod        the pod with its node and GPUs
     * @param request    the pod's request (for its networks)
     * @param railChoice how the GPUs were chosen, or null when they are the gang plan's
     * @return the hint
     * @throws IllegalArgumentException when the pod's node is not in the snapshot
     */
    public static PlacementHint hint(ClusterSnapshot snapshot, String gang, int gangSize, PlannedPod pod,
                                     PodRequest request, PlacementHint.RailChoice railChoice) {
        NodeState node = snapshot.node(pod.node());
        if (node == null) {
            throw new IllegalArgumentException("node " + pod.node() + " is not in the snapshot");
        }
        NodeTopologySpec spec = node.topology();
        Map<String, Hca> hcas = new LinkedHashMap<>();
        Map<Integer, Gpu> gpus = new LinkedHashMap<>();
        if (spec != null) {
            spec.hcas().forEach(h -> hcas.put(h.name(), h));
            spec.gpus().forEach(g -> gpus.put(g.index(), g));
        }
        // the pod's networks by master netdev
        Map<String, Integer> byMaster = new LinkedHashMap<>();
        List<NetworkSelection> sels = request.selections();
        for (int i = 0; i < sels.size(); i++) {
            SecondaryNetwork net = snapshot.network(sels.get(i).key());
            if (net != null && net.master() != null) {
                byMaster.putIfAbsent(net.master(), i);
            }
        }
        List<PlacementHint.GpuHint> gh = new ArrayList<>();
        List<PlacementHint.GpuHint> nodeGpus = new ArrayList<>();
        if (spec != null) {
            List<GpuHcaPair> pairs = new ArrayList<>(spec.pairs());
            pairs.sort(java.util.Comparator.comparingInt(GpuHcaPair::gpu));
            for (GpuHcaPair pair : pairs) {
                nodeGpus.add(gpuHint(pair.gpu(), pair.hca(), pair.rail(), pair.distance(), hcas, gpus, byMaster,
                        sels, snapshot, null));
            }
        }
        Set<String> ibHca = new LinkedHashSet<>();
        Set<String> ranges = new LinkedHashSet<>();
        for (GpuBinding b : pod.gpus()) {
            PlacementHint.GpuHint h = gpuHint(b.gpu(), b.hca(), b.rail(), b.distance(), hcas, gpus, byMaster, sels,
                    snapshot, ranges);
            gh.add(h);
            ibHca.add(b.hca() + ":" + h.port());
        }
        List<PlacementHint.RailLeaf> fabric = new ArrayList<>();
        FabricPosition pos = snapshot.fabric().position(pod.node());
        if (pos != null) {
            for (int r : new TreeSet<>(pod.gpus().stream().map(GpuBinding::rail).toList())) {
                String leaf = pos.leaf(r);
                if (leaf != null) {
                    var sw = snapshot.fabric().fabricSwitch(leaf);
                    fabric.add(new PlacementHint.RailLeaf(r, sw == null ? leaf : sw.label()));
                }
            }
        }
        String[] range = cover(ranges);
        PlacementHint.NcclSettings nccl = new PlacementHint.NcclSettings(
                ibHca.isEmpty() ? null : "=" + String.join(",", ibHca), SOCKET_IFNAME,
                range == null ? null : range[0], range == null ? null : range[1], NcclSyntax.gdrLevel(gh),
                NcclSyntax.gdrC2c(gh), null);
        String domain = snapshot.fabric().nvlinkDomain(pod.node());
        return new PlacementHint(PlacementHint.VERSION, pod.node(), gang, gangSize, pod.rank(), fabric, gh, nccl,
                nodeGpus, railChoice, null, domain == null ? null : new PlacementHint.NvlinkPeers(domain, List.of(),
                null));
    }

    /** One GPU with its HCA, that HCA's first active port and the pod's network on that port's netdev. */
    private static PlacementHint.GpuHint gpuHint(int gpu, String hcaName, int rail, PcieDistance distance,
                                                 Map<String, Hca> hcas, Map<Integer, Gpu> gpus,
                                                 Map<String, Integer> byMaster, List<NetworkSelection> sels,
                                                 ClusterSnapshot snapshot, Set<String> ranges) {
        HcaPort port = firstUpPort(hcas.get(hcaName));
        int portNo = port == null ? 1 : port.number();
        String netdev = null;
        Integer net = null;
        if (port != null) {
            for (String nd : port.netdevs()) {
                if (byMaster.containsKey(nd)) {
                    netdev = nd;
                    net = byMaster.get(nd);
                    break;
                }
            }
            if (netdev == null && !port.netdevs().isEmpty()) {
                netdev = port.netdevs().get(0);
            }
        }
        String network = null;
        String iface = null;
        if (net != null) {
            NetworkSelection s = sels.get(net);
            network = s.key();
            iface = s.podInterface();
            SecondaryNetwork sn = snapshot.network(s.key());
            if (ranges != null && sn.range() != null) {
                ranges.add(sn.range());
            }
        }
        Gpu g = gpus.get(gpu);
        Hca hca = hcas.get(hcaName);
        return new PlacementHint.GpuHint(gpu, g == null ? null : g.uuid(), g == null ? null : g.pciBusId(), hcaName,
                portNo, netdev, rail, distance, network, iface, hca == null ? null : hca.plane());
    }

    private static HcaPort firstUpPort(Hca hca) {
        if (hca == null) {
            return null;
        }
        for (HcaPort p : hca.ports()) {
            if (p.isUp()) {
                return p;
            }
        }
        return null;
    }

    /** @return {cidr, family} of the smallest prefix block covering every range, or null when there is none */
    static String[] cover(Set<String> ranges) {
        IPAddress acc = null;
        for (String r : ranges) {
            IPAddress a = new IPAddressString(r).getAddress();
            if (a == null) {
                continue;
            }
            a = a.toPrefixBlock();
            if (acc != null && acc.isIPv4() != a.isIPv4()) {
                return null; // mixed families: no single range
            }
            acc = acc == null ? a : acc.coverWithPrefixBlock(a);
        }
        if (acc == null) {
            return null;
        }
        return new String[]{acc.toPrefixLengthString(), acc.isIPv4() ? "AF_INET" : "AF_INET6"};
    }

    /**
     * @param hint the hint
     * @return {@code railyard.dev/placement} (JSON) and the flat keys of {@link HintAnnotations}
     */
    public static Map<String, String> annotations(PlacementHint hint) {
        Map<String, String> a = new LinkedHashMap<>();
        try {
            a.put(HintAnnotations.PLACEMENT, JSON.writeValueAsString(hint));
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("cannot serialise a placement hint: " + e.getOriginalMessage(), e);
        }
        PlacementHint.NcclSettings n = hint.nccl();
        put(a, HintAnnotations.NCCL_IB_HCA, n.ibHca());
        put(a, HintAnnotations.NCCL_SOCKET_IFNAME, n.socketIfname());
        put(a, HintAnnotations.NCCL_IB_ADDR_RANGE, n.ibAddrRange());
        put(a, HintAnnotations.NCCL_IB_ADDR_FAMILY, n.ibAddrFamily());
        put(a, HintAnnotations.NCCL_NET_GDR_LEVEL, n.netGdrLevel());
        put(a, HintAnnotations.NCCL_NET_GDR_C2C, n.netGdrC2c());
        put(a, HintAnnotations.NCCL_NET_MERGE_POLICY, n.netMergePolicy());
        if (hint.nvlink() != null && (hint.nvlink().peers() == null || hint.nvlink().peers() > 1)) {
            put(a, HintAnnotations.NVLINK_DOMAIN, hint.nvlink().domain());
        }
        if (hint.rank() != null) {
            a.put(HintAnnotations.RANK, Integer.toString(hint.rank()));
        }
        if (!hint.gpus().isEmpty()) {
            a.put(HintAnnotations.RAILS, String.join(",", hint.gpus().stream()
                    .map(g -> Integer.toString(g.rail())).toList()));
        }
        return a;
    }

    private static void put(Map<String, String> m, String k, String v) {
        if (v != null) {
            m.put(k, v);
        }
    }
}
