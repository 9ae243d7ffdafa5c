package dev.railyard.agent;

import dev.railyard.api.topology.Hca;
import dev.railyard.api.topology.HcaPort;
import dev.railyard.api.topology.NodeTopologySpec;
import dev.railyard.topology.discovery.sysfs.SysfsDiscovery;
import dev.railyard.topology.discovery.sysfs.SysfsTopologyParser;
import dev.railyard.topology.discovery.sysfs.SysfsTree;
import dev.railyard.topology.pairing.RailPairing;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;

/**
 * Reads the host through the same code as {@code railyard topology}: {@link SysfsTopologyParser} on a fresh
 * {@link SysfsTree} per refresh, then {@link RailPairing}. Adds what the agent needs beyond the spec: populated GID
 * entries per port (from the parser's GID list) and each HCA's PCI vendor, device id and bound driver (for the
 * rdma-shared-dev-plugin's selectors; the driver is the basename of {@code bus/pci/devices/<bdf>/driver}).
 *
 * <p>The spec's ports keep state, link layer and rate, but {@code gidTableSize} is cleared: it changes with every
 * pod and is published in the status instead, so the spec only changes when the hardware does. Stateless apart from
 * its settings; each call reads the tree anew.
 */
public final class SysfsHostDiscovery implements HostDiscovery {
    private final Path sysRoot;
    private final SysfsTopologyParser parser = new SysfsTopologyParser();
    private final RailPairing pairing = new RailPairing();

    /** @param sysRoot the host's sysfs ({@code /host/sys}) or a directory holding {@code sys/} */
    public SysfsHostDiscovery(Path sysRoot) {
        this.sysRoot = Objects.requireNonNull(sysRoot);
    }

    /**
     * @throws dev.railyard.topology.InputException when the directory is missing, holds no sysfs, or shows neither
     *                                              an NVIDIA GPU nor an RDMA device
     */
    @Override
    public HostSnapshot discover() {
        SysfsTree tree = SysfsTree.open(sysRoot);
        SysfsDiscovery discovery = parser.discover(tree);
        NodeTopologySpec parsed = discovery.spec();
        if (parsed.gpus().isEmpty() && parsed.hcas().isEmpty()) {
            // Same refusal as SysfsTopologyParser.read: an empty picture is not a node.
            parser.read(tree);
        }
        NodeTopologySpec paired = pairing.pair(withoutGidSizes(parsed));

        Map<String, Integer> gids = new HashMap<>();
        for (Hca hca : parsed.hcas()) {
            for (HcaPort port : hca.ports()) {
                gids.put(HostSnapshot.portKey(hca.name(), port.number()), 0);
            }
        }
        discovery.gids().forEach(g -> gids.merge(HostSnapshot.portKey(g.hca(), g.port()), 1, Integer::sum));

        Map<String, SysfsDiscovery.PciFunction> functions = new HashMap<>();
        discovery.devices().forEach(f -> functions.put(f.busId(), f));
        List<HcaPciFacts> facts = new ArrayList<>();
        for (Hca hca : paired.hcas()) {
            SysfsDiscovery.PciFunction f = hca.pciBusId() == null ? null : functions.get(hca.pciBusId());
            String driver = hca.pciBusId() == null ? null
                    : tree.resolve("bus/pci/devices/" + hca.pciBusId() + "/driver")
                    .map(p -> p.substring(p.lastIndexOf('/') + 1)).orElse(null);
            LinkedHashSet<String> netdevs = new LinkedHashSet<>();
            LinkedHashSet<String> linkTypes = new LinkedHashSet<>();
            for (HcaPort port : hca.ports()) {
                netdevs.addAll(port.netdevs());
                if (port.linkLayer() != null) {
                    linkTypes.add(port.linkLayer().toLowerCase(Locale.ROOT).startsWith("infiniband")
                            ? "infiniband" : "ether");
                }
            }
            facts.add(new HcaPciFacts(hca.name(), hca.pciBusId(),
                    f == null || f.vendor() == null ? null : RdmaResourceMapper.stripHex(f.vendor()),
                    f == null || f.device() == null ? null : RdmaResourceMapper.stripHex(f.device()),
                    driver, List.copyOf(netdevs), List.copyOf(linkTypes)));
        }
        return new HostSnapshot(paired, facts, gids);
    }

    private static NodeTopologySpec withoutGidSizes(NodeTopologySpec spec) {
        List<Hca> hcas = spec.hcas().stream().map(h -> new Hca(h.name(), h.pciBusId(), h.numaNode(),
                h.ports().stream().map(p -> new HcaPort(p.number(), p.linkLayer(), p.state(), p.rateGbps(),
                        p.netdevs(), null)).toList(), h.bondMaster(), h.pcieParent(), h.plane())).toList();
        return new NodeTopologySpec(spec.source(), spec.complete(), spec.warnings(), spec.gpus(), hcas,
                spec.pcieBridges(), spec.numaNodes(), spec.distances(), spec.pairs(), spec.excluded(),
                spec.locality());
    }
}
