package dev.railyard.scheduler.hints.podenv;

import dev.railyard.topology.InputException;

import java.net.Inet4Address;
import java.net.InetAddress;
import java.net.InterfaceAddress;
import java.net.NetworkInterface;
import java.net.SocketException;
import java.net.UnknownHostException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The pod's own IPv4 addresses, per interface: what a RoCE v2 GID of the pod must hold. Read from the process's
 * network namespace with {@link NetworkInterface} (netlink/ioctl, no tools needed in the image), or from saved
 * {@code ip -o addr} output.
 */
public final class PodAddresses {

    /**
     * One IPv4 address of an interface.
     *
     * @param iface        interface name as the kernel knows it ({@code net1}; {@code ip}'s {@code @if5} suffix
     *                     removed)
     * @param address      the address
     * @param prefixLength network prefix length, 0..32
     */
    public record Address(String iface, Inet4Address address, int prefixLength) {
        public Address {
            if (prefixLength < 0 || prefixLength > 32) {
                throw new IllegalArgumentException("IPv4 prefix length must be 0..32, got " + prefixLength);
            }
        }

        @Override
        public String toString() {
            return iface + " " + address.getHostAddress() + "/" + prefixLength;
        }
    }

    private final List<Address> addresses;

    private PodAddresses(List<Address> addresses) {
        this.addresses = List.copyOf(addresses);
    }

    /** Addresses given directly (tests). */
    public static PodAddresses of(List<Address> addresses) {
        return new PodAddresses(addresses);
    }

    /**
     * The IPv4 addresses of every non-loopback interface of this process's network namespace.
     *
     * @throws SocketException when the interfaces cannot be listed
     */
    public static PodAddresses fromSystem() throws SocketException {
        List<Address> out = new ArrayList<>();
        for (NetworkInterface ni : Collections.list(NetworkInterface.getNetworkInterfaces())) {
            if (ni.isLoopback()) {
                continue;
            }
            for (InterfaceAddress ia : ni.getInterfaceAddresses()) {
                if (ia.getAddress() instanceof Inet4Address a) {
                    out.add(new Address(ni.getName(), a, ia.getNetworkPrefixLength()));
                }
            }
        }
        return new PodAddresses(out);
    }

    /**
     * Parses {@code ip -o addr show} (or {@code ip -o -4 addr}) output: one line per address,
     * {@code <index>: <ifname>[@<link>] inet <a.b.c.d>/<prefix> ...}; {@code inet6} and loopback lines are skipped.
     *
     * @throws InputException naming {@code source} and the line when an {@code inet} line has no address/prefix
     */
    public static PodAddresses parseIpAddr(String text, String source) {
        List<Address> out = new ArrayList<>();
        String[] lines = text.split("\n");
        for (int n = 0; n < lines.length; n++) {
            String[] f = lines[n].strip().split("\\s+");
            if (f.length < 4 || !f[0].matches("\\d+:") || !"inet".equals(f[2])) {
                continue;
            }
            String iface = f[1].endsWith(":") ? f[1].substring(0, f[1].length() - 1) : f[1];
            int at = iface.indexOf('@');
            if (at > 0) {
                iface = iface.substring(0, at);
            }
            String[] ap = f[3].split("/", 2);
            if (ap.length != 2 || !ap[0].matches("\\d{1,3}(\\.\\d{1,3}){3}") || !ap[1].matches("\\d{1,2}")) {
                throw new InputException(source + ":" + (n + 1) + ": expected <a.b.c.d>/<prefix> after 'inet', got '"
                        + f[3] + "'");
            }
            Inet4Address a = ipv4(ap[0], source + ":" + (n + 1));
            int prefix = Integer.parseInt(ap[1]);
            if (prefix > 32) {
                throw new InputException(source + ":" + (n + 1) + ": prefix length " + prefix + " is over 32");
            }
            if (!a.isLoopbackAddress()) {
                out.add(new Address(iface, a, prefix));
            }
        }
        return new PodAddresses(out);
    }

    /** @return every address, in source order */
    public List<Address> all() {
        return addresses;
    }

    /** @return the addresses of one interface, possibly empty */
    public List<Address> of(String iface) {
        List<Address> out = new ArrayList<>();
        for (Address a : addresses) {
            if (a.iface().equals(iface)) {
                out.add(a);
            }
        }
        return out;
    }

    /** @return interface name → its addresses, in source order */
    public Map<String, List<Address>> byInterface() {
        Map<String, List<Address>> m = new LinkedHashMap<>();
        for (Address a : addresses) {
            m.computeIfAbsent(a.iface(), k -> new ArrayList<>()).add(a);
        }
        return m;
    }

    static Set<Inet4Address> addressSet(List<Address> list) {
        Set<Inet4Address> s = new LinkedHashSet<>();
        list.forEach(a -> s.add(a.address()));
        return s;
    }

    static Inet4Address ipv4(String dotted, String where) {
        String[] parts = dotted.split("\\.");
        byte[] b = new byte[4];
        if (parts.length != 4) {
            throw new InputException(where + ": '" + dotted + "' is not an IPv4 address");
        }
        for (int i = 0; i < 4; i++) {
            int v;
            try {
                v = Integer.parseInt(parts[i]);
            } catch (NumberFormatException e) {
                v = -1;
            }
            if (v < 0 || v > 255) {
                throw new InputException(where + ": '" + dotted + "' is not an IPv4 address");
            }
            b[i] = (byte) v;
        }
        try {
            return (Inet4Address) InetAddress.getByAddress(b);
        } catch (UnknownHostException e) {
            throw new IllegalStateException(e);
        }
    }
}
