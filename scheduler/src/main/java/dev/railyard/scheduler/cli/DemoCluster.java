package dev.railyard.scheduler.cli;

import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import dev.railyard.api.multus.MacvlanNetwork;
import dev.railyard.api.multus.MacvlanNetworkSpec;
import dev.railyard.api.multus.NetworkAttachmentDefinition;
import dev.railyard.api.multus.NetworkAttachmentDefinitionSpec;
import dev.railyard.api.topology.ExcludedHca;
import dev.railyard.api.topology.GpuHcaDistance;
import dev.railyard.api.topology.Hca;
import dev.railyard.api.topology.HcaPort;
import dev.railyard.api.topology.NodeTopologySpec;
import dev.railyard.api.whereabouts.IPAllocation;
import dev.railyard.api.whereabouts.IPPool;
import dev.railyard.api.whereabouts.IPPoolSpec;
import dev.railyard.scheduler.engine.ClusterSnapshot;
import dev.railyard.scheduler.engine.HcaResource;
import dev.railyard.scheduler.engine.NodeState;
import dev.railyard.scheduler.engine.SecondaryNetwork;
import dev.railyard.scheduler.ipam.IpPoolLedger;
import dev.railyard.scheduler.ipam.IpamSnapshot;
import dev.railyard.topology.InputException;
import dev.railyard.topology.discovery.NvidiaSmiTopoParser;
import dev.railyard.topology.fabric.FabricFile;
import dev.railyard.topology.fabric.FabricModel;
import dev.railyard.topology.pairing.RailPairing;
import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The built-in demo cluster: classpath resources under {@code demo/} ({@code cluster.yaml}, {@code fabric.yaml},
 * {@code jobs.yaml} and the machine dumps). Each machine dump is parsed with the real nvidia-smi parser, its HCAs
 * renamed by the machine's {@code nicLegend} (for captures without a NIC Legend), given the ports and netdevs the
 * demo assumes, and paired by {@link RailPairing}. Networks are the seed's MacvlanNetworks rendered into
 * NetworkAttachmentDefinitions, with whereabouts IPPools filled to the demo's usage, behind an {@link IpPoolLedger}.
 */
final class DemoCluster {
    static final String BASE = "/demo/";
    private static final ObjectMapper YAML = new ObjectMapper(new YAMLFactory())
            .enable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES);

    record MachineDoc(String name, String dump, Map<String, String> nicLegend, Map<String, String> netdevs,
                      List<String> downPorts) {
    }

    record NodeDoc(String name, String machine, List<Integer> busyGpus) {
    }

    record NetworkDoc(String name, String master, String range, String gateway) {
    }

    record ClusterDoc(List<MachineDoc> machines, Map<String, String> rdmaResources, List<NodeDoc> nodes,
                      String fabric, List<NetworkDoc> networks, String networkNamespace, String whereaboutsNamespace,
                      Map<String, Integer> allocated, Map<String, Integer> staleHolders) {
    }

    /** Opens a file of the cluster description by its relative name. */
    @FunctionalInterface
    interface Opener {
        InputStream open(String name) throws IOException;
    }

    /** The loaded cluster. */
    record Loaded(ClusterSnapshot snapshot, IpPoolLedger ledger, Map<String, String> machineOf,
                  Map<String, MachineDoc> machines, List<NetworkDoc> networks, String networkNamespace) {
    }

    private DemoCluster() {
    }

    static InputStream resource(String name) {
        InputStream in = DemoCluster.class.getResourceAsStream(BASE + name);
        if (in == null) {
            throw new InputException("demo resource " + BASE + name + " is missing from the jar");
        }
        return in;
    }

    private static String text(Opener files, String where, String name) {
        try (InputStream in = files.open(name)) {
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (java.nio.file.NoSuchFileException e) {
            throw new InputException(where + name + ": no such file");
        } catch (IOException e) {
            throw InputException.reading(where + name, e);
        }
    }

    /** @return the built-in demo cluster */
    static Loaded load() {
        return load(DemoCluster::resource, BASE, "cluster.yaml");
    }

    /**
     * Loads a cluster file ({@code cluster.yaml} format above) from a directory: machine dumps and the fabric file
     * are named relative to it.
     *
     * @throws InputException naming the file when anything is missing or malformed
     */
    static Loaded load(java.nio.file.Path clusterFile) {
        java.nio.file.Path dir = clusterFile.toAbsolutePath().getParent();
        String name = clusterFile.getFileName().toString();
        return load(n -> java.nio.file.Files.newInputStream(n.equals("cluster.yaml") ? clusterFile : dir.resolve(n)),
                dir + "/", name);
    }

    private static Loaded load(Opener files, String where, String clusterName) {
        ClusterDoc doc;
        try (InputStream in = files.open("cluster.yaml")) {
            doc = YAML.readValue(in, ClusterDoc.class);
        } catch (java.nio.file.NoSuchFileException e) {
            throw new InputException(where + clusterName + ": no such file");
        } catch (IOException e) {
            // Jackson's exceptions included: key, line and column in words, no Java type names
            throw InputException.reading(where + clusterName, e);
        }
        if (doc == null || doc.machines() == null || doc.nodes() == null) {
            throw new InputException(where + clusterName + ": 'machines' and 'nodes' are required");
        }
        Map<String, MachineDoc> machines = new LinkedHashMap<>();
        Map<String, NodeTopologySpec> specs = new LinkedHashMap<>();
        RailPairing pairing = new RailPairing();
        for (MachineDoc m : doc.machines()) {
            machines.put(m.name(), m);
            NodeTopologySpec parsed = new NvidiaSmiTopoParser().parseText(
                    where.equals(BASE) ? "demo/" + m.dump() : m.dump(), text(files, where, m.dump()));
            specs.put(m.name(), pairing.pair(wire(rename(parsed, m.nicLegend()), m)));
        }
        List<NodeState> nodes = new ArrayList<>();
        Map<String, String> machineOf = new LinkedHashMap<>();
        for (NodeDoc n : doc.nodes()) {
            nodes.add(nodeState(n, doc, specs, where + clusterName));
            machineOf.put(n.name(), n.machine());
        }
        FabricModel fabric = readFabric(files, where, doc);
        String ns = doc.networkNamespace() == null ? "default" : doc.networkNamespace();
        List<SecondaryNetwork> networks = new ArrayList<>();
        Instant now = Instant.parse("2026-09-01T00:00:00Z");
        IpamSnapshot.Builder ipam = IpamSnapshot.builder(now);
        for (NetworkDoc n : doc.networks() == null ? List.<NetworkDoc>of() : doc.networks()) {
            String pool = n.range().replace('/', '-');
            networks.add(new SecondaryNetwork(ns, n.name(), n.master(), n.range(), pool));
            addNetworkObjects(ipam, doc, ns, n, pool);
        }
        IpPoolLedger ledger = null;
        if (!networks.isEmpty()) {
            ledger = new IpPoolLedger(Clock.fixed(now, ZoneOffset.UTC), Duration.ofHours(1),
                    doc.whereaboutsNamespace());
            ledger.update(ipam.build());
        }
        ClusterSnapshot snapshot = new ClusterSnapshot(nodes, networks, fabric, ledger);
        return new Loaded(snapshot, ledger, machineOf, machines,
                doc.networks() == null ? List.of() : doc.networks(), ns);
    }

    /**
     * One node of the cluster file: its machine's paired topology and the RDMA resources whose netdev the machine has.
     *
     * @param file the cluster file, for messages
     */
    private static NodeState nodeState(NodeDoc n, ClusterDoc doc, Map<String, NodeTopologySpec> specs, String file) {
        if (n.name() == null || n.machine() == null) {
            throw new InputException(file + ": a node needs name and machine");
        }
        NodeTopologySpec spec = specs.get(n.machine());
        if (spec == null) {
            throw new InputException(file + ": node " + n.name() + ": unknown machine " + n.machine());
        }
        List<HcaResource> res = new ArrayList<>();
        for (var e : (doc.rdmaResources() == null ? Map.<String, String>of() : doc.rdmaResources()).entrySet()) {
            String hca = hcaWithNetdev(spec, e.getValue());
            if (hca != null) {
                res.add(new HcaResource(e.getKey(), hca, 100, 0));
            }
        }
        return new NodeState(n.name(), Map.of("railyard.dev/machine", n.machine()), spec,
                n.busyGpus() == null ? Set.of() : Set.copyOf(n.busyGpus()), res, true);
    }

    /** The fabric file the cluster file names, or {@code fabric.yaml} when there is one, else no fabric. */
    private static FabricModel readFabric(Opener files, String where, ClusterDoc doc) {
        FabricModel fabric = FabricModel.empty();
        String fabricName = doc.fabric() == null ? "fabric.yaml" : doc.fabric();
        try (InputStream in = files.open(fabricName)) {
            fabric = FabricFile.read(in, where + fabricName);
        } catch (java.nio.file.NoSuchFileException e) {
            if (doc.fabric() != null) {
                throw new InputException(where + fabricName + ": no such file");
            }
        } catch (IOException e) {
            throw InputException.reading(where + fabricName, e);
        }
        return fabric;
    }

    /**
     * Adds a network's MacvlanNetwork, NetworkAttachmentDefinition and, when the cluster file says addresses are
     * taken, its whereabouts IPPool with that many allocations (the last {@code staleHolders} of them held by pods
     * that no longer exist).
     */
    private static void addNetworkObjects(IpamSnapshot.Builder ipam, ClusterDoc doc, String ns, NetworkDoc n,
                                          String pool) {
        String ipamJson = "{\"type\":\"whereabouts\",\"datastore\":\"kubernetes\",\"kubernetes\":{\"kubeconfig\":"
                + "\"/etc/cni/net.d/whereabouts.d/whereabouts.kubeconfig\"},\"range\":\"" + n.range()
                + "\",\"log_file\":\"/var/log/whereabouts.log\",\"log_level\":\"info\",\"gateway\":\""
                + n.gateway() + "\"}";
        MacvlanNetwork mv = new MacvlanNetwork();
        mv.setMetadata(new ObjectMetaBuilder().withName(n.name()).build());
        mv.setSpec(new MacvlanNetworkSpec(ns, n.master(), "bridge", 1500, ipamJson, null));
        ipam.macvlanNetwork(mv);
        NetworkAttachmentDefinition nad = new NetworkAttachmentDefinition();
        nad.setMetadata(new ObjectMetaBuilder().withName(n.name()).withNamespace(ns).build());
        nad.setSpec(new NetworkAttachmentDefinitionSpec("{\"cniVersion\":\"0.3.1\",\"name\":\"" + n.name()
                + "\",\"type\":\"macvlan\",\"master\":\"" + n.master() + "\",\"mode\":\"bridge\",\"mtu\":1500,"
                + "\"ipam\":" + ipamJson + "}"));
        ipam.networkAttachmentDefinition(nad);
        int used = doc.allocated() == null ? 0 : doc.allocated().getOrDefault(n.name(), 0);
        int stale = doc.staleHolders() == null ? 0 : doc.staleHolders().getOrDefault(n.name(), 0);
        if (used > 0) {
            Map<String, IPAllocation> alloc = new LinkedHashMap<>();
            Set<String> live = new HashSet<>();
            for (int k = 1; k <= used; k++) {
                String pod = ns + "/batch-" + n.name().substring(n.name().lastIndexOf('-') + 1) + "-" + k;
                alloc.put(Integer.toString(k), new IPAllocation(String.format("%064x", k), pod, "net1"));
                if (k <= used - stale) {
                    live.add(pod);
                }
            }
            IPPool p = new IPPool();
            p.setMetadata(new ObjectMetaBuilder().withName(pool).withNamespace(doc.whereaboutsNamespace()).build());
            p.setSpec(new IPPoolSpec(n.range(), alloc));
            ipam.ipPool(p);
            ipam.livePods(live);
        }
    }

    private static String hcaWithNetdev(NodeTopologySpec spec, String netdev) {
        for (Hca h : spec.hcas()) {
            for (HcaPort p : h.ports()) {
                if (p.netdevs().contains(netdev) && p.isUp()) {
                    return h.name();
                }
            }
        }
        return null;
    }

    /** Renames HCAs (a NIC Legend the capture lacks). */
    private static NodeTopologySpec rename(NodeTopologySpec s, Map<String, String> legend) {
        if (legend == null || legend.isEmpty()) {
            return s;
        }
        List<Hca> hcas = s.hcas().stream().map(h -> new Hca(legend.getOrDefault(h.name(), h.name()), h.pciBusId(),
                h.numaNode(), h.ports(), h.bondMaster(), h.pcieParent(), h.plane())).toList();
        List<GpuHcaDistance> ds = s.distances().stream().map(d -> new GpuHcaDistance(d.gpu(),
                legend.getOrDefault(d.hca(), d.hca()), d.distance())).toList();
        List<String> warnings = s.warnings().stream()
                .filter(w -> !w.contains("no NIC Legend")).toList();
        return new NodeTopologySpec(s.source(), s.complete(), warnings, s.gpus(), hcas, s.pcieBridges(),
                s.numaNodes(), ds, List.of(), List.<ExcludedHca>of(), s.locality());
    }

    /** Gives HCAs the ports the demo assumes: one Ethernet port with its netdev, or a port that is down. */
    private static NodeTopologySpec wire(NodeTopologySpec s, MachineDoc m) {
        List<Hca> hcas = new ArrayList<>();
        for (Hca h : s.hcas()) {
            List<HcaPort> ports = h.ports();
            String nd = m.netdevs() == null ? null : m.netdevs().get(h.name());
            if (nd != null) {
                ports = List.of(new HcaPort(1, "Ethernet", "ACTIVE", 400, List.of(nd), null));
            } else if (m.downPorts() != null && m.downPorts().contains(h.name())) {
                ports = List.of(new HcaPort(1, "Ethernet", "DOWN", null, List.of(), null));
            }
            hcas.add(new Hca(h.name(), h.pciBusId(), h.numaNode(), ports, h.bondMaster(), h.pcieParent(), h.plane()));
        }
        return new NodeTopologySpec(s.source(), s.complete(), s.warnings(), s.gpus(), hcas, s.pcieBridges(),
                s.numaNodes(), s.distances(), List.of(), List.of(), s.locality());
    }
}
