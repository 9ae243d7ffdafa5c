package dev.railyard.scheduler.protocol;

import dev.railyard.scheduler.input.ObjectNames;

import java.util.List;

/**
 * The cluster's node names, looked up by the characters a request carries, so a reader takes the cluster's own
 * {@link String} for a name instead of making one. A kube filter names every node (5,000 at 5,000 nodes): with the
 * cluster's instances its names cost no allocation, and every later lookup by name (the snapshot's index, the cached
 * answers) matches by identity before it compares characters (docs/performance.md, issue 14).
 *
 * <p>Holds only names that are valid DNS-1123 subdomains ({@link ObjectNames#subdomainProblem}), so a name it finds
 * needs no further check; anything else ({@link #find} gives null) is read and checked as before. Lookups compare
 * every character, so the answer is a string equal to the request's name or null; never a different name.
 *
 * <p>Immutable and thread-safe. An open-addressing table of {@code long}s (hash in the high half, position + 1 in
 * the low), at most half full, and the names' characters in one array: a lookup reads two arrays, not three objects.
 */
public final class KnownNames {
    /** No names: every lookup gives null. */
    public static final KnownNames NONE = new KnownNames(List.of());

    private final List<String> source;
    private final String[] names;
    private final long[] slots;
    /** 32 − log2(slots): the bits of a mixed hash code that pick the first slot. */
    private final int shift;
    private final int[] starts;
    private final char[] chars;

    private KnownNames(List<String> source) {
        this.source = source;
        this.names = source.stream().filter(n -> ObjectNames.subdomainProblem(n).isEmpty()).toArray(String[]::new);
        this.starts = new int[names.length + 1];
        for (int k = 0; k < names.length; k++) {
            starts[k + 1] = starts[k] + names[k].length();
        }
        this.chars = new char[starts[names.length]];
        this.slots = new long[Math.max(2, Integer.highestOneBit(Math.max(1, names.length) * 2 - 1) << 1)];
        this.shift = 32 - Integer.numberOfTrailingZeros(slots.length);
        int mask = slots.length - 1;
        for (int k = 0; k < names.length; k++) {
            names[k].getChars(0, names[k].length(), chars, starts[k]);
            int h = names[k].hashCode();
            int i = first(h);
            while (slots[i] != 0) {
                i = (i + 1) & mask;
            }
            slots[i] = ((long) h << 32) | (k + 1);
        }
    }

    /**
     * @param names the cluster's node names, each at most once (a snapshot's list); kept, not copied
     * @return a table of the valid ones
     */
    public static KnownNames of(List<String> names) {
        return names.isEmpty() ? NONE : new KnownNames(names);
    }

    /** @return the list this table was made from (the same instance), to tell when to make a new one */
    public List<String> source() {
        return source;
    }

    /** @return how many names the table holds */
    public int size() {
        return names.length;
    }

    /**
     * @param text   characters holding the name, as a JSON parser hands them out
     * @param offset where the name starts in {@code text}
     * @param length how many characters it has
     * @return the table's string with exactly these characters, or null when it holds none
     */
    public String find(char[] text, int offset, int length) {
        int h = 0;
        for (int j = 0; j < length; j++) {
            h = 31 * h + text[offset + j]; // String.hashCode's function, so a name's own hash code is its slot's
        }
        int mask = slots.length - 1;
        for (int i = first(h); slots[i] != 0; i = (i + 1) & mask) {
            long s = slots[i];
            if ((int) (s >>> 32) != h) {
                continue;
            }
            int k = (int) s - 1;
            int start = starts[k];
            if (starts[k + 1] - start == length && same(text, offset, start, length)) {
                return names[k];
            }
        }
        return null;
    }

    private boolean same(char[] text, int offset, int start, int length) {
        for (int j = 0; j < length; j++) {
            if (chars[start + j] != text[offset + j]) {
                return false;
            }
        }
        return true;
    }

    /**
     * The first slot for a hash code: its product with 2^32 / φ, top bits (Fibonacci hashing). Names that differ only
     * in their last characters (gpu-00001, gpu-00002, …) have nearly consecutive hash codes; taken as they are they
     * fill long runs of neighbouring slots that a lookup of an absent name walks to the end, and the product spreads
     * them over the table.
     */
    private int first(int h) {
        return (h * 0x9E3779B9) >>> shift;
    }

    /** @return the longest run of occupied slots, wrapping around the end: the most a lookup can probe */
    int longestRun() {
        int longest = 0;
        int run = 0;
        for (int pass = 0; pass < 2; pass++) {
            for (long s : slots) {
                run = s == 0 ? 0 : run + 1;
                longest = Math.max(longest, Math.min(run, slots.length));
            }
        }
        return longest;
    }
}
