package dev.railyard.topology.discovery.sysfs;

import dev.railyard.api.topology.DiscoverySource;
import dev.railyard.api.topology.Gpu;
import dev.railyard.api.topology.GpuHcaDistance;
import dev.railyard.api.topology.Hca;
import dev.railyard.api.topology.HcaPort;
import dev.railyard.api.topology.NodeTopologySpec;
import dev.railyard.api.topology.NumaNode;
import dev.railyard.api.topology.PcieBridge;
import dev.railyard.api.topology.PcieDistance;
import dev.railyard.topology.InputException;
import dev.railyard.topology.discovery.HcaNameOrder;
import dev.railyard.topology.discovery.PciBusId;
import dev.railyard.topology.discovery.PcieDistanceClassifier;
import dev.railyard.topology.discovery.PciePath;
import dev.railyard.topology.discovery.TopologyParser;
import dev.railyard.topology.discovery.sysfs.SysfsDiscovery.GidEntry;
import dev.railyard.topology.discovery.sysfs.SysfsDiscovery.PciFunction;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Reads a node's topology from sysfs: GPUs, RDMA HCAs and their ports, the PCIe tree above them, NUMA nodes and
 * every GPU–HCA distance class. Sources: kernel ABI {@code Documentation/ABI/testing/sysfs-bus-pci} and
 * {@code sysfs-class-infiniband}; {@code docs/formats/node-topology.md} §3–§4.
 *
 * <p>Input ({@link #parse(Path)}): the root directory containing {@code sys/} ({@code /} on a live host), or the
 * {@code sys} directory itself, or a {@code .tar.gz} written by {@code railyard topology collect} (or a plain
 * {@code .tar} of such a tree; extracted to a temporary directory, deleted afterwards). What is read, relative to {@code sys/}:
 * <ul>
 *   <li>{@code bus/pci/devices/<bdf>/class} of every PCI function, {@code vendor} of display-class ones: GPUs are
 *       class {@code 0x0300xx} (VGA) or {@code 0x0302xx} (3D controller) with vendor {@code 0x10de}. GPU index =
 *       position in PCI bus id order, which is NVML's enumeration order ({@code CUDA_DEVICE_ORDER=PCI_BUS_ID}).</li>
 *   <li>{@code class/infiniband/<hca>} for HCAs, {@code device} for their PCI function. Software devices (siw, rxe)
 *       have no {@code device}: they are listed without bus id or distances so the pairing can exclude them.</li>
 *   <li>the realpath of each GPU/HCA function: {@code devices/pci<dom>:<bus>/<root port>/<USP>/<DSP>/.../<bdf>}
 *       gives the host bridge, root port and switches (every second BDF after the root port is a switch's upstream
 *       port); plus {@code numa_node} ({@code -1} = unknown), {@code device}, {@code local_cpulist} and the link
 *       speed/width attributes of each function and {@code numa_node} of each bridge.</li>
 *   <li>{@code class/infiniband/<hca>/ports/<p>/}{@code state}, {@code link_layer}, {@code rate}, {@code gids/<i>}
 *       (populated = not all zeros) and for populated entries {@code gid_attrs/types/<i>}, {@code gid_attrs/ndevs/<i>}.</li>
 *   <li>{@code class/net/<if>/device} to map netdevs to HCAs ({@code dev_port} picks the port of multi-port
 *       functions; switchdev representors, {@code phys_port_name} {@code pfNvfM}, are skipped), and
 *       {@code class/net/<if>/master} with {@code class/net/<master>/bonding} for bond membership (an HCA whose
 *       GIDs are owned by the bond itself is the bond's RoCE LAG device, {@code mlx5_bond_0}, not a member).</li>
 *   <li>{@code devices/system/node/node<N>/cpulist} and {@code devices/system/cpu/cpu<first>/topology/
 *       physical_package_id} for NUMA nodes and sockets.</li>
 * </ul>
 * Distance classes come from {@link PcieDistanceClassifier}. On a Grace host (arm64 with CPU-less NUMA nodes, the
 * GPU memory the driver onlines) a GPU alone on its root port whose {@code numa_node} has CPUs is C2C-attached, and
 * its distance to an HCA of the same NUMA node (not sharing a switch) is {@link PcieDistance#P2C}.
 * A device whose {@code numa_node} is {@code -1} is
 * treated as on the only NUMA node when the host has exactly one; otherwise it stays unknown, and unknown NUMA
 * across host bridges is SYS.
 *
 * <p>A broken symlink, an unreadable file or a malformed number adds a warning naming the path and makes the
 * result {@code complete == false}; it never throws. Informational warnings (no GPU found, a PCIe link narrower
 * than its maximum, an HCA without a PCI device that is not named like siw/rxe) leave {@code complete} true.
 * HCAs are ordered by name with numbers compared numerically ({@code mlx5_2} before {@code mlx5_10}).
 *
 * <p>Cost: one {@code lstat} per path component first seen plus one read per attribute; the PCIe realpaths are
 * resolved once per tree. Stateless; thread-safe as long as each call uses its own {@link SysfsTree}.
 */
public final class SysfsTopologyParser implements TopologyParser {
    private static final String NVIDIA_VENDOR = "0x10de";
    private static final Pattern HOST_BRIDGE = Pattern.compile("pci[0-9a-fA-F]{4,8}:[0-9a-fA-F]{2}");
    private static final Pattern NUMA_DIR = Pattern.compile("node(\\d+)");
    private static final Pattern NUMBER = Pattern.compile("\\d+");
    private static final Pattern RATE = Pattern.compile("([0-9]+(?:\\.[0-9]+)?)\\s*Gb/sec.*");
    private static final Pattern REPRESENTOR = Pattern.compile("(c\\d+)?pf\\d+(vf|sf)\\d+");
    private static final String ZERO_GID = "0000:0000:0000:0000:0000:0000:0000:0000";
    private static final String ARM64_MARKER = "devices/system/cpu/cpu0/regs/identification/midr_el1";

    /** Creates a parser; it holds no state. */
    public SysfsTopologyParser() {
    }

    /**
     * @param input a root directory containing {@code sys/}, the {@code sys} directory itself, or a {@code .tar.gz}
     *              from {@code railyard topology collect}
     * @throws InputException when the input is missing, empty, not a sysfs tree or a corrupt archive, or holds
     *                        neither an NVIDIA GPU nor an RDMA device; the message names the path
     */
    @Override
    public NodeTopologySpec parse(Path input) {
        if (Files.isRegularFile(input) && SysfsArchive.isArchive(input)) {
            return SysfsArchive.withExtracted(input, root -> {
                try {
                    NodeTopologySpec spec = read(SysfsTree.open(root));
                    return new NodeTopologySpec(spec.source(), spec.complete(),
                            spec.warnings().stream().map(w -> inArchive(w, root, input)).toList(), spec.gpus(),
                            spec.hcas(), spec.pcieBridges(), spec.numaNodes(), spec.distances(), spec.pairs(),
                            spec.excluded(), spec.locality());
                } catch (InputException e) {
                    throw new InputException(inArchive(e.getMessage(), root, input), e);
                }
            });
        }
        if (Files.isRegularFile(input) && SysfsArchive.looksLikeArchiveName(input)) {
            // named like an archive but neither gzip nor tar: "not a directory" would hide what is wrong
            throw new InputException(input + ": not a gzip or tar archive (no gzip header 1f 8b, no ustar header); "
                    + "expected a .tar.gz from 'railyard topology collect'");
        }
        return read(SysfsTree.open(input));
    }

    /**
     * Names paths inside an extracted archive after the archive ({@code snap.tar.gz!/sys/...}) instead of the
     * temporary directory, which is gone once the parse returns.
     */
    private static String inArchive(String message, Path extracted, Path archive) {
        String dir = extracted.toString();
        return message.replace(dir + extracted.getFileSystem().getSeparator(), archive + "!/")
                .replace(dir, archive + "!");
    }

    /**
     * Reads the node model from an open tree (the node agent passes {@code SysfsTree.open(Path.of("/"))}).
     *
     * @throws InputException when the tree holds neither an NVIDIA GPU nor an RDMA device
     */
    public NodeTopologySpec read(SysfsTree tree) {
        SysfsDiscovery discovery = discover(tree);
        NodeTopologySpec spec = discovery.spec();
        if (spec.gpus().isEmpty() && spec.hcas().isEmpty()) {
            throw new InputException(tree.sysDir() + ": no NVIDIA GPU (vendor 0x10de, class 0x0300/0x0302) under "
                    + tree.pathOf("bus/pci/devices") + " and no RDMA device under "
                    + tree.pathOf("class/infiniband"));
        }
        return spec;
    }

    /**
     * Reads everything this parser knows from an open tree. Never throws for bad content: a host with no GPU
     * gives an empty GPU list and a warning ({@code railyard topology collect} relies on this to archive any host).
     */
    public SysfsDiscovery discover(SysfsTree tree) {
        return new Pass(tree).run();
    }

    /** State of one read. */
    private static final class Pass {
        private final SysfsTree tree;
        private final List<String> notes = new ArrayList<>();
        private boolean damaged;
        private final Map<PciBusId, PciFunction> functions = new TreeMap<>();
        private final Map<String, PcieBridge> bridges = new LinkedHashMap<>();
        private final Map<String, Integer> hostBridgeNuma = new LinkedHashMap<>();

        Pass(SysfsTree tree) {
            this.tree = tree;
        }

        SysfsDiscovery run() {
            List<NumaNode> numaNodes = readNumaNodes();
            Integer onlyNuma = numaNodes.size() == 1 ? numaNodes.getFirst().id() : null;

            List<Gpu> gpus = new ArrayList<>();
            Map<Integer, PciePath> gpuPaths = new LinkedHashMap<>();
            Set<Integer> c2cGpus = readGpus(numaNodes, onlyNuma, gpus, gpuPaths);

            List<String> hcaNames = new ArrayList<>(tree.list("class/infiniband"));
            hcaNames.sort(HcaNameOrder.INSTANCE);
            Map<String, PciBusId> hcaDevice = new LinkedHashMap<>();
            Map<String, PciePath> hcaPaths = new LinkedHashMap<>();
            Map<String, Integer> hcaNuma = new LinkedHashMap<>();
            for (String name : hcaNames) {
                String deviceLink = "class/infiniband/" + name + "/device";
                int warningsBefore = tree.warnings().size();
                Optional<String> real = tree.resolve(deviceLink);
                if (real.isEmpty()) {
                    if (tree.warnings().size() > warningsBefore) {
                        damaged = true;
                    } else if (!name.startsWith("siw") && !name.startsWith("rxe")) {
                        notes.add(tree.pathOf(deviceLink) + ": HCA " + name
                                + " has no PCI device (software RDMA device?); no distance computed");
                    }
                    continue;
                }
                Optional<PciBusId> id = PciBusId.parse(lastComponent(real.get()));
                if (id.isEmpty()) {
                    damage(tree.pathOf(deviceLink) + ": points at " + real.get() + ", not a PCI function");
                    continue;
                }
                hcaDevice.put(name, id.get());
                Optional<Located> located = locate(deviceLink, name);
                located.ifPresent(l -> {
                    hcaPaths.put(name, withNuma(l.path(), onlyNuma));
                    hcaNuma.put(name, l.function().numaNode());
                });
            }

            Map<String, Map<Integer, List<String>>> netdevs = new LinkedHashMap<>();
            Map<String, String> bondOf = new LinkedHashMap<>();
            mapNetdevs(hcaDevice, netdevs, bondOf);

            List<Hca> hcas = new ArrayList<>();
            List<GidEntry> gids = new ArrayList<>();
            for (String name : hcaNames) {
                int firstGid = gids.size();
                List<HcaPort> ports = readPorts(name, netdevs.getOrDefault(name, Map.of()), gids);
                PciBusId id = hcaDevice.get(name);
                PciePath path = hcaPaths.get(name);
                String member = bondOf.get(name);
                // RoCE LAG: the bond's own RDMA device (mlx5_bond_0) sits on the first PF, whose netdev is a bond
                // member, but its GIDs belong to the bond itself. It serves the bond; it is not a member.
                boolean servesBond = member != null && gids.subList(firstGid, gids.size()).stream()
                        .anyMatch(g -> member.equals(g.netdev()));
                String bond = servesBond ? null : member;
                hcas.add(new Hca(name, id == null ? null : id.toString(), hcaNuma.get(name), ports, bond,
                        path == null ? null : path.parent()));
            }

            List<GpuHcaDistance> distances = distances(gpuPaths, hcaPaths, c2cGpus);

            List<PcieBridge> bridgeList = bridges.values().stream()
                    .map(b -> b.kind() == PcieBridge.Kind.HOST_BRIDGE
                            ? new PcieBridge(b.id(), b.kind(), null, hostBridgeNuma.get(b.id())) : b)
                    .toList();
            List<String> warnings = new ArrayList<>(tree.warnings());
            warnings.addAll(notes);
            boolean complete = !damaged && tree.warnings().isEmpty();
            NodeTopologySpec spec = new NodeTopologySpec(DiscoverySource.SYSFS, complete, warnings, gpus, hcas,
                    bridgeList, numaNodes, distances, List.of(), List.of());
            return new SysfsDiscovery(spec, List.copyOf(functions.values()), gids);
        }

        /** Every GPU–HCA class; P2C for a C2C GPU and an HCA of its NUMA node that shares no switch with it. */
        private static List<GpuHcaDistance> distances(Map<Integer, PciePath> gpuPaths, Map<String, PciePath> hcaPaths,
                                                      Set<Integer> c2cGpus) {
            List<GpuHcaDistance> distances = new ArrayList<>();
            for (Map.Entry<Integer, PciePath> gpu : gpuPaths.entrySet()) {
                for (Map.Entry<String, PciePath> hca : hcaPaths.entrySet()) {
                    PcieDistance d = PcieDistanceClassifier.classify(gpu.getValue(), hca.getValue());
                    if (c2cGpus.contains(gpu.getKey()) && d != PcieDistance.SYS && !d.isAtMost(PcieDistance.PXB)) {
                        d = PcieDistance.P2C;  // GPU over C2C to its CPU, HCA on a root port of that CPU
                    }
                    distances.add(new GpuHcaDistance(gpu.getKey(), hca.getKey(), d));
                }
            }
            return distances;
        }

        /**
         * Reads the GPUs into {@code gpus} and their places into {@code gpuPaths}.
         *
         * @return indices of the GPUs attached over NVLink-C2C ({@link #coherentGpuMemoryHost}: alone on a root
         *         port, on a NUMA node with CPUs)
         */
        private Set<Integer> readGpus(List<NumaNode> numaNodes, Integer onlyNuma, List<Gpu> gpus,
                                      Map<Integer, PciePath> gpuPaths) {
            Map<PciBusId, String> gpuEntries = findGpus();
            List<PciBusId> gpuIds = List.copyOf(gpuEntries.keySet());
            Set<Integer> c2cGpus = new TreeSet<>();
            boolean coherentHost = coherentGpuMemoryHost(numaNodes);
            for (int index = 0; index < gpuIds.size(); index++) {
                PciBusId id = gpuIds.get(index);
                Optional<Located> located = locate("bus/pci/devices/" + gpuEntries.get(id), "GPU" + index);
                Integer numa = located.map(l -> l.function().numaNode()).orElse(null);
                String parent = located.map(l -> l.path().parent()).orElse(null);
                boolean c2c = coherentHost && located.isPresent() && located.get().path().bridges().size() <= 1
                        && numaNodes.stream().anyMatch(n -> n.cpus() != null && n.id() == (numa == null ? -1 : numa));
                if (c2c) {
                    c2cGpus.add(index);
                }
                gpus.add(new Gpu(index, null, id.toString(), numa, null, List.of(), parent,
                        coherentHost ? c2c : null));
                final int gpuIndex = index;
                located.ifPresent(l -> gpuPaths.put(gpuIndex, withNuma(l.path(), onlyNuma)));
            }
            if (gpuIds.isEmpty()) {
                notes.add(tree.pathOf("bus/pci/devices") + ": no NVIDIA GPU (vendor 0x10de, class 0x0300/0x0302)");
            }
            return c2cGpus;
        }

        /**
         * A host whose GPUs reach the CPU over NVLink-C2C: an arm64 CPU (only arm64 kernels have
         * {@code devices/system/cpu/cpu0/regs/identification/midr_el1}, kernel ABI
         * {@code sysfs-devices-system-cpu}) with NUMA nodes that have memory but no CPUs, which is how the NVIDIA
         * driver onlines coherent GPU memory on Grace (nvidia-smi's {@code GPU NUMA ID}). See
         * {@code docs/formats/sysfs-grace.md}.
         */
        private boolean coherentGpuMemoryHost(List<NumaNode> numaNodes) {
            boolean cpuLess = numaNodes.stream().anyMatch(n -> n.cpus() == null);
            return cpuLess && tree.readQuietly(ARM64_MARKER).isPresent();
        }

        private void damage(String warning) {
            damaged = true;
            notes.add(warning);
        }

        /** @return GPU bus ids in bus id order (= NVML index order), each with its directory entry name */
        private Map<PciBusId, String> findGpus() {
            Map<PciBusId, String> gpus = new TreeMap<>();
            for (String entry : tree.list("bus/pci/devices")) {
                Optional<PciBusId> id = PciBusId.parse(entry);
                if (id.isEmpty()) {
                    continue;
                }
                String base = "bus/pci/devices/" + entry;
                String cls = tree.read(base + "/class").map(s -> s.toLowerCase(Locale.ROOT)).orElse("");
                if (cls.isEmpty()) {
                    damage(tree.pathOf(base) + ": PCI class unknown, cannot tell whether it is a GPU; GPU indices"
                            + " of GPUs above " + id.get() + " may be one too low");
                    continue;
                }
                if (cls.startsWith("0x0300") || cls.startsWith("0x0302")) {
                    String vendor = tree.read(base + "/vendor").map(s -> s.toLowerCase(Locale.ROOT)).orElse("");
                    if (vendor.equals(NVIDIA_VENDOR)) {
                        gpus.put(id.get(), entry);
                    }
                }
            }
            return gpus;
        }

        /** A device's function attributes and its place in the tree. */
        private record Located(PciFunction function, PciePath path) {
        }

        /**
         * Resolves a PCI function (given by a path that links to it), reads its attributes and records the bridges
         * above it.
         *
         * @param link  path of a symlink to the function ({@code bus/pci/devices/<bdf>}, {@code .../device})
         * @param label how warnings name the device ({@code GPU3}, {@code mlx5_0})
         */
        private Optional<Located> locate(String link, String label) {
            Optional<String> resolved = tree.resolve(link);
            if (resolved.isEmpty()) {
                damage(tree.pathOf(link) + ": cannot resolve the PCI function of " + label
                        + "; its distances are unknown");
                return Optional.empty();
            }
            String real = resolved.get();
            String[] parts = real.split("/");
            int hostIndex = -1;
            for (int i = 0; i < parts.length; i++) {
                if (HOST_BRIDGE.matcher(parts[i]).matches()) {
                    hostIndex = i;
                }
            }
            Optional<PciBusId> id = PciBusId.parse(parts[parts.length - 1]);
            if (hostIndex < 0 || id.isEmpty()) {
                damage(tree.pathOf(link) + ": " + label + " resolves to " + real
                        + ", which is not below a PCI host bridge (devices/pci<domain>:<bus>/...)");
                return Optional.empty();
            }
            PciFunction function = readFunction(id.get(), real, label);
            String hostBridge = parts[hostIndex].toLowerCase(Locale.ROOT);
            bridges.putIfAbsent(hostBridge, new PcieBridge(hostBridge, PcieBridge.Kind.HOST_BRIDGE, null, null));
            List<String> units = new ArrayList<>();
            StringBuilder dir = new StringBuilder(String.join("/", List.of(parts).subList(0, hostIndex + 1)));
            int position = 0;
            for (int i = hostIndex + 1; i < parts.length - 1; i++, position++) {
                dir.append('/').append(parts[i]);
                Optional<PciBusId> bridge = PciBusId.parse(parts[i]);
                if (bridge.isEmpty()) {
                    continue;
                }
                boolean rootPort = position == 0;
                boolean upstreamPort = position % 2 == 1;
                if (!rootPort && !upstreamPort) {
                    continue;
                }
                String bridgeId = bridge.get().toString();
                if (!bridges.containsKey(bridgeId)) {
                    Integer numa = readNuma(dir + "/numa_node");
                    String parent = units.isEmpty() ? hostBridge : units.getLast();
                    bridges.put(bridgeId, new PcieBridge(bridgeId,
                            rootPort ? PcieBridge.Kind.ROOT_PORT : PcieBridge.Kind.SWITCH, parent, numa));
                    if (numa != null) {
                        hostBridgeNuma.putIfAbsent(hostBridge, numa);
                    }
                }
                units.add(bridgeId);
            }
            if (function.numaNode() != null) {
                hostBridgeNuma.putIfAbsent(hostBridge, function.numaNode());
            }
            return Optional.of(new Located(function, new PciePath(hostBridge, units, function.numaNode())));
        }

        private PciFunction readFunction(PciBusId id, String real, String label) {
            PciFunction known = functions.get(id);
            if (known != null) {
                return known;
            }
            Integer width = readInt(real + "/current_link_width");
            Integer maxWidth = readInt(real + "/max_link_width");
            PciFunction function = new PciFunction(id.toString(),
                    tree.read(real + "/class").orElse(null),
                    tree.read(real + "/vendor").orElse(null),
                    tree.read(real + "/device").orElse(null),
                    readNuma(real + "/numa_node"),
                    tree.read(real + "/local_cpulist").orElse(null),
                    tree.read(real + "/current_link_speed").orElse(null), width,
                    tree.read(real + "/max_link_speed").orElse(null), maxWidth);
            if (width != null && maxWidth != null && width > 0 && width < maxWidth) {
                notes.add(tree.pathOf(real + "/current_link_width") + ": " + label + " (" + id
                        + ") runs its PCIe link at x" + width + ", below its maximum x" + maxWidth);
            }
            functions.put(id, function);
            return function;
        }

        private static PciePath withNuma(PciePath path, Integer onlyNuma) {
            return path.numaNode() == null && onlyNuma != null
                    ? new PciePath(path.hostBridge(), path.bridges(), onlyNuma) : path;
        }

        private Integer readNuma(String rel) {
            Integer numa = readInt(rel);
            return numa == null || numa < 0 ? null : numa;
        }

        private Integer readInt(String rel) {
            Optional<String> text = tree.read(rel);
            if (text.isEmpty()) {
                return null;
            }
            try {
                return Integer.parseInt(text.get().strip());
            } catch (NumberFormatException e) {
                damage(tree.pathOf(rel) + ": \"" + text.get() + "\" is not an integer");
                return null;
            }
        }

        private List<NumaNode> readNumaNodes() {
            List<NumaNode> nodes = new ArrayList<>();
            TreeSet<Integer> ids = new TreeSet<>();
            for (String entry : tree.list("devices/system/node")) {
                Matcher m = NUMA_DIR.matcher(entry);
                if (m.matches()) {
                    ids.add(Integer.parseInt(m.group(1)));
                }
            }
            for (int id : ids) {
                String cpus = tree.read("devices/system/node/node" + id + "/cpulist").orElse(null);
                Integer socket = null;
                if (cpus != null && !cpus.isEmpty()) {
                    Matcher first = NUMBER.matcher(cpus);
                    if (first.lookingAt()) {
                        socket = readInt("devices/system/cpu/cpu" + first.group()
                                + "/topology/physical_package_id");
                    }
                }
                nodes.add(new NumaNode(id, socket, cpus == null || cpus.isEmpty() ? null : cpus));
            }
            return nodes;
        }

        private void mapNetdevs(Map<String, PciBusId> hcaDevice, Map<String, Map<Integer, List<String>>> netdevs,
                                Map<String, String> bondOf) {
            Map<PciBusId, List<String>> hcasOfDevice = new LinkedHashMap<>();
            hcaDevice.forEach((hca, id) -> hcasOfDevice.computeIfAbsent(id, k -> new ArrayList<>()).add(hca));
            for (String netdev : tree.list("class/net")) {
                String base = "class/net/" + netdev;
                Optional<String> device = tree.resolve(base + "/device");
                if (device.isEmpty()) {
                    continue;
                }
                Optional<PciBusId> id = PciBusId.parse(lastComponent(device.get()));
                List<String> owners = id.map(hcasOfDevice::get).orElse(null);
                if (owners == null) {
                    continue;
                }
                String portName = tree.readQuietly(base + "/phys_port_name").orElse("");
                if (REPRESENTOR.matcher(portName).matches()) {
                    continue;
                }
                Integer devPort = readInt(base + "/dev_port");
                int port = (devPort == null ? 0 : devPort) + 1;
                String bond = tree.resolve(base + "/master")
                        .map(SysfsTopologyParser::lastComponent)
                        .filter(master -> tree.isDirectory("class/net/" + master + "/bonding"))
                        .orElse(null);
                for (String hca : owners) {
                    netdevs.computeIfAbsent(hca, k -> new TreeMap<>())
                            .computeIfAbsent(port, k -> new ArrayList<>()).add(netdev);
                    if (bond != null) {
                        bondOf.putIfAbsent(hca, bond);
                    }
                }
            }
        }

        private List<HcaPort> readPorts(String hca, Map<Integer, List<String>> netdevsByPort, List<GidEntry> gids) {
            String portsDir = "class/infiniband/" + hca + "/ports";
            List<Integer> numbers = tree.list(portsDir).stream().filter(n -> NUMBER.matcher(n).matches())
                    .map(Integer::parseInt).sorted().toList();
            List<HcaPort> ports = new ArrayList<>();
            for (int number : numbers) {
                String base = portsDir + "/" + number;
                String state = tree.read(base + "/state").map(Pass::portState).orElse(null);
                String linkLayer = tree.read(base + "/link_layer").orElse(null);
                Integer rate = tree.read(base + "/rate").map(r -> parseRate(r, base + "/rate")).orElse(null);
                List<String> portNetdevs = netdevsByPort.get(number);
                if (portNetdevs == null && numbers.size() == 1 && netdevsByPort.size() == 1) {
                    portNetdevs = netdevsByPort.values().iterator().next();
                }
                Integer gidTableSize = readGids(hca, number, base, gids);
                ports.add(new HcaPort(number, linkLayer, state, rate,
                        portNetdevs == null ? List.of() : portNetdevs.stream().sorted().toList(), gidTableSize));
            }
            return ports;
        }

        private Integer readGids(String hca, int port, String base, List<GidEntry> gids) {
            if (!tree.isDirectory(base + "/gids")) {
                return null;
            }
            List<Integer> indices = tree.list(base + "/gids").stream().filter(n -> NUMBER.matcher(n).matches())
                    .map(Integer::parseInt).sorted().toList();
            int populated = 0;
            for (int index : indices) {
                Optional<String> gid = tree.read(base + "/gids/" + index);
                if (gid.isEmpty() || gid.get().equals(ZERO_GID)) {
                    continue;
                }
                populated++;
                gids.add(new GidEntry(hca, port, index, gid.get(),
                        tree.readQuietly(base + "/gid_attrs/types/" + index).orElse(null),
                        tree.readQuietly(base + "/gid_attrs/ndevs/" + index).orElse(null)));
            }
            return populated;
        }

        /** {@code "4: ACTIVE"} -> {@code ACTIVE} (the kernel prints the IB port state number and its name). */
        private static String portState(String text) {
            int colon = text.indexOf(':');
            return colon < 0 ? text : text.substring(colon + 1).strip();
        }

        /** {@code "400 Gb/sec (4X NDR)"} -> 400; fractional rates ({@code 2.5 Gb/sec}) are rounded. */
        private Integer parseRate(String text, String rel) {
            Matcher m = RATE.matcher(text);
            if (!m.matches()) {
                damage(tree.pathOf(rel) + ": \"" + text + "\" is not a rate in Gb/sec");
                return null;
            }
            return (int) Math.round(Double.parseDouble(m.group(1)));
        }
    }

    private static String lastComponent(String path) {
        int slash = path.lastIndexOf('/');
        return slash < 0 ? path : path.substring(slash + 1);
    }
}
