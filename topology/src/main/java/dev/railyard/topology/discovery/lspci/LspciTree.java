package dev.railyard.topology.discovery.lspci;

import dev.railyard.topology.InputException;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The PCI bus tree drawn by {@code lspci -t} ({@code -tv}, {@code -tvn}, {@code -tvnn}), read back into devices
 * with their place in the tree. Drawing rules (pciutils {@code ls-tree.c}, summarised in
 * {@code docs/formats/lspci-tree.md}):
 * <ul>
 *   <li>a top-level bus is {@code [dddd:bb]}; several are branches {@code +-[dddd:bb]-} / {@code \-[dddd:bb]-} off
 *       column 1 of the first line ({@code -+-[0000:00]-...});</li>
 *   <li>a device is {@code dd.f}; a bridge continues {@code -[ss]-} or {@code -[ss-uu]-} (secondary and subordinate
 *       bus) and then its secondary bus;</li>
 *   <li>a bus with one device continues {@code --dd.f}; with several, {@code +-dd.f} for the first, and each further
 *       device starts a new line with {@code +-} or, for the last, {@code \-} in the column of the first {@code +}
 *       (earlier columns hold {@code |} or blanks);</li>
 *   <li>with {@code -v} an endpoint's line ends with two blanks and its name, with {@code -nn} followed by
 *       {@code [vvvv:dddd]}, with {@code -n} only {@code vvvv:dddd}. Bridges are drawn without names.</li>
 * </ul>
 * Lines that do not start like a tree line (a prompt, a heading, prose) are skipped; one between tree lines (an
 * elision such as {@code [...]}) is reported, since devices may be missing there. Not thread-safe; one instance per
 * text.
 */
final class LspciTree {
    private static final Pattern ROOT_BUS = Pattern.compile("\\[([0-9a-fA-F]{4,8}):([0-9a-fA-F]{2})\\]");
    private static final Pattern DEVICE = Pattern.compile("([0-9a-fA-F]{2})\\.([0-7])");
    private static final Pattern BRIDGE_BUSES = Pattern.compile("-\\[([0-9a-fA-F]{2})(?:-([0-9a-fA-F]{2}))?\\]");
    private static final Pattern IDS = Pattern.compile("(?:.*\\s)?\\[?([0-9a-fA-F]{4}):([0-9a-fA-F]{4})\\]?");

    /** A bus: its domain and number, and the bridge above it (null for a top-level bus). */
    record Bus(long domain, int number, Device bridge) {
        /** @return the host bridge id in sysfs form, {@code pci0000:17}, of the tree this bus is in */
        String hostBridge() {
            Bus b = this;
            while (b.bridge() != null) {
                b = b.bridge().bus();
            }
            return String.format("pci%04x:%02x", b.domain(), b.number());
        }
    }

    /**
     * A PCI function drawn in the tree.
     *
     * @param bus      the bus it is on
     * @param device   device number
     * @param function function number
     * @param bridge   true when it is drawn as a bridge ({@code -[ss]-})
     * @param name     the name as drawn, or null ({@code lspci -t} without {@code -v}, and bridges)
     * @param vendorId vendor id when the drawing shows it ({@code -n}, {@code -nn}), lower case, else null
     * @param deviceId device id when shown, lower case, else null
     * @param line     1-based line of the text
     */
    record Device(Bus bus, int device, int function, boolean bridge, String name, String vendorId,
                  String deviceId, int line) {
        /** @return the bus id in sysfs form ({@code 0000:1a:00.0}) */
        String busId() {
            return String.format("%04x:%02x:%02x.%x", bus.domain(), bus.number(), device, function);
        }
    }

    private final String source;
    private final List<Device> devices = new ArrayList<>();
    private final List<String> warnings = new ArrayList<>();
    private final Map<Integer, Object> branchAt = new HashMap<>();
    private static final Object ROOT = new Object();
    private int firstTreeLine = -1;
    private int lastTreeLine = -1;
    private final List<Integer> skipped = new ArrayList<>();
    private boolean damaged;

    private LspciTree(String source) {
        this.source = source;
    }

    /**
     * @param source name for messages (the file path)
     * @param lines  the text, line by line
     * @return the tree
     * @throws InputException when no tree line is found, naming the source
     */
    static LspciTree read(String source, List<String> lines) {
        LspciTree t = new LspciTree(source);
        for (int i = 0; i < lines.size(); i++) {
            t.line(lines.get(i), i + 1);
        }
        if (t.firstTreeLine < 0) {
            throw new InputException(source + ":1:1: no lspci -t bus tree (a line such as -[0000:00]-+-00.0 or "
                    + "-+-[0000:00]-+-00.0) in " + lines.size() + (lines.size() == 1 ? " line" : " lines"));
        }
        for (int s : t.skipped) {
            if (s > t.firstTreeLine && s < t.lastTreeLine) {
                t.damaged = true;
                t.warnings.add(source + ":" + s + ":1: not a tree line between tree lines (an elision?): devices "
                        + "drawn there are missing");
            }
        }
        return t;
    }

    /** @return every function drawn, in drawing order */
    List<Device> devices() {
        return devices;
    }

    /** @return warnings with file, line and column */
    List<String> warnings() {
        return warnings;
    }

    /** @return true when a line could not be read whole or an elision hides devices */
    boolean damaged() {
        return damaged;
    }

    private void line(String raw, int lineNo) {
        String line = raw.replace("\r", "");
        int pos = 0;
        while (pos < line.length() && (line.charAt(pos) == ' ' || line.charAt(pos) == '|')) {
            pos++;
        }
        if (pos >= line.length()) {
            return;
        }
        char c = line.charAt(pos);
        boolean treeStart = c == '-' && pos + 1 < line.length()
                && (line.charAt(pos + 1) == '[' || line.startsWith("+-[", pos + 1));
        boolean branch = (c == '+' || c == '\\') && line.startsWith("-", pos + 1)
                && branchAt.containsKey(pos);
        if (!treeStart && !branch) {
            if ((c == '+' || c == '\\') && line.startsWith("-", pos + 1) && firstTreeLine >= 0) {
                damage(lineNo, pos + 1, "branch in column " + (pos + 1) + " has no bus above it; line skipped");
            } else {
                skipped.add(lineNo);
            }
            return;
        }
        if (firstTreeLine < 0) {
            firstTreeLine = lineNo;
        }
        lastTreeLine = lineNo;
        Object context;
        if (treeStart) {
            if (line.charAt(pos + 1) == '+') {
                branchAt.put(pos + 1, ROOT);
                pos += 3;
            } else {
                pos += 1;
            }
            context = ROOT;
        } else {
            context = branchAt.get(pos);
            pos += 2;
        }
        chain(line, lineNo, pos, context);
    }

    /** Reads one line from {@code pos} on, where the next item belongs to {@code context} (a bus, or ROOT). */
    private void chain(String line, int lineNo, int start, Object context) {
        int pos = start;
        Object ctx = context;
        while (pos < line.length()) {
            if (ctx == ROOT) {
                Matcher m = ROOT_BUS.matcher(line).region(pos, line.length());
                if (!m.lookingAt()) {
                    damage(lineNo, pos + 1, "expected a top-level bus [dddd:bb] here");
                    return;
                }
                Bus bus = new Bus(Long.parseLong(m.group(1), 16), Integer.parseInt(m.group(2), 16), null);
                pos = m.end();
                int next = busContinuation(line, pos, bus, lineNo, true);
                if (next < 0) {
                    return;
                }
                pos = next;
                ctx = bus;
                continue;
            }
            Matcher d = DEVICE.matcher(line).region(pos, line.length());
            if (!d.lookingAt()) {
                damage(lineNo, pos + 1, "expected a device dd.f here");
                return;
            }
            Bus bus = (Bus) ctx;
            int dev = Integer.parseInt(d.group(1), 16);
            int fn = Integer.parseInt(d.group(2));
            pos = d.end();
            Matcher br = BRIDGE_BUSES.matcher(line).region(pos, line.length());
            if (br.lookingAt()) {
                Device bridge = new Device(bus, dev, fn, true, null, null, null, lineNo);
                devices.add(bridge);
                Bus secondary = new Bus(bus.domain(), Integer.parseInt(br.group(1), 16), bridge);
                int next = busContinuation(line, br.end(), secondary, lineNo, false);
                if (next < 0) {
                    return;
                }
                pos = next;
                ctx = secondary;
                continue;
            }
            if (pos < line.length() && !line.substring(pos).isBlank() && !line.startsWith("  ", pos)) {
                damage(lineNo, pos + 1, "line cut short or garbled after device " + String.format("%02x.%x", dev, fn)
                        + " ('" + abbreviate(line.substring(pos).strip()) + "'); the device is left out");
                return;
            }
            endpoint(line, lineNo, pos, bus, dev, fn);
            return;
        }
    }

    /**
     * After a bus ({@code [dddd:bb]} or a bridge's {@code -[ss]}): {@code -} then {@code --dev}, {@code +-dev} or
     * nothing (an empty bus). A bridge adds one more {@code -} than a top-level bus.
     *
     * @return the position of the bus's first device, or -1 when the line ends here
     */
    private int busContinuation(String line, int pos, Bus bus, int lineNo, boolean top) {
        int p = pos;
        int dashes = top ? 1 : 2;
        for (int i = 0; i < dashes; i++) {
            if (p < line.length() && line.charAt(p) == '-') {
                p++;
            }
        }
        if (p >= line.length() || line.substring(p).isBlank()) {
            return -1;  // a bus without devices
        }
        if (line.startsWith("--", p)) {
            return p + 2;
        }
        if (line.startsWith("+-", p) || line.startsWith("\\-", p)) {
            branchAt.put(p, bus);
            return p + 2;
        }
        damage(lineNo, p + 1, "expected --, +- or \\- after bus " + String.format("%02x", bus.number()));
        return -1;
    }

    private void endpoint(String line, int lineNo, int pos, Bus bus, int dev, int fn) {
        String rest = line.substring(pos);
        String name = rest.isBlank() ? null : rest.strip();
        String vendor = null;
        String device = null;
        if (name != null) {
            Matcher ids = IDS.matcher(name);
            if (ids.matches()) {
                vendor = ids.group(1).toLowerCase(java.util.Locale.ROOT);
                device = ids.group(2).toLowerCase(java.util.Locale.ROOT);
            }
        }
        devices.add(new Device(bus, dev, fn, false, name, vendor, device, lineNo));
    }

    private static String abbreviate(String s) {
        return s.length() <= 40 ? s : s.substring(0, 37) + "...";
    }

    private void damage(int line, int col, String message) {
        damaged = true;
        warnings.add(source + ":" + line + ":" + col + ": " + message);
    }
}
