package dev.railyard.api.hints;

import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * An NCCL release a job declares it runs ({@value HintAnnotations#NCCL_VERSION}), which decides the syntax of the
 * NCCL settings Railyard writes. Facts from the NCCL source, summarised in {@code docs/formats/nccl-env.md}:
 * <ul>
 *   <li>{@link #RAIL_PLANE}: 2.30.5, the first release whose {@code NCCL_IB_HCA} entries may carry
 *       {@code <hca>:<port>:<rail>:<plane>} and which reads {@code NCCL_NET_MERGE_POLICY} (NCCL
 *       {@code docs/userguide/source/env.rst}: "since 2.30.5"; {@code src/misc/utils.cc} {@code parseStringList});</li>
 *   <li>{@link #GDR_C2C_VARIABLE}: 2.26.0, the first release reading {@code NCCL_NET_GDR_C2C} (default 0);</li>
 *   <li>{@link #GDR_C2C_DEFAULT}: 2.27.0, from which {@code NCCL_NET_GDR_C2C} defaults to 1
 *       ({@code src/graph/paths.cc}).</li>
 * </ul>
 *
 * @param major major version (2)
 * @param minor minor version (30)
 * @param patch patch version (5), 0 when the declaration leaves it out
 */
public record NcclVersion(int major, int minor, int patch) implements Comparable<NcclVersion> {
    /** First release with the rail/plane {@code NCCL_IB_HCA} grammar and {@code NCCL_NET_MERGE_POLICY}. */
    public static final NcclVersion RAIL_PLANE = new NcclVersion(2, 30, 5);
    /** First release reading {@code NCCL_NET_GDR_C2C}. */
    public static final NcclVersion GDR_C2C_VARIABLE = new NcclVersion(2, 26, 0);
    /** First release where {@code NCCL_NET_GDR_C2C} defaults to 1. */
    public static final NcclVersion GDR_C2C_DEFAULT = new NcclVersion(2, 27, 0);

    private static final Pattern FORM = Pattern.compile("v?(\\d{1,3})\\.(\\d{1,3})(?:\\.(\\d{1,3}))?(?:-\\d{1,3})?");

    public NcclVersion {
        if (major < 0 || minor < 0 || patch < 0) {
            throw new IllegalArgumentException("NCCL version parts must not be negative");
        }
    }

    /**
     * Parses a declared version: {@code 2.30}, {@code 2.30.7}, {@code 2.30.7-1} (NCCL's tag form) or {@code v2.30.7}.
     *
     * @param text the annotation value
     * @return the version, or null when {@code text} is null or blank
     * @throws IllegalArgumentException naming {@value HintAnnotations#NCCL_VERSION} and the value when it is not a
     *                                  version
     */
    public static NcclVersion parse(String text) {
        if (text == null || text.isBlank()) {
            return null;
        }
        Matcher m = FORM.matcher(text.strip().toLowerCase(Locale.ROOT));
        if (!m.matches()) {
            throw new IllegalArgumentException("annotation " + HintAnnotations.NCCL_VERSION + ": '" + abbreviate(text)
                    + "' is not an NCCL version (expected MAJOR.MINOR[.PATCH], e.g. 2.30.7)");
        }
        return new NcclVersion(Integer.parseInt(m.group(1)), Integer.parseInt(m.group(2)),
                m.group(3) == null ? 0 : Integer.parseInt(m.group(3)));
    }

    /** @return true when this release accepts {@code <hca>:<port>:<rail>:<plane>} and the merge policy */
    public boolean hasRailPlaneSyntax() {
        return compareTo(RAIL_PLANE) >= 0;
    }

    @Override
    public int compareTo(NcclVersion o) {
        int c = Integer.compare(major, o.major);
        if (c == 0) {
            c = Integer.compare(minor, o.minor);
        }
        return c != 0 ? c : Integer.compare(patch, o.patch);
    }

    @Override
    public String toString() {
        return major + "." + minor + "." + patch;
    }

    private static String abbreviate(String s) {
        return s.length() <= 40 ? s : s.substring(0, 37) + "...";
    }
}
