package dev.railyard.scheduler.hints.podenv;

import dev.railyard.api.hints.NcclVersion;
import dev.railyard.api.hints.PlacementHint;
import dev.railyard.api.hints.PlacementHint.GpuHint;
import dev.railyard.api.topology.PcieDistance;
import dev.railyard.scheduler.hints.NcclSyntax;
import dev.railyard.topology.discovery.PciBusId;

import java.io.IOException;
import java.net.Inet4Address;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Pattern;

/**
 * Turns a placement hint plus what the pod really got into NCCL environment variables ({@code railyard env}).
 *
 * <p>Steps:
 * <ol>
 *   <li><b>GPUs.</b> The container's GPUs ({@link AllocatedGpus}) are looked up in the hint's node rail map
 *       ({@code nodeGpus}; the plan's {@code gpus} when the map is absent) by UUID, then PCI bus id, then index.
 *       When they differ from the plan, each GPU takes its own HCA from the rail map (re-pairing). When nothing
 *       says which GPUs the container has, the plan's are assumed.</li>
 *   <li><b>HCAs.</b> For each distinct HCA port of those GPUs, in GPU order: an InfiniBand port is used as is; a
 *       RoCE port is used when its GID table ({@link GidTable}) has a {@code RoCE v2} entry whose IPv4-mapped
 *       address is the pod's own address on the rail's interface (the hint's {@code interface}, else any pod
 *       interface) and, where readable, whose netdev is that interface; the lowest such index wins, as in NCCL's
 *       own scan. Other ports are left out, with the reason.</li>
 *   <li><b>Exports.</b> {@code NCCL_IB_HCA} = {@code =hca:port,...} (exact match, so {@code mlx5_1} does not also
 *       select {@code mlx5_10}; NCCL {@code src/transport/net_ib/init.cc}, docs/formats/nccl.md §1).
 *       {@code NCCL_IB_GID_INDEX} only when every port is RoCE and all found the same index: NCCL takes one index
 *       for all HCAs, so with differing indices (the usual case under macvlan, fixtures case-25) any single value
 *       is wrong for some HCA; it is then left unset (and {@code unset} in shell output) and NCCL ≥ 2.21's default
 *       -1 auto-selects per HCA the lowest-index valid RoCE v2 GID of {@code NCCL_IB_ADDR_FAMILY} inside
 *       {@code NCCL_IB_ADDR_RANGE}; entries of other pods' netdevs read EINVAL in the container and are skipped,
 *       so that picks the pod's own GID (docs/formats/nccl.md §2). When the indices agree, setting it gives the same
 *       choice and also fixes NCCL before 2.21, whose default 0 is the link-local RoCE v1 GID (fixtures case-27).
 *       {@code NCCL_IB_ADDR_RANGE}: the hint's range when it holds every address found, else the smallest CIDR
 *       covering the subnets of those addresses. {@code NCCL_IB_ADDR_FAMILY=AF_INET}. {@code NCCL_SOCKET_IFNAME}
 *       from the hint. {@code NCCL_NET_GDR_LEVEL} only when a used GPU–HCA pair is farther than PXB and not P2C:
 *       {@code PHB} for PHB or NODE (NCCL has no NODE class), {@code SYS} for SYS; {@code NCCL_NET_GDR_C2C=1} when a
 *       used pair is P2C (a Grace GPU over NVLink-C2C to a NIC of its CPU).</li>
 *   <li><b>NCCL release.</b> For NCCL ≥ 2.30.5 ({@link NcclSyntax}: the {@code --nccl-version} given, else the
 *       hint's {@code ncclVersion}) each {@code NCCL_IB_HCA} entry also carries the rail, and the plane where known
 *       ({@code =mlx5_0:1:0,mlx5_1:1:1}), and {@code NCCL_NET_MERGE_POLICY=RAIL} is exported.</li>
 * </ol>
 * When no HCA qualifies, no {@code NCCL_IB_*} variable is exported (NCCL then behaves as without Railyard) and
 * the notes say why. Every exported value is checked against a plain character set
 * ({@code [A-Za-z0-9_.,:=/^+@-]}), so a tampered annotation cannot inject shell code.
 */
public final class NcclEnvironment {
    private static final Pattern NAME = Pattern.compile("[A-Za-z0-9_.-]{1,64}");
    private static final Pattern SAFE_VALUE = Pattern.compile("[A-Za-z0-9_.,:=/^+@-]{1,1024}");

    /**
     * @param exports variables to set, in a stable order
     * @param unset   variables to clear (a stale value would be wrong)
     * @param notes   what happened and why, one line each, for stderr
     */
    public record Result(Map<String, String> exports, List<String> unset, List<String> notes) {
        public Result {
            exports = java.util.Collections.unmodifiableMap(new LinkedHashMap<>(exports));
            unset = List.copyOf(unset);
            notes = List.copyOf(notes);
        }
    }

    /** Reads the GID table of an HCA port as this process sees it. */
    @FunctionalInterface
    public interface RdmaView {
        /**
         * @throws IOException when the port or its GID directory cannot be read; the message names the path
         */
        GidTable gidTable(String hca, int port) throws IOException;
    }

    private record Port(String hca, int port) {
        @Override
        public String toString() {
            return hca + ":" + port;
        }
    }

    /** A usable HCA port: InfiniBand ({@code gid} null) or RoCE with the pod's entry. */
    private record Usable(Port port, GidTable.Entry gid, PodAddresses.Address address) {
    }

    private NcclEnvironment() {
    }

    /**
     * @param hint       the placement hint (a version this class understands)
     * @param allocation the container's GPUs
     * @param rdma       GID tables
     * @param addresses  the pod's IPv4 addresses
     */
    public static Result compute(PlacementHint hint, AllocatedGpus.Resolution allocation, RdmaView rdma,
                                 PodAddresses addresses) {
        return compute(hint, allocation, rdma, addresses, null);
    }

    /**
     * @param hint       the placement hint (a version this class understands)
     * @param allocation the container's GPUs
     * @param rdma       GID tables
     * @param addresses  the pod's IPv4 addresses
     * @param version    the NCCL release to write for ({@link NcclSyntax}); null: the one the hint was written for
     *                   ({@code ncclVersion}), else the syntax every release accepts
     */
    public static Result compute(PlacementHint hint, AllocatedGpus.Resolution allocation, RdmaView rdma,
                                 PodAddresses addresses, NcclVersion version) {
        Objects.requireNonNull(hint, "hint");
        List<String> notes = new ArrayList<>(allocation.notes());
        NcclVersion v = version;
        if (v == null) {
            try {
                v = NcclVersion.parse(hint.ncclVersion());
            } catch (IllegalArgumentException e) {
                notes.add("the hint's ncclVersion '" + hint.ncclVersion() + "' is not a version; writing the NCCL "
                        + "settings every release accepts");
            }
        }
        boolean railPlane = v != null && v.hasRailPlaneSyntax();
        Map<String, String> exports = new LinkedHashMap<>();
        List<String> unset = new ArrayList<>();

        List<GpuHint> gpus = chooseGpus(hint, allocation, notes);
        PlacementHint.NcclSettings nccl = hint.nccl();
        boolean ipv6 = nccl != null && "AF_INET6".equals(nccl.ibAddrFamily());

        Map<Port, GpuHint> ports = ports(gpus, notes);
        List<Usable> usable = new ArrayList<>();
        for (Map.Entry<Port, GpuHint> e : ports.entrySet()) {
            check(e.getKey(), e.getValue(), rdma, addresses, ipv6, notes).ifPresent(usable::add);
        }

        if (usable.isEmpty()) {
            if (!ports.isEmpty()) {
                notes.add("no HCA of the pod's GPUs is usable from this pod; exporting no NCCL_IB_* settings "
                        + "(NCCL falls back to its own choice)");
            }
        } else {
            exportHcas(gpus, ports, usable, railPlane, nccl, ipv6, exports, unset, notes);
        }
        if (nccl != null && nccl.socketIfname() != null) {
            put(exports, "NCCL_SOCKET_IFNAME", nccl.socketIfname(), notes);
        }
        String gdr = gdrLevel(gpus, usable);
        if (gdr != null) {
            put(exports, "NCCL_NET_GDR_LEVEL", gdr, notes);
        }
        List<GpuHint> used = gpus.stream().filter(g -> usable.stream()
                .anyMatch(u -> u.port().equals(new Port(g.hca(), g.port())))).toList();
        if (NcclSyntax.gdrC2c(used) != null) {
            put(exports, "NCCL_NET_GDR_C2C", "1", notes);
        }
        return new Result(exports, unset, notes);
    }

    /** Exports NCCL_IB_HCA (and the merge policy), the GID index when one fits all, and the address range. */
    private static void exportHcas(List<GpuHint> gpus, Map<Port, GpuHint> ports, List<Usable> usable,
                                   boolean railPlane, PlacementHint.NcclSettings nccl, boolean ipv6,
                                   Map<String, String> exports, List<String> unset, List<String> notes) {
        StringBuilder hca = new StringBuilder("=");
        for (Usable u : usable) {
            hca.append(hca.length() > 1 ? "," : "").append(u.port());
            GpuHint first = ports.get(u.port());
            if (railPlane) {
                hca.append(':').append(first.rail()).append(first.plane() == null ? "" : ":" + first.plane());
            }
        }
        put(exports, "NCCL_IB_HCA", hca.toString(), notes);
        if (railPlane) {
            put(exports, "NCCL_NET_MERGE_POLICY", "RAIL", notes);
        }
        for (GpuHint g : gpus) {
            Port p = new Port(g.hca(), g.port());
            if (ports.containsKey(p) && usable.stream().noneMatch(u -> u.port().equals(p))) {
                notes.add("GPU " + g.gpu() + "'s own HCA " + p + " is not usable; NCCL will send its traffic "
                        + "through another listed HCA, farther away than planned");
            }
        }
        List<Usable> roce = usable.stream().filter(u -> u.gid() != null).toList();
        boolean anyIb = usable.size() > roce.size();
        if (!roce.isEmpty()) {
            Set<Integer> indices = new TreeSet<>();
            roce.forEach(u -> indices.add(u.gid().index()));
            if (indices.size() == 1 && !anyIb) {
                put(exports, "NCCL_IB_GID_INDEX", Integer.toString(indices.iterator().next()), notes);
            } else {
                unset.add("NCCL_IB_GID_INDEX");
                StringBuilder per = new StringBuilder();
                for (Usable u : roce) {
                    per.append(per.isEmpty() ? "" : ", ").append(u.port()).append(" -> ").append(u.gid().index());
                }
                notes.add("NCCL_IB_GID_INDEX left unset: " + (anyIb ? "InfiniBand and RoCE ports are mixed"
                        : "the pod's RoCE v2 GID index differs per HCA (" + per + ")")
                        + "; NCCL >= 2.21 picks each HCA's RoCE v2 GID inside NCCL_IB_ADDR_RANGE itself");
            }
            put(exports, "NCCL_IB_ADDR_FAMILY", "AF_INET", notes);
            put(exports, "NCCL_IB_ADDR_RANGE", addrRange(nccl, roce, notes), notes);
        } else if (ipv6 && nccl != null) {
            put(exports, "NCCL_IB_ADDR_FAMILY", nccl.ibAddrFamily(), notes);
            if (nccl.ibAddrRange() != null) {
                put(exports, "NCCL_IB_ADDR_RANGE", nccl.ibAddrRange(), notes);
            }
        }
    }

    /** @return the HCA ports of the GPUs, in GPU order; a GPU naming no valid device and port is left out, noted */
    private static Map<Port, GpuHint> ports(List<GpuHint> gpus, List<String> notes) {
        Map<Port, GpuHint> ports = new LinkedHashMap<>();
        for (GpuHint g : gpus) {
            if (g.hca() == null || !NAME.matcher(g.hca()).matches() || g.hca().startsWith(".")
                    || g.port() < 1 || g.port() > 255) {
                notes.add("GPU " + g.gpu() + ": the hint names HCA '" + g.hca() + "' port " + g.port()
                        + ", which is not a valid RDMA device and port; left out");
                continue;
            }
            ports.putIfAbsent(new Port(g.hca(), g.port()), g);
        }
        return ports;
    }

    /** The node rail map entries of the container's GPUs (re-paired), or the plan's GPUs. */
    private static List<GpuHint> chooseGpus(PlacementHint hint, AllocatedGpus.Resolution allocation,
                                            List<String> notes) {
        List<GpuHint> planned = hint.gpus();
        if (allocation.allOfNode()) {
            if (hint.nodeGpus().isEmpty()) {
                notes.add("NVIDIA_VISIBLE_DEVICES=all gives this container every GPU of the node, but the hint "
                        + "carries no node rail map to list them; assuming the planned GPUs " + indices(planned));
                return planned;
            }
            List<GpuHint> every = hint.nodeGpus();
            List<Integer> all = every.stream().map(GpuHint::gpu).toList();
            if (!all.equals(planned.stream().map(GpuHint::gpu).toList())) {
                notes.add("NVIDIA_VISIBLE_DEVICES=all gives this container every GPU of the node " + all
                        + " but the plan said " + indices(planned) + "; HCAs taken from the node rail map in the hint");
            }
            return every;
        }
        if (!allocation.known()) {
            notes.add("cannot tell which GPUs this container has (no NVIDIA_VISIBLE_DEVICES list, no "
                    + "/proc/driver/nvidia/gpus); assuming the planned GPUs " + indices(planned));
            return planned;
        }
        if (allocation.gpus().isEmpty()) {
            notes.add("this container has no GPUs (" + allocation.source() + "); nothing to pair with HCAs");
            return List.of();
        }
        boolean haveMap = !hint.nodeGpus().isEmpty();
        List<GpuHint> table = haveMap ? hint.nodeGpus() : planned;
        List<GpuHint> out = new ArrayList<>();
        for (AllocatedGpus.GpuId id : allocation.gpus()) {
            GpuHint g = find(table, id);
            if (g == null) {
                notes.add("GPU " + id + " (from " + allocation.source() + ") is not in the hint's "
                        + (haveMap ? "node rail map" : "plan, and the hint carries no node rail map to re-pair it from")
                        + "; left out");
            } else if (!out.contains(g)) {
                out.add(g);
            }
        }
        Set<Integer> got = new TreeSet<>();
        out.forEach(g -> got.add(g.gpu()));
        Set<Integer> plan = new TreeSet<>();
        planned.forEach(g -> plan.add(g.gpu()));
        if (!got.equals(plan) && !out.isEmpty()) {
            notes.add("the container has GPUs " + got + " but the plan said " + plan
                    + "; HCAs re-paired from the node rail map in the hint");
        }
        return out;
    }

    private static GpuHint find(List<GpuHint> table, AllocatedGpus.GpuId id) {
        if (id.uuid() != null) {
            for (GpuHint g : table) {
                if (g.uuid() != null && g.uuid().equalsIgnoreCase(id.uuid())) {
                    return g;
                }
            }
        }
        if (id.busId() != null) {
            Optional<PciBusId> want = PciBusId.parse(id.busId());
            for (GpuHint g : table) {
                if (want.isPresent() && want.equals(PciBusId.parse(g.pciBusId()))) {
                    return g;
                }
            }
        }
        if (id.index() != null) {
            for (GpuHint g : table) {
                if (g.gpu() == id.index()) {
                    return g;
                }
            }
        }
        return null;
    }

    /** Decides whether one HCA port is usable by this pod; adds a note when not. */
    private static Optional<Usable> check(Port port, GpuHint gh, RdmaView rdma, PodAddresses addresses,
                                          boolean ipv6, List<String> notes) {
        GidTable table;
        try {
            table = rdma.gidTable(port.hca(), port.port());
        } catch (IOException e) {
            notes.add(port + ": cannot read its GID table (" + e.getMessage() + "); left out");
            return Optional.empty();
        }
        notes.addAll(table.notes());
        if ("InfiniBand".equalsIgnoreCase(table.linkLayer())) {
            return Optional.of(new Usable(port, null, null));
        }
        if (ipv6) {
            // IPv6 rails: railyard env only matches IPv4-mapped GIDs; keep the HCA and let NCCL choose the GID
            return Optional.of(new Usable(port, null, null));
        }
        String iface = gh.iface();
        List<PodAddresses.Address> cands = List.of();
        if (iface != null && NAME.matcher(iface).matches()) {
            cands = addresses.of(iface);
            if (cands.isEmpty()) {
                notes.add(port + ": the hint puts it on pod interface " + iface
                        + ", which has no IPv4 address here; trying every pod address");
            }
        }
        if (cands.isEmpty()) {
            cands = addresses.all();
        }
        if (cands.isEmpty()) {
            notes.add(port + ": the pod has no IPv4 address to match a RoCE v2 GID; left out");
            return Optional.empty();
        }
        Set<Inet4Address> addrs = PodAddresses.addressSet(cands);
        Set<String> ifaces = new LinkedHashSet<>();
        cands.forEach(a -> ifaces.add(a.iface()));
        Optional<GidTable.Entry> hit = table.roceV2For(addrs, ifaces);
        if (hit.isEmpty()) {
            List<GidTable.Entry> holding = table.holding(addrs);
            long nonEmpty = table.entries().stream().filter(x -> !x.isEmpty()).count();
            notes.add(port + ": no RoCE v2 GID holds the pod's address " + describe(cands) + " ("
                    + (holding.isEmpty() ? nonEmpty + " non-empty entries, none with that address: the pod has no "
                    + "interface on this HCA's netdev" : "entries with it: " + holding) + "); left out");
            return Optional.empty();
        }
        GidTable.Entry e = hit.get();
        PodAddresses.Address a = cands.stream()
                .filter(c -> c.address().equals(e.ipv4()) && (e.ndev() == null || e.ndev().equals(c.iface())))
                .findFirst().orElseThrow();
        return Optional.of(new Usable(port, e, a));
    }

    /** The hint's range when it holds every address found; else the smallest CIDR covering their subnets. */
    private static String addrRange(PlacementHint.NcclSettings nccl, List<Usable> roce, List<String> notes) {
        String hinted = nccl == null ? null : nccl.ibAddrRange();
        if (hinted != null) {
            int[] cidr = parseCidr(hinted);
            if (cidr != null && roce.stream().allMatch(u -> contains(cidr, toInt(u.address().address())))) {
                return hinted;
            }
            notes.add("the hint's NCCL_IB_ADDR_RANGE " + hinted + " does not hold every address found; "
                    + "using the range covering the pod's rail subnets");
        }
        int net = 0;
        int prefix = 32;
        boolean first = true;
        for (Usable u : roce) {
            int p = u.address().prefixLength();
            int n = toInt(u.address().address()) & mask(p);
            if (first) {
                net = n;
                prefix = p;
                first = false;
            } else {
                int common = Integer.numberOfLeadingZeros(net ^ n);
                prefix = Math.min(Math.min(prefix, p), common);
                net &= mask(prefix);
            }
        }
        return ((net >>> 24) & 0xff) + "." + ((net >>> 16) & 0xff) + "." + ((net >>> 8) & 0xff) + "." + (net & 0xff)
                + "/" + prefix;
    }

    /** NCCL_NET_GDR_LEVEL for the used pairs: null up to PXB, PHB for PHB/NODE, SYS for SYS. */
    private static String gdrLevel(List<GpuHint> gpus, List<Usable> usable) {
        PcieDistance worst = null;
        for (GpuHint g : gpus) {
            Port p = new Port(g.hca(), g.port());
            if (g.distance() != null && g.distance() != PcieDistance.P2C
                    && usable.stream().anyMatch(u -> u.port().equals(p))
                    && (worst == null || g.distance().compareTo(worst) > 0)) {
                worst = g.distance();
            }
        }
        if (worst == null || worst.gpuDirectByDefault()) {
            return null;
        }
        return worst == PcieDistance.SYS ? "SYS" : "PHB";
    }

    private static void put(Map<String, String> exports, String key, String value, List<String> notes) {
        if (value == null || !SAFE_VALUE.matcher(value).matches()) {
            notes.add("not exporting " + key + ": the value '" + value + "' has characters outside [A-Za-z0-9_.,:=/^+@-]");
            return;
        }
        exports.put(key, value);
    }

    private static String describe(List<PodAddresses.Address> cands) {
        StringBuilder sb = new StringBuilder();
        for (PodAddresses.Address a : cands) {
            sb.append(sb.isEmpty() ? "" : " or ").append(a.address().getHostAddress()).append(" (").append(a.iface())
                    .append(")");
        }
        return sb.toString();
    }

    private static String indices(List<GpuHint> gpus) {
        List<Integer> l = new ArrayList<>();
        gpus.forEach(g -> l.add(g.gpu()));
        return l.toString();
    }

    /** @return {network, prefix} of {@code a.b.c.d/p}, or null when not an IPv4 CIDR */
    static int[] parseCidr(String text) {
        String[] parts = text.strip().split("/", 2);
        if (parts.length != 2 || !parts[1].matches("\\d{1,2}") || Integer.parseInt(parts[1]) > 32
                || !parts[0].matches("\\d{1,3}(\\.\\d{1,3}){3}")) {
            return null;
        }
        int v = 0;
        for (String o : parts[0].split("\\.")) {
            int b = Integer.parseInt(o);
            if (b > 255) {
                return null;
            }
            v = (v << 8) | b;
        }
        int p = Integer.parseInt(parts[1]);
        return new int[]{v & mask(p), p};
    }

    private static boolean contains(int[] cidr, int address) {
        return (address & mask(cidr[1])) == cidr[0];
    }

    private static int mask(int prefix) {
        return prefix == 0 ? 0 : -1 << (32 - prefix);
    }

    private static int toInt(Inet4Address a) {
        byte[] b = a.getAddress();
        return ((b[0] & 0xff) << 24) | ((b[1] & 0xff) << 16) | ((b[2] & 0xff) << 8) | (b[3] & 0xff);
    }
}
