package dev.railyard.topology.discovery;

import dev.railyard.api.topology.HcaPort;

import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Port state, link layer, rate, netdevs and PCI bus ids of RDMA devices, read from the text of {@code ibv_devinfo}
 * and {@code ibdev2netdev} (plain or {@code -v}), wherever such lines appear in a dump.
 *
 * <p>Formats (rdma-core {@code libibverbs/examples/devinfo.c}; MLNX_OFED {@code ibdev2netdev}):
 * <pre>
 * hca_id: mlx5_0                      ibv_devinfo: one block per device, ports indented below it
 *         port:   1
 *                 state:          PORT_DOWN (1)
 *                 active_width:   4X (2)
 *                 active_speed:   50.0 Gbps (64)
 *                 link_layer:     InfiniBand
 * mlx5_0 port 1 ==> eth2 (Up)          ibdev2netdev
 * 0000:1a:00.0 mlx5_0 (MT4129 - MCX755106AS-HEAT) ConnectX-7 fw 28.39.2048 port 1 (ACTIVE) ==> lan2 (Up)   (-v)
 * </pre>
 * Port state is the kernel's word from {@code ibv_devinfo} or {@code ibdev2netdev -v} ({@code PORT_ACTIVE},
 * {@code PORT_DOWN}, {@code ACTIVE}, {@code DOWN}); plain {@code ibdev2netdev} only shows the netdev's state, which
 * is recorded as {@code ACTIVE} for {@code (Up)} and {@code DOWN} for {@code (Down)} (on RoCE a port whose netdev
 * has no carrier is down). The rate is {@code active_speed} times the {@code active_width} lane count, in Gbit/s.
 * Lines that match neither format are ignored, so the reader can be run over a whole pasted transcript.
 */
public final class HcaPortListing {
    private static final Pattern HCA_ID = Pattern.compile("\\s*hca_id:\\s*(\\S+)\\s*");
    private static final Pattern PORT = Pattern.compile("\\s+port:\\s*(\\d+)\\s*");
    private static final Pattern STATE = Pattern.compile("\\s+state:\\s*([A-Za-z_]+).*");
    private static final Pattern LINK_LAYER = Pattern.compile("\\s+link_layer:\\s*([A-Za-z]+).*");
    private static final Pattern SPEED = Pattern.compile("\\s+active_speed:\\s*([\\d.]+)\\s*Gbps.*");
    private static final Pattern WIDTH = Pattern.compile("\\s+active_width:\\s*(\\d+)X.*");
    private static final Pattern IBDEV2NETDEV = Pattern.compile(
            "\\s*(?:(?<bus>[0-9a-fA-F]{4,8}:[0-9a-fA-F]{2}:[0-9a-fA-F]{2}\\.[0-7])\\s+)?(?<hca>[A-Za-z][\\w.-]*)\\s"
                    + ".*?\\bport\\s+(?<port>\\d+)(?:\\s+\\((?<pstate>[A-Z_]+)\\))?\\s+==>\\s+(?<netdev>\\S+)"
                    + "\\s+\\((?<nstate>\\w+)\\).*");

    /**
     * What the listing says about one RDMA device.
     *
     * @param hca      RDMA device name ({@code mlx5_0})
     * @param pciBusId bus id in sysfs form from {@code ibdev2netdev -v}, or null
     * @param ports    ports in port-number order
     * @param line     1-based line where the device first appears
     */
    public record Device(String hca, String pciBusId, List<HcaPort> ports, int line) {
        public Device {
            ports = ports == null ? List.of() : List.copyOf(ports);
        }
    }

    private final Map<String, Device> devices;

    private HcaPortListing(Map<String, Device> devices) {
        this.devices = Collections.unmodifiableMap(devices);
    }

    /**
     * @param text a transcript that may contain {@code ibv_devinfo} and {@code ibdev2netdev} output among other
     *             lines
     * @return the devices found, possibly none
     */
    public static HcaPortListing parse(String text) {
        return parse(DumpText.lines(text));
    }

    /**
     * @param lines lines of a transcript; index 0 is line 1
     * @return the devices found, possibly none
     */
    public static HcaPortListing parse(List<String> lines) {
        Map<String, Builder> builders = new LinkedHashMap<>();
        Builder devinfo = null;
        PortBuilder port = null;
        for (int i = 0; i < lines.size(); i++) {
            String line = lines.get(i);
            Matcher m;
            if (line.contains("hca_id") && (m = HCA_ID.matcher(line)).matches()) {
                devinfo = builders.computeIfAbsent(m.group(1), Builder::new).at(i + 1);
                port = null;
                continue;
            }
            if (devinfo != null) {
                if (!line.isBlank() && !Character.isWhitespace(line.charAt(0))) {
                    devinfo = null;
                    port = null;
                } else if ((m = PORT.matcher(line)).matches()) {
                    port = devinfo.port(Integer.parseInt(m.group(1)));
                    continue;
                } else if (port != null) {
                    if ((m = STATE.matcher(line)).matches()) {
                        port.state = m.group(1);
                    } else if ((m = LINK_LAYER.matcher(line)).matches()) {
                        port.linkLayer = m.group(1);
                    } else if ((m = SPEED.matcher(line)).matches()) {
                        port.speedGbps = Double.parseDouble(m.group(1));
                    } else if ((m = WIDTH.matcher(line)).matches()) {
                        port.lanes = Integer.parseInt(m.group(1));
                    }
                    continue;
                } else {
                    continue;
                }
            }
            if (line.contains("==>") && (m = IBDEV2NETDEV.matcher(line)).matches()) {
                Builder b = builders.computeIfAbsent(m.group("hca"), Builder::new).at(i + 1);
                if (m.group("bus") != null) {
                    b.pciBusId = PciBusId.parse(m.group("bus")).map(PciBusId::toString).orElse(null);
                }
                PortBuilder p = b.port(Integer.parseInt(m.group("port")));
                if (!p.netdevs.contains(m.group("netdev"))) {
                    p.netdevs.add(m.group("netdev"));
                }
                if (m.group("pstate") != null) {
                    p.state = m.group("pstate");
                } else if (p.state == null) {
                    p.state = "Up".equalsIgnoreCase(m.group("nstate")) ? "ACTIVE" : "DOWN";
                }
            }
        }
        Map<String, Device> devices = new LinkedHashMap<>();
        builders.forEach((name, b) -> devices.put(name, b.build()));
        return new HcaPortListing(devices);
    }

    /** @return devices by RDMA device name, in order of first appearance; unmodifiable */
    public Map<String, Device> devices() {
        return devices;
    }

    /** @return true when no {@code ibv_devinfo} or {@code ibdev2netdev} line was found */
    public boolean isEmpty() {
        return devices.isEmpty();
    }

    private static final class Builder {
        final String name;
        int line;
        String pciBusId;
        final Map<Integer, PortBuilder> ports = new TreeMap<>();

        Builder(String name) {
            this.name = name;
        }

        Builder at(int lineNo) {
            if (line == 0) {
                line = lineNo;
            }
            return this;
        }

        PortBuilder port(int number) {
            return ports.computeIfAbsent(number, PortBuilder::new);
        }

        Device build() {
            List<HcaPort> list = new ArrayList<>();
            ports.values().forEach(p -> list.add(p.build()));
            return new Device(name, pciBusId, list, line);
        }
    }

    private static final class PortBuilder {
        final int number;
        String state;
        String linkLayer;
        Double speedGbps;
        Integer lanes;
        final List<String> netdevs = new ArrayList<>();

        PortBuilder(int number) {
            this.number = number;
        }

        HcaPort build() {
            Integer rate = speedGbps == null ? null
                    : (int) Math.round(speedGbps * (lanes == null ? 1 : lanes));
            return new HcaPort(number, linkLayer, state, rate, netdevs, null);
        }
    }
}
