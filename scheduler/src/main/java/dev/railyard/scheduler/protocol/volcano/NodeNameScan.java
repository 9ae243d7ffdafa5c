package dev.railyard.scheduler.protocol.volcano;

import dev.railyard.scheduler.protocol.WireJson;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * Fast path for the bulk of Volcano's predicate and prioritize bodies: the NodeInfo objects, of which Railyard
 * needs only {@code Name}, while the rest (the full Node and every pod on the node) is 95% of the bytes.
 *
 * <p>Walks the raw UTF-8 bytes without building tokens, and checks everything it walks over as strictly as the
 * full parse would, or more strictly: RFC 8259 structure, numbers and literals, strings with only the escapes
 * JSON allows, no raw control characters and well-formed UTF-8 (RFC 3629: no overlong forms, no surrogates, nothing
 * above U+10FFFF), nesting within {@value WireJson#MAX_NESTING_DEPTH} levels, and no key given twice in a NodeInfo.
 *
 * <p>It never reports errors itself: on anything it does not accept (an escaped name or NodeInfo key, an escaped
 * surrogate half, a non-ASCII name, a
 * missing name, {@code Node} before {@code Name}, a number over 64 characters, a key over 1 KiB, a string over
 * 1 MiB, a structural problem, keys after the node list) it returns null and the caller parses the whole body
 * with Jackson, which then gives the verdict. So wherever it returns names, the full parse returns the same names
 * (proved by {@code NodeNameScanDifferentialTest}). Go writes {@code task} before {@code node}/{@code nodes}
 * (PredicateRequest/PrioritizeRequest field order) and {@code Name} first in a NodeInfo, so real requests take the
 * fast path.
 */
final class NodeNameScan {
    private static final byte[] NAME = "Name".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] NODE = "Node".getBytes(StandardCharsets.US_ASCII);
    /** Longest number token taken; longer ones go to the full parse (whose limit is {@link WireJson#MAX_NUMBER_LENGTH}). */
    static final int MAX_NUMBER = 64;
    /** Longest key taken, in bytes (Jackson's limit is 50,000 characters). */
    static final int MAX_KEY = 1024;
    /** Longest string value taken, in bytes. */
    static final int MAX_STRING = 1 << 20;

    private final byte[] b;
    private final int n;
    /** Opening brackets of the containers being skipped; its length is the nesting budget left. */
    private final byte[] stack;

    private NodeNameScan(byte[] b, int budget) {
        this.b = b;
        this.n = b.length;
        this.stack = new byte[Math.max(0, budget)];
    }

    /**
     * Scans the node list value starting at {@code start} and checks that only the top-level object's closing
     * brace (and whitespace) follows it.
     *
     * @param array true for {@code nodes} (an array of NodeInfo), false for {@code node} (one NodeInfo)
     * @return the node names in order, or null to fall back to the full parse
     */
    static List<String> scanLastValue(byte[] b, int start, boolean array) {
        // request object (1) > nodes array (2) > NodeInfo (3) > skipped values: Jackson's limit counts all of them
        NodeNameScan s = new NodeNameScan(b, WireJson.MAX_NESTING_DEPTH - (array ? 3 : 2));
        List<String> names = new ArrayList<>();
        int end = array ? s.scanArray(start, names) : s.scanNodeInfo(start, names);
        if (end < 0) {
            return null;
        }
        int i = s.ws(end);
        if (i >= s.n || b[i] != '}') {
            return null;
        }
        i = s.ws(i + 1);
        return i == s.n ? names : null;
    }

    private int scanArray(int i, List<String> names) {
        if (i >= n || b[i] != '[') {
            return -1;
        }
        i = ws(i + 1);
        if (i < n && b[i] == ']') {
            return i + 1;
        }
        while (true) {
            i = scanNodeInfo(i, names);
            if (i < 0) {
                return -1;
            }
            i = ws(i);
            if (i >= n) {
                return -1;
            }
            if (b[i] == ']') {
                return i + 1;
            }
            if (b[i] != ',') {
                return -1;
            }
            i = ws(i + 1);
        }
    }

    /** Scans one NodeInfo object at {@code i}; adds its Name; returns the index after it, or -1. */
    private int scanNodeInfo(int i, List<String> names) {
        if (i >= n || b[i] != '{') {
            return -1;
        }
        String name = null;
        List<int[]> keys = new ArrayList<>(24);
        i = ws(i + 1);
        while (true) {
            if (i >= n || b[i] != '"') {
                return -1; // also an empty NodeInfo: no Name, the full parse reports it
            }
            int keyStart = i + 1;
            int keyEnd = stringEnd(keyStart, MAX_KEY, false);
            if (keyEnd < 0 || repeated(keys, keyStart, keyEnd - 1)) {
                return -1;
            }
            keys.add(new int[]{keyStart, keyEnd - 1});
            i = ws(keyEnd);
            if (i >= n || b[i] != ':') {
                return -1;
            }
            i = ws(i + 1);
            if (i >= n) {
                return -1;
            }
            if (equals(keyStart, keyEnd - 1, NAME)) {
                int valueEnd = b[i] == '"' ? asciiStringEnd(i + 1) : -1;
                if (valueEnd < 0) {
                    return -1;
                }
                name = new String(b, i + 1, valueEnd - i - 2, StandardCharsets.US_ASCII);
                i = valueEnd;
            } else if (equals(keyStart, keyEnd - 1, NODE) && (name == null || name.isEmpty())) {
                return -1; // the full parse reads Node.metadata.name here
            } else {
                i = skipValue(i);
                if (i < 0) {
                    return -1;
                }
            }
            i = ws(i);
            if (i >= n) {
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
            i = ws(i + 1);
        }
    }

    /** @return whether the key bytes [from, to) equal an earlier key of the same NodeInfo */
    private boolean repeated(List<int[]> keys, int from, int to) {
        int len = to - from;
        for (int[] k : keys) {
            if (k[1] - k[0] == len && java.util.Arrays.equals(b, k[0], k[1], b, from, to)) {
                return true;
            }
        }
        return false;
    }

    private static final byte VALUE = 0;
    private static final byte KEY = 1;
    private static final byte AFTER = 2;

    /**
     * Skips one JSON value at {@code i}, checking it strictly; returns the index after it, or -1 on anything the
     * scan does not accept or nesting deeper than the budget.
     */
    int skipValue(int i) {
        int depth = 0;
        byte state = VALUE;
        while (true) {
            i = ws(i);
            if (i >= n) {
                return -1;
            }
            byte c = b[i];
            if (state == KEY) {
                if (c != '"') {
                    return -1;
                }
                // escaped keys are everywhere in managedFields (k:{\"uid\":...}); an escaped surrogate half, whose
                // pairing Jackson checks in keys, goes to the full parse (escapeEnd)
                i = ws(stringEnd(i + 1, MAX_KEY, true));
                if (i < 0 || i >= n || b[i] != ':') {
                    return -1;
                }
                i++;
                state = VALUE;
                continue;
            }
            if (state == AFTER) {
                byte open = stack[depth - 1];
                if (c == ',') {
                    state = open == '{' ? KEY : VALUE;
                    i++;
                    continue;
                }
                if ((c == '}' && open == '{') || (c == ']' && open == '[')) {
                    i++;
                    if (--depth == 0) {
                        return i;
                    }
                    continue;
                }
                return -1;
            }
            // a value
            if (c == '{' || c == '[') {
                if (depth == stack.length) {
                    return -1;
                }
                stack[depth++] = c;
                i = ws(i + 1);
                if (i < n && b[i] == (c == '{' ? '}' : ']')) {
                    i++;
                    if (--depth == 0) {
                        return i;
                    }
                    state = AFTER;
                } else {
                    state = c == '{' ? KEY : VALUE;
                }
                continue;
            }
            i = scalarEnd(i);
            if (i < 0) {
                return -1;
            }
            if (depth == 0) {
                return i;
            }
            state = AFTER;
        }
    }

    /** End of a string, number or literal starting at {@code i}, or -1. */
    private int scalarEnd(int i) {
        byte c = b[i];
        if (c == '"') {
            return stringEnd(i + 1, MAX_STRING, true);
        }
        if (c == 't') {
            return literal(i, "true");
        }
        if (c == 'f') {
            return literal(i, "false");
        }
        if (c == 'n') {
            return literal(i, "null");
        }
        return numberEnd(i);
    }

    private int literal(int i, String word) {
        if (i + word.length() > n) {
            return -1;
        }
        for (int k = 0; k < word.length(); k++) {
            if (b[i + k] != word.charAt(k)) {
                return -1;
            }
        }
        return i + word.length();
    }

    /** RFC 8259 number {@code -?(0|[1-9]\d*)(\.\d+)?([eE][+-]?\d+)?} of at most {@link #MAX_NUMBER} bytes. */
    private int numberEnd(int start) {
        int i = start;
        if (i < n && b[i] == '-') {
            i++;
        }
        if (i >= n || !digit(b[i])) {
            return -1;
        }
        if (b[i] == '0') {
            i++;
        } else {
            i = digits(i);
        }
        if (i < n && b[i] == '.') {
            if (i + 1 >= n || !digit(b[i + 1])) {
                return -1;
            }
            i = digits(i + 1);
        }
        if (i < n && (b[i] == 'e' || b[i] == 'E')) {
            i++;
            if (i < n && (b[i] == '+' || b[i] == '-')) {
                i++;
            }
            if (i >= n || !digit(b[i])) {
                return -1;
            }
            i = digits(i);
        }
        return i - start > MAX_NUMBER ? -1 : i;
    }

    private int digits(int i) {
        while (i < n && digit(b[i])) {
            i++;
        }
        return i;
    }

    private static boolean digit(byte c) {
        return c >= '0' && c <= '9';
    }

    /**
     * Index after the closing quote of a string whose body starts at {@code i}, or -1 when it is unterminated,
     * longer than {@code max} bytes, holds a raw control character, malformed UTF-8 or (with {@code escapes}
     * false, or an escape JSON does not define) a backslash. Looks at 8 bytes at a time for a byte that needs a
     * closer look (a quote, a backslash, a control character or a non-ASCII byte), since strings are most of a
     * Kubernetes object's bytes.
     */
    private int stringEnd(int i, int max, boolean escapes) {
        if (i < 0) {
            return -1;
        }
        int start = i;
        int limit = (int) Math.min(n, (long) start + max + 1);
        while (i < limit) {
            if (i + 8 <= limit) {
                long w = (long) WORD.get(b, i);
                long hits = zeroBytes(w ^ QUOTES) | zeroBytes(w ^ BACKSLASHES) | below(w, 0x20) | (w & HIGH_BITS);
                if (hits == 0) {
                    i += 8;
                    continue;
                }
                // the lowest flagged byte is exact: go straight to it
                i += Long.numberOfTrailingZeros(hits) >>> 3;
            }
            int c = b[i] & 0xff;
            if (c == '"') {
                return i + 1;
            }
            if (c == '\\') {
                i = escapes ? escapeEnd(i + 1) : -1;
            } else if (c < 0x20) {
                return -1;
            } else if (c < 0x80) {
                i++;
            } else {
                i = utf8End(i, c);
            }
            if (i < 0) {
                return -1;
            }
        }
        return -1;
    }

    /** After a backslash at {@code i - 1}: the index after the escape, or -1 for one JSON does not define. */
    private int escapeEnd(int i) {
        if (i >= n) {
            return -1;
        }
        switch (b[i]) {
            case '"', '\\', '/', 'b', 'f', 'n', 'r', 't' -> {
                return i + 1;
            }
            case 'u' -> {
                if (i + 5 > n) {
                    return -1;
                }
                int code = 0;
                for (int k = 1; k <= 4; k++) {
                    int d = Character.digit(b[i + k], 16);
                    if (d < 0) {
                        return -1;
                    }
                    code = code * 16 + d;
                }
                // a surrogate half: the full parse decides about pairing
                return code >= 0xD800 && code <= 0xDFFF ? -1 : i + 5;
            }
            default -> {
                return -1;
            }
        }
    }

    /** Index after the well-formed UTF-8 sequence whose lead byte {@code c} is at {@code i} (RFC 3629 §4), or -1. */
    private int utf8End(int i, int c) {
        int len;
        int lo = 0x80, hi = 0xBF;
        if (c >= 0xC2 && c <= 0xDF) {
            len = 2;
        } else if (c >= 0xE0 && c <= 0xEF) {
            len = 3;
            lo = c == 0xE0 ? 0xA0 : 0x80;
            hi = c == 0xED ? 0x9F : 0xBF;
        } else if (c >= 0xF0 && c <= 0xF4) {
            len = 4;
            lo = c == 0xF0 ? 0x90 : 0x80;
            hi = c == 0xF4 ? 0x8F : 0xBF;
        } else {
            return -1;
        }
        if (i + len > n) {
            return -1;
        }
        int second = b[i + 1] & 0xff;
        if (second < lo || second > hi) {
            return -1;
        }
        for (int k = 2; k < len; k++) {
            if ((b[i + k] & 0xC0) != 0x80) {
                return -1;
            }
        }
        return i + len;
    }

    /**
     * Index after the closing quote of a node name starting at {@code i}: printable ASCII only (0x20–0x7E, no
     * quote, no backslash), at most 253 bytes; -1 otherwise.
     */
    private int asciiStringEnd(int i) {
        int limit = Math.min(n, i + 254);
        for (int k = i; k < limit; k++) {
            byte c = b[k];
            if (c == '"') {
                return k + 1;
            }
            if (c < 0x20 || c == '\\' || c == 0x7f) {
                return -1;
            }
        }
        return -1;
    }

    private static final VarHandle WORD = MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);
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

    /**
     * High bit set in each byte of {@code v} below {@code limit} (&le; 0x80), exact for the lowest such byte when
     * no byte has its high bit set; bytes with it set are flagged by the caller anyway.
     */
    private static long below(long v, int limit) {
        return (v - LOW_BITS * limit) & ~v & HIGH_BITS;
    }

    private int ws(int i) {
        if (i < 0) {
            return -1;
        }
        while (i < n) {
            byte c = b[i];
            if (c != ' ' && c != '\n' && c != '\r' && c != '\t') {
                break;
            }
            i++;
        }
        return i;
    }

    private boolean equals(int from, int to, byte[] lit) {
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
