package dev.railyard.topology.discovery.lspci;

import dev.railyard.api.topology.DiscoverySource;
import dev.railyard.api.topology.Gpu;
import dev.railyard.api.topology.GpuHcaDistance;
import dev.railyard.api.topology.Hca;
import dev.railyard.api.topology.HcaPort;
import dev.railyard.api.topology.Locality;
import dev.railyard.api.topology.NodeTopologySpec;
import dev.railyard.api.topology.PcieBridge;
import dev.railyard.api.topology.PcieDistance;
import dev.railyard.topology.InputException;
import dev.railyard.topology.discovery.DumpText;
import dev.railyard.topology.discovery.HcaPortListing;
import dev.railyard.topology.discovery.PcieDistanceClassifier;
import dev.railyard.topology.discovery.PciePath;
import dev.railyard.topology.discovery.TopologyParser;
import dev.railyard.topology.discovery.lspci.LspciTree.Device;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Reads {@code lspci -tv} text (also {@code -t}, {@code -tvn}, {@code -tvnn}; {@link LspciTree}) into the node
 * model: the PCIe tree above the GPUs and HCAs, and every GPU–HCA distance class from it
 * ({@link PcieDistanceClassifier}: a switch is its upstream port, as in sysfs).
 *
 * <p>Which functions are what (names as pciutils prints them from {@code pci.ids}, vendor ids where shown; see
 * {@code docs/formats/lspci-tree.md}):
 * <ul>
 *   <li>GPU: vendor {@code 10de} or a name starting {@code NVIDIA Corporation}, except audio, USB and serial
 *       functions and NVSwitches (device ids {@code 1ac2}, {@code 1af1}, {@code 22a3}, or "NVSwitch" in the name).
 *       GPU index = position in bus id order, NVML's enumeration order;</li>
 *   <li>HCA: vendor {@code 15b3} or a name starting {@code Mellanox Technologies}, except SR-IOV virtual functions
 *       (left out with a warning: a VF has its PF's place) and BlueField management and DMA functions. lspci does
 *       not know RDMA device names: an HCA is named by its bus id unless {@code ibdev2netdev -v} lines in the same
 *       text give its name ({@link HcaPortListing}).</li>
 * </ul>
 * The tree has no NUMA nodes: devices under different host bridges are classed SYS (nvidia-smi would print NODE
 * for those on one socket), and the warnings say so. A virtual machine's tree (QEMU, VMware, Hyper-V or Xen devices
 * present) where no GPU shares a switch with an HCA is the hypervisor's drawing, not the host's: the spec's
 * {@link Locality} is then {@link Locality.Basis#UNDETERMINED} and nothing is paired. A damaged tree (a cut or
 * garbled line, an elision) gives {@code complete == false} with warnings naming line and column. Stateless.
 */
public final class LspciTopologyParser implements TopologyParser {
    /** Largest file accepted, in bytes (16 MiB); real trees are a few KiB. */
    public static final long MAX_INPUT_BYTES = 16L << 20;

    private static final Set<String> NVSWITCH_IDS = Set.of("1ac2", "1af1", "22a3");
    private static final Set<String> HYPERVISOR_VENDORS = Set.of("1af4", "1b36", "15ad", "1414", "5853", "1234");
    private static final Pattern NOT_A_GPU =
            Pattern.compile("(?i).*\\b(audio|usb|ucsi|serial|nvswitch|bridge|smbus|ethernet)\\b.*");
    private static final Pattern NOT_AN_HCA = Pattern.compile("(?i).*(virtual function|management|dma|bridge).*");
    private static final Pattern UNKNOWN_DEVICE = Pattern.compile(".*\\bDevice ([0-9a-fA-F]{4})\\b.*");
    private static final Pattern HYPERVISOR_NAME =
            Pattern.compile("(?i).*(red hat, inc|qemu|virtio|vmware|hyper-v|xensource|xen platform).*");

    /** Creates a parser; it holds no state. */
    public LspciTopologyParser() {
    }

    @Override
    public NodeTopologySpec parse(Path input) {
        byte[] bytes = DumpText.read(input, MAX_INPUT_BYTES);
        return parseText(input.toString(), DumpText.decode(input.toString(), bytes));
    }

    /**
     * @param source name used in warnings and errors (the file path)
     * @param text   {@code lspci -tv} output, possibly with other transcript lines around it
     * @return the node model, {@code pairs} and {@code excluded} empty
     * @throws InputException when the text holds no bus tree, or a tree with neither a GPU nor an HCA
     */
    public NodeTopologySpec parseText(String source, String text) {
        List<String> lines = DumpText.lines(text);
        LspciTree tree = LspciTree.read(source, lines);
        List<String> warnings = new ArrayList<>(tree.warnings());
        List<Device> gpuFns = new ArrayList<>();
        List<Device> hcaFns = new ArrayList<>();
        int vfs = 0;
        boolean virtualMachine = false;
        for (Device d : tree.devices()) {
            virtualMachine |= isHypervisorDevice(d);
            if (d.bridge()) {
                continue;
            }
            if (isGpu(d)) {
                gpuFns.add(d);
            } else if (isMellanox(d)) {
                if (d.name() != null && d.name().toLowerCase(Locale.ROOT).contains("virtual function")) {
                    vfs++;
                } else if (d.name() == null || !NOT_AN_HCA.matcher(d.name()).matches()) {
                    hcaFns.add(d);
                }
            }
        }
        if (gpuFns.isEmpty() && hcaFns.isEmpty()) {
            throw new InputException(source + ": the bus tree has neither an NVIDIA GPU nor a Mellanox/NVIDIA "
                    + "network function (names need lspci -tv, ids lspci -tvnn)");
        }
        gpuFns.sort(Comparator.comparing(Device::busId));
        hcaFns.sort(Comparator.comparing(Device::busId));
        if (vfs > 0) {
            warnings.add(source + ": " + vfs + " SR-IOV virtual function" + (vfs == 1 ? "" : "s")
                    + " left out: a VF is placed like its physical function");
        }
        Map<String, PcieBridge> bridges = new LinkedHashMap<>();
        List<Gpu> gpus = new ArrayList<>();
        List<PciePath> gpuPaths = new ArrayList<>();
        for (int i = 0; i < gpuFns.size(); i++) {
            PciePath path = path(gpuFns.get(i), bridges);
            gpuPaths.add(path);
            gpus.add(new Gpu(i, null, gpuFns.get(i).busId(), null, model(gpuFns.get(i)), List.of(), path.parent()));
        }
        List<Hca> hcas = hcas(source, lines, hcaFns, bridges, warnings);
        List<GpuHcaDistance> distances = new ArrayList<>();
        boolean shared = false;
        for (int g = 0; g < gpus.size(); g++) {
            for (int h = 0; h < hcas.size(); h++) {
                PcieDistance d = PcieDistanceClassifier.classify(gpuPaths.get(g), path(hcaFns.get(h), bridges));
                shared |= d.isAtMost(PcieDistance.PXB);
                distances.add(new GpuHcaDistance(g, hcas.get(h).name(), d));
            }
        }
        Set<String> hostBridges = new LinkedHashSet<>();
        bridges.values().stream().filter(b -> b.kind() == PcieBridge.Kind.HOST_BRIDGE)
                .forEach(b -> hostBridges.add(b.id()));
        if (hostBridges.size() > 1) {
            warnings.add(source + ": lspci shows no NUMA nodes: GPU-HCA pairs under different host bridges are "
                    + "classed SYS (nvidia-smi would print NODE for those on one socket)");
        }
        Locality locality = Locality.PCIE;
        if (virtualMachine && !shared && !gpus.isEmpty() && hcas.size() > 1) {
            locality = Locality.undetermined("a virtual machine's PCIe tree (hypervisor devices present): the "
                    + "hypervisor puts each passed-through GPU and NIC on a virtual port of its own, so the tree "
                    + "says nothing about the host's PCIe switches; use the cloud's NCCL topology file "
                    + "(NCCL_TOPO_FILE) or the host's nvidia-smi topo -m");
        } else if (virtualMachine) {
            warnings.add(source + ": a virtual machine's PCIe tree: distances are the guest's, as NCCL in the "
                    + "guest sees them");
        }
        return new NodeTopologySpec(DiscoverySource.LSPCI, !tree.damaged(), warnings, gpus, hcas,
                List.copyOf(bridges.values()), List.of(), distances, List.of(), List.of(), locality);
    }

    private static List<Hca> hcas(String source, List<String> lines, List<Device> hcaFns,
                                  Map<String, PcieBridge> bridges, List<String> warnings) {
        Map<String, HcaPortListing.Device> byBus = new LinkedHashMap<>();
        for (HcaPortListing.Device d : HcaPortListing.parse(lines).devices().values()) {
            if (d.pciBusId() != null) {
                byBus.put(d.pciBusId(), d);
            }
        }
        List<Hca> hcas = new ArrayList<>();
        int unnamed = 0;
        for (Device d : hcaFns) {
            HcaPortListing.Device listed = byBus.get(d.busId());
            if (listed == null) {
                unnamed++;
            }
            PciePath path = path(d, bridges);
            hcas.add(new Hca(listed == null ? d.busId() : listed.hca(), d.busId(), null,
                    listed == null ? List.<HcaPort>of() : listed.ports(), null, path.parent()));
        }
        if (unnamed > 0) {
            warnings.add(source + ": lspci does not know RDMA device names: " + unnamed + " HCA"
                    + (unnamed == 1 ? " is" : "s are") + " named by PCI bus id (add ibdev2netdev -v output to the "
                    + "file to name them)");
        }
        return hcas;
    }

    /**
     * The device's place: host bridge {@code pci<dddd>:<bb>} of its top-level bus, then the root port and one unit
     * per switch (its upstream port: the bridges at even depth after the root port are downstream ports).
     */
    private static PciePath path(Device d, Map<String, PcieBridge> bridges) {
        List<Device> chain = new ArrayList<>();
        for (Device b = d.bus().bridge(); b != null; b = b.bus().bridge()) {
            chain.addFirst(b);
        }
        String host = d.bus().hostBridge();
        bridges.putIfAbsent(host, new PcieBridge(host, PcieBridge.Kind.HOST_BRIDGE, null, null));
        List<String> units = new ArrayList<>();
        for (int i = 0; i < chain.size(); i++) {
            if (i == 0 || i % 2 == 1) {
                String id = chain.get(i).busId();
                String parent = units.isEmpty() ? host : units.getLast();
                bridges.putIfAbsent(id, new PcieBridge(id, i == 0 ? PcieBridge.Kind.ROOT_PORT
                        : PcieBridge.Kind.SWITCH, parent, null));
                units.add(id);
            }
        }
        return new PciePath(host, units, null);
    }

    private static boolean isGpu(Device d) {
        String name = d.name() == null ? "" : d.name();
        boolean nvidia = "10de".equals(d.vendorId()) || name.startsWith("NVIDIA Corporation");
        if (!nvidia) {
            return false;
        }
        String id = d.deviceId();
        Matcher unknown = UNKNOWN_DEVICE.matcher(name);
        if (id == null && unknown.matches()) {
            id = unknown.group(1).toLowerCase(Locale.ROOT);
        }
        return !(id != null && NVSWITCH_IDS.contains(id)) && !NOT_A_GPU.matcher(name).matches();
    }

    private static boolean isMellanox(Device d) {
        String name = d.name() == null ? "" : d.name();
        return "15b3".equals(d.vendorId()) || name.startsWith("Mellanox Technologies");
    }

    private static boolean isHypervisorDevice(Device d) {
        return (d.vendorId() != null && HYPERVISOR_VENDORS.contains(d.vendorId()))
                || (d.name() != null && HYPERVISOR_NAME.matcher(d.name()).matches());
    }

    private static String model(Device d) {
        if (d.name() == null) {
            return null;
        }
        String n = d.name().replaceFirst("\\s*\\[[0-9a-fA-F]{4}:[0-9a-fA-F]{4}\\]$", "");
        return n.startsWith("NVIDIA Corporation ") ? n.substring("NVIDIA Corporation ".length()) : n;
    }
}
