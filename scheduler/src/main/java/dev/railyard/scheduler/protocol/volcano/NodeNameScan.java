package dev.railyard.scheduler.protocol.volcano;

import dev.railyard.scheduler.protocol.WireJson;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * Fast path for the bulk of Volcano's predicate and prioritize bodies: the NodeInfo objects, of which Railyard
 * needs only {@code Name}, while the rest (the full Node and every pod on the node) is 95% of the bytes.
 *
 * <p>Walks the raw UTF-8 bytes: reads each NodeInfo's top-level keys, takes {@code Name}, and jumps over every
 * other value by matching brackets and string quotes, several times faster than tokenising it. It checks the
 * structure it skips (balanced, correctly nested brackets, terminated strings, depth ≤
 * {@value WireJson#MAX_NESTING_DEPTH}) but not each scalar token inside skipped values.
 *
 * <p>It never reports errors itself: on anything unusual (an escaped key or name, a missing name, a structural
 * problem, keys after the node list) it returns null and the caller parses the whole body with Jackson, which
 * gives the exact error or handles the unusual shape. Go writes {@code task} before {@code node}/{@code nodes}
 * (PredicateRequest/PrioritizeRequest field order), so real requests take the fast path.
 */
final class NodeNameScan {
    private static final byte[] NAME = "Name".getBytes(StandardCharsets.US_ASCII);

    private NodeNameScan() {
    }

    /**
     * Scans the node list value starting at {@code start} and checks that only the top-level object's closing
     * brace (and whitespace) follows it.
     *
     * @param array true for {@code nodes} (an array of NodeInfo), false for {@code node} (one NodeInfo)
     * @return the node names in order, or null to fall back to the full parse
     */
    static List<String> scanLastValue(byte[] b, int start, boolean array) {
        List<String> names = new ArrayList<>();
        // request object (1) > nodes array (2) > NodeInfo (3) > skipped value; the budget keeps Jackson's limit
        byte[] stack = new byte[WireJson.MAX_NESTING_DEPTH - (array ? 3 : 2)];
        int end;
        if (array) {
            end = scanArray(b, start, names, stack);
        } else {
            end = scanNodeInfo(b, start, names, stack);
        }
        if (end < 0) {
            return null;
        }
        int i = ws(b, end);
        if (i >= b.length || b[i] != '}') {
            return null;
        }
        i = ws(b, i + 1);
        return i == b.length ? names : null;
    }

    private static int scanArray(byte[] b, int i, List<String> names, byte[] stack) {
        if (i >= b.length || b[i] != '[') {
            return -1;
        }
        i = ws(b, i + 1);
        if (i < b.length && b[i] == ']') {
            return i + 1;
        }
        while (true) {
            i = scanNodeInfo(b, i, names, stack);
            if (i < 0) {
                return -1;
            }
            i = ws(b, i);
            if (i >= b.length) {
                return -1;
            }
            if (b[i] == ']') {
                return i + 1;
            }
            if (b[i] != ',') {
                return -1;
            }
            i = ws(b, i + 1);
        }
    }

    /** Scans one NodeInfo object at {@code i}; adds its Name; returns the index after it, or -1. */
    private static int scanNodeInfo(byte[] b, int i, List<String> names, byte[] stack) {
        if (i >= b.length || b[i] != '{') {
            return -1;
        }
        String name = null;
        i = ws(b, i + 1);
        if (i < b.length && b[i] == '}') {
            return -1; // no Name: let the full parse report it
        }
        while (true) {
            if (i >= b.length || b[i] != '"') {
                return -1;
            }
            int keyStart = i + 1;
            int keyEnd = plainStringEnd(b, keyStart);
            if (keyEnd < 0) {
                return -1;
            }
            i = ws(b, keyEnd + 1);
            if (i >= b.length || b[i] != ':') {
                return -1;
            }
            i = ws(b, i + 1);
            if (i >= b.length) {
                return -1;
            }
            if (equals(b, keyStart, keyEnd, NAME)) {
                if (b[i] != '"') {
                    return -1;
                }
                int valueEnd = plainStringEnd(b, i + 1);
                if (valueEnd < 0) {
                    return -1;
                }
                name = new String(b, i + 1, valueEnd - i - 1, StandardCharsets.UTF_8);
                i = valueEnd + 1;
            } else {
                i = skipValue(b, i, stack);
                if (i < 0) {
                    return -1;
                }
            }
            i = ws(b, i);
            if (i >= b.length) {
                return -1;
            }
            if (b[i] == '}') {
                if (name == null || name.isEmpty()) {
                    return -1;
                }
                names.add(name);
                return i + 1;
            }
            if (b[i] != ',') {
                return -1;
            }
            i = ws(b, i + 1);
        }
    }

    /** End quote index of a string without escapes starting at {@code i} (after the opening quote), or -1. */
    private static int plainStringEnd(byte[] b, int i) {
        for (int n = b.length; i < n; i++) {
            byte c = b[i];
            if (c == '"') {
                return i;
            }
            if (c == '\\' || (c >= 0 && c < 0x20)) {
                return -1;
            }
        }
        return -1;
    }

    /**
     * Skips one JSON value at {@code i}; returns the index after it, or -1 on a structural problem or nesting
     * deeper than {@code stack.length}.
     */
    static int skipValue(byte[] b, int i, byte[] stack) {
        int n = b.length;
        byte first = b[i];
        if (first != '{' && first != '[') {
            if (first == '"') {
                return stringEnd(b, i + 1);
            }
            int s = i;
            while (i < n) {
                byte c = b[i];
                if (c == ',' || c == '}' || c == ']' || c == ' ' || c == '\n' || c == '\r' || c == '\t') {
                    break;
                }
                if (c == '"' || c == '{' || c == '[' || c == ':') {
                    return -1;
                }
                i++;
            }
            return i > s ? i : -1;
        }
        // brackets: a stack of the opening characters
        int depth = 0;
        while (i < n) {
            byte c = b[i++];
            switch (c) {
                case '"' -> {
                    i = stringEnd(b, i);
                    if (i < 0) {
                        return -1;
                    }
                }
                case '{', '[' -> {
                    if (depth == stack.length) {
                        return -1;
                    }
                    stack[depth++] = c;
                }
                case '}' -> {
                    if (depth == 0 || stack[--depth] != '{') {
                        return -1;
                    }
                    if (depth == 0) {
                        return i;
                    }
                }
                case ']' -> {
                    if (depth == 0 || stack[--depth] != '[') {
                        return -1;
                    }
                    if (depth == 0) {
                        return i;
                    }
                }
                default -> {
                    // scalars, separators and whitespace inside a skipped value
                }
            }
        }
        return -1;
    }

    /**
     * Index after the closing quote of a string whose body starts at {@code i}, or -1 if unterminated. Looks at
     * 8 bytes at a time for a quote or a backslash (the "has zero byte" bit trick on the word XOR the pattern),
     * since strings are most of a Kubernetes object's bytes.
     */
    private static int stringEnd(byte[] b, int i) {
        int n = b.length;
        while (i < n) {
            if (i + 8 <= n) {
                long w = (long) WORD.get(b, i);
                long hits = zeroBytes(w ^ QUOTES) | zeroBytes(w ^ BACKSLASHES);
                if (hits == 0) {
                    i += 8;
                    continue;
                }
                // the lowest flagged byte is exact: jump straight to the first quote or backslash
                i += Long.numberOfTrailingZeros(hits) >>> 3;
            }
            byte c = b[i];
            if (c == '"') {
                return i + 1;
            }
            i += c == '\\' ? 2 : 1;
        }
        return -1;
    }

    private static final java.lang.invoke.VarHandle WORD =
            java.lang.invoke.MethodHandles.byteArrayViewVarHandle(long[].class, java.nio.ByteOrder.LITTLE_ENDIAN);
    private static final long QUOTES = 0x2222222222222222L;
    private static final long BACKSLASHES = 0x5C5C5C5C5C5C5C5CL;
    private static final long LOW_BITS = 0x0101010101010101L;
    private static final long HIGH_BITS = 0x8080808080808080L;

    /**
     * High bit set in each zero byte of {@code v} (and possibly in bytes above the first zero one, which is why
     * only the lowest flag is used).
     */
    private static long zeroBytes(long v) {
        return (v - LOW_BITS) & ~v & HIGH_BITS;
    }

    private static int ws(byte[] b, int i) {
        while (i < b.length) {
            byte c = b[i];
            if (c != ' ' && c != '\n' && c != '\r' && c != '\t') {
                break;
            }
            i++;
        }
        return i;
    }

    private static boolean equals(byte[] b, int from, int to, byte[] lit) {
        if (to - from != lit.length) {
            return false;
        }
        for (int k = 0; k < lit.length; k++) {
            if (b[from + k] != lit[k]) {
                return false;
            }
        }
        return true;
    }
}
