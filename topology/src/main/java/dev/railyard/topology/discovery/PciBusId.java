package dev.railyard.topology.discovery;

import java.util.Comparator;
import java.util.Locale;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A PCI address {@code domain:bus:device.function}, printed in sysfs form ({@code 0000:1a:00.0}: lower case,
 * at least four hex digits of domain).
 *
 * <p>Accepts the sysfs form, the NVML/nvidia-smi form with an 8-digit domain ({@code 00000000:1A:00.0}) and the
 * short form without a domain ({@code 1a:00.0}, domain 0). Ordering is numeric by domain, bus, device, function,
 * which is the order NVML enumerates GPUs in ({@code CUDA_DEVICE_ORDER=PCI_BUS_ID}).
 *
 * @param domain   PCI segment (domain), 0..0xffffffff as read; sysfs prints four hex digits or more
 * @param bus      bus number, 0..255
 * @param device   device number, 0..31
 * @param function function number, 0..7
 */
public record PciBusId(long domain, int bus, int device, int function) implements Comparable<PciBusId> {
    private static final Pattern FORM =
            Pattern.compile("(?:([0-9a-fA-F]{1,8}):)?([0-9a-fA-F]{1,2}):([0-9a-fA-F]{1,2})\\.([0-7])");
    private static final Comparator<PciBusId> ORDER = Comparator.comparingLong(PciBusId::domain)
            .thenComparingInt(PciBusId::bus).thenComparingInt(PciBusId::device).thenComparingInt(PciBusId::function);

    public PciBusId {
        if (domain < 0 || domain > 0xffff_ffffL || bus < 0 || bus > 0xff || device < 0 || device > 0x1f
                || function < 0 || function > 7) {
            throw new IllegalArgumentException("PCI address out of range: " + domain + ":" + bus + ":" + device
                    + "." + function);
        }
    }

    /**
     * @param text a bus id in sysfs, NVML or short form; surrounding blanks are ignored
     * @return the address, or empty when {@code text} is null or not a PCI address
     */
    public static Optional<PciBusId> parse(String text) {
        if (text == null) {
            return Optional.empty();
        }
        Matcher m = FORM.matcher(text.strip());
        if (!m.matches()) {
            return Optional.empty();
        }
        long domain = m.group(1) == null ? 0 : Long.parseLong(m.group(1), 16);
        int device = Integer.parseInt(m.group(3), 16);
        if (device > 0x1f) {
            return Optional.empty();
        }
        return Optional.of(new PciBusId(domain, Integer.parseInt(m.group(2), 16), device,
                Integer.parseInt(m.group(4), 16)));
    }

    /** @return true when {@code text} is a PCI address in one of the accepted forms. */
    public static boolean isBusId(String text) {
        return parse(text).isPresent();
    }

    /** @return the same device with function 0: the card a function belongs to. */
    public PciBusId device0() {
        return function == 0 ? this : new PciBusId(domain, bus, device, 0);
    }

    @Override
    public int compareTo(PciBusId other) {
        return ORDER.compare(this, other);
    }

    /** @return sysfs form, {@code 0000:1a:00.0}. */
    @Override
    public String toString() {
        return String.format(Locale.ROOT, "%04x:%02x:%02x.%x", domain, bus, device, function);
    }
}
