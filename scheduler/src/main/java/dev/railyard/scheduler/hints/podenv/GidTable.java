package dev.railyard.scheduler.hints.podenv;

import java.io.IOException;
import java.net.Inet4Address;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * The GID table of one RDMA port as sysfs shows it to the reading process (kernel ABI
 * {@code Documentation/ABI/testing/sysfs-class-infiniband}; docs/formats/node-topology.md §3):
 * {@code /sys/class/infiniband/<hca>/ports/<port>/gids/<i>} holds the GID as eight groups of four hex digits
 * ({@code 0000:0000:0000:0000:0000:ffff:c0a8:040c} is the IPv4-mapped 192.168.4.12), all zeros for an empty
 * entry; {@code gid_attrs/types/<i>} is {@code IB/RoCE v1} or {@code RoCE v2}, and reading it fails with EINVAL for
 * an empty entry or, inside a container, for an entry whose netdev lives in another network namespace;
 * {@code gid_attrs/ndevs/<i>} names the netdev owning the entry ({@code net1} for the pod's macvlan child).
 * {@code ports/<port>/link_layer} is {@code Ethernet} (RoCE) or {@code InfiniBand}.
 *
 * <p>Types and netdevs are read only for non-empty entries; an unreadable one is recorded as null, not an error.
 * A {@code gids/<i>} file that holds text but not a GID (a damaged snapshot, garbage) is kept as an entry without a
 * GID, so it is never picked, and named in {@link #notes()}.
 */
public final class GidTable {
    /** {@code gid_attrs/types} text of a RoCE v2 entry. */
    public static final String ROCE_V2 = "RoCE v2";
    private static final Pattern INDEX = Pattern.compile("\\d{1,5}");
    private static final Pattern GROUP = Pattern.compile("[0-9a-fA-F]{4}");

    /**
     * One GID table entry.
     *
     * @param index GID index (what {@code NCCL_IB_GID_INDEX} and {@code ib_write_bw -x} take)
     * @param gid   the 16 GID bytes, or null when the file did not hold a GID
     * @param type  {@code RoCE v2}, {@code IB/RoCE v1}, or null when unreadable (EINVAL) or not read
     * @param ndev  owning netdev, or null when unreadable or not read
     */
    public record Entry(int index, byte[] gid, String type, String ndev) {
        /** @return true for an all-zero (unused) or unreadable GID */
        public boolean isEmpty() {
            if (gid == null) {
                return true;
            }
            for (byte b : gid) {
                if (b != 0) {
                    return false;
                }
            }
            return true;
        }

        /** @return the IPv4 address of an IPv4-mapped GID ({@code ::ffff:a.b.c.d}), or null */
        public Inet4Address ipv4() {
            if (gid == null) {
                return null;
            }
            for (int i = 0; i < 10; i++) {
                if (gid[i] != 0) {
                    return null;
                }
            }
            if ((gid[10] & 0xff) != 0xff || (gid[11] & 0xff) != 0xff) {
                return null;
            }
            try {
                return (Inet4Address) InetAddress.getByAddress(Arrays.copyOfRange(gid, 12, 16));
            } catch (UnknownHostException e) {
                throw new IllegalStateException(e);
            }
        }

        /** @return true when {@code gid_attrs/types} read {@code RoCE v2} */
        public boolean isRoceV2() {
            return ROCE_V2.equals(type);
        }

        @Override
        public boolean equals(Object o) {
            return o instanceof Entry e && e.index == index && Arrays.equals(e.gid, gid)
                    && Objects.equals(e.type, type) && Objects.equals(e.ndev, ndev);
        }

        @Override
        public int hashCode() {
            return Objects.hash(index, Arrays.hashCode(gid), type, ndev);
        }

        @Override
        public String toString() {
            Inet4Address v4 = ipv4();
            return "[" + index + "] " + (gid == null ? "unreadable" : v4 != null ? v4.getHostAddress() : "non-IPv4")
                    + " " + (type == null ? "type unreadable" : type) + (ndev == null ? "" : " " + ndev);
        }
    }

    private final String hca;
    private final int port;
    private final String linkLayer;
    private final List<Entry> entries;
    private final List<String> notes;

    private GidTable(String hca, int port, String linkLayer, List<Entry> entries, List<String> notes) {
        this.hca = hca;
        this.port = port;
        this.linkLayer = linkLayer;
        this.entries = List.copyOf(entries);
        this.notes = List.copyOf(notes);
    }

    /**
     * Reads the table of {@code <sysRoot>/class/infiniband/<hca>/ports/<port>}.
     *
     * @param sysRoot the {@code /sys} directory (a fake tree in tests)
     * @param hca     RDMA device name, already checked to be a plain name
     * @throws IOException when the port or its {@code gids} directory does not exist or cannot be listed; the
     *                     message names the path
     */
    public static GidTable read(Path sysRoot, String hca, int port) throws IOException {
        Path portDir = sysRoot.resolve("class/infiniband").resolve(hca).resolve("ports").resolve(Integer.toString(port));
        Path gids = portDir.resolve("gids");
        if (!Files.isDirectory(gids)) {
            throw new NoSuchFileException(gids.toString(), null, "no such GID directory");
        }
        List<Integer> indices = new ArrayList<>();
        try (DirectoryStream<Path> ds = Files.newDirectoryStream(gids)) {
            for (Path p : ds) {
                String name = p.getFileName().toString();
                if (INDEX.matcher(name).matches()) {
                    indices.add(Integer.parseInt(name));
                }
            }
        }
        indices.sort(Comparator.naturalOrder());
        List<Entry> entries = new ArrayList<>(indices.size());
        List<String> notes = new ArrayList<>();
        for (int i : indices) {
            Path file = gids.resolve(Integer.toString(i));
            String text = readOrNull(file);
            byte[] gid = parseGid(text);
            if (gid == null && text != null) {
                notes.add(file + ": '" + shorten(text) + "' is not a GID (8 groups of 4 hex digits); entry " + i
                        + " ignored");
            }
            Entry e = new Entry(i, gid, null, null);
            if (!e.isEmpty()) {
                e = new Entry(i, gid, readOrNull(portDir.resolve("gid_attrs/types").resolve(Integer.toString(i))),
                        readOrNull(portDir.resolve("gid_attrs/ndevs").resolve(Integer.toString(i))));
            }
            entries.add(e);
        }
        return new GidTable(hca, port, readOrNull(portDir.resolve("link_layer")), entries, notes);
    }

    /** A table from given entries (tests, snapshots). */
    public static GidTable of(String hca, int port, String linkLayer, List<Entry> entries) {
        return new GidTable(hca, port, linkLayer, entries, List.of());
    }

    /** @return {@code gids/<i>} files whose text is not a GID, one line each naming the file; empty normally */
    public List<String> notes() {
        return notes;
    }

    private static String shorten(String text) {
        String t = text.replaceAll("\\p{Cntrl}", "?");
        return t.length() > 60 ? t.substring(0, 60) + "..." : t;
    }

    /** @return the RDMA device name */
    public String hca() {
        return hca;
    }

    /** @return the port number, 1-based */
    public int port() {
        return port;
    }

    /** @return {@code Ethernet}, {@code InfiniBand}, or null when unknown */
    public String linkLayer() {
        return linkLayer;
    }

    /** @return every entry, ascending by index */
    public List<Entry> entries() {
        return entries;
    }

    /**
     * The entry NCCL should use for this port in this pod: the lowest-index entry that is RoCE v2, IPv4-mapped,
     * holds one of {@code addresses}, and, when its netdev is readable, belongs to one of {@code ndevs}.
     *
     * @param addresses the pod's own IPv4 addresses on the rail's interface
     * @param ndevs     the names of the interfaces holding them
     */
    public Optional<Entry> roceV2For(Set<Inet4Address> addresses, Set<String> ndevs) {
        for (Entry e : entries) {
            Inet4Address a = e.ipv4();
            if (a != null && e.isRoceV2() && addresses.contains(a) && (e.ndev() == null || ndevs.contains(e.ndev()))) {
                return Optional.of(e);
            }
        }
        return Optional.empty();
    }

    /** @return entries holding one of {@code addresses} whatever their type (for explaining a miss) */
    public List<Entry> holding(Set<Inet4Address> addresses) {
        List<Entry> out = new ArrayList<>();
        for (Entry e : entries) {
            Inet4Address a = e.ipv4();
            if (a != null && addresses.contains(a)) {
                out.add(e);
            }
        }
        return out;
    }

    /** Parses {@code xxxx:xxxx:...} (8 groups of 4 hex digits); null when the text is not a GID. */
    static byte[] parseGid(String text) {
        if (text == null) {
            return null;
        }
        String[] groups = text.strip().split(":", -1);
        if (groups.length != 8) {
            return null;
        }
        byte[] b = new byte[16];
        for (int g = 0; g < 8; g++) {
            if (!GROUP.matcher(groups[g]).matches()) {
                return null;
            }
            int v = Integer.parseInt(groups[g], 16);
            b[2 * g] = (byte) (v >>> 8);
            b[2 * g + 1] = (byte) v;
        }
        return b;
    }

    /** Reads a small sysfs attribute, trimmed; null when it cannot be read (EINVAL, missing, a directory). */
    static String readOrNull(Path p) {
        try {
            return new String(Files.readAllBytes(p), StandardCharsets.UTF_8).strip();
        } catch (IOException | RuntimeException e) {
            return null;
        }
    }
}
