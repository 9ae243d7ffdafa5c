package dev.railyard.scheduler.protocol.volcano;

import dev.railyard.scheduler.protocol.WireFormatException;
import dev.railyard.scheduler.protocol.WireResources;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.lifecycle.AfterContainer;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The Volcano NodeInfo fast path ({@link NodeNameScan}) gives exactly the verdict of the full Jackson parse on
 * every input: the same node names and task, or the same refusal with the same reason. Each case mutates a real
 * captured predicate or prioritize body (wire/captured/volcano/, sent by vc-scheduler v1.14.1), or the composed
 * v1.15 predicate whose Node and pods carry managedFields (escaped keys), at a random place,
 * mostly inside the node list the fast path reads: a byte replaced by one that matters to JSON (quotes,
 * brackets, control bytes, UTF-8 lead and continuation bytes), a snippet inserted (bad escapes, malformed and
 * overlong UTF-8, surrogates, numbers JSON or the limits refuse, broken literals, duplicate and reordered keys,
 * nesting around the 128 limit), or bytes deleted. 10,000 cases per run.
 */
class NodeNameScanDifferentialTest {

    /** A real body, the key of its node list and where that value starts. */
    record Base(String resource, String key, byte[] body, int nodesAt) {
        static Base of(String resource, String key) {
            byte[] body = WireResources.load(resource);
            String text = new String(body, StandardCharsets.UTF_8);
            int at = text.indexOf("\"" + key + "\":") + key.length() + 3;
            while (Character.isWhitespace(text.charAt(at))) {
                at++;
            }
            return new Base(resource, key, body, text.substring(0, at).getBytes(StandardCharsets.UTF_8).length);
        }
    }

    static final List<Base> BASES = List.of(
            Base.of("captured/volcano/predicate-v1.14.1.json", "node"),
            Base.of("captured/volcano/prioritize-v1.14.1.json", "nodes"),
            // composed from Go types with managedFields, whose keys are escaped JSON (k:{\"uid\":...})
            Base.of("volcano/predicate-v1.15.json", "node"));

    /** What a reader answered: the names (and task), or the refusal. */
    record Verdict(String value) {
        static Verdict of(byte[] body, String key, boolean fast) {
            try {
                var r = VolcanoRequestReader.readTaskRequest(body, "volcano test", key, fast);
                return new Verdict("ok " + r.task() + " " + r.task().requests() + " " + r.nodes());
            } catch (WireFormatException e) {
                return new Verdict("refused " + e.kind() + ": " + e.getMessage());
            }
        }
    }

    static final AtomicInteger CASES = new AtomicInteger();
    static final AtomicInteger ACCEPTED = new AtomicInteger();
    static final AtomicInteger SCANNED = new AtomicInteger();
    static final AtomicInteger DIFFERED = new AtomicInteger();

    @Property(tries = 10_000, seed = "")
    void fastPathVerdictEqualsTheFullParse(@ForAll("mutated") Mutated m) {
        Verdict fast = Verdict.of(m.body(), m.base().key(), true);
        Verdict full = Verdict.of(m.body(), m.base().key(), false);
        CASES.incrementAndGet();
        if (!fast.equals(full)) {
            DIFFERED.incrementAndGet();
        }
        assertThat(fast).as("%s: %s", m.base().resource(), m.what()).isEqualTo(full);
        if (full.value().startsWith("ok")) {
            ACCEPTED.incrementAndGet();
            int at = m.base().nodesAt();
            if (at <= m.body().length && NodeNameScan.scanLastValue(m.body(), at, "nodes".equals(m.base().key())) != null) {
                SCANNED.incrementAndGet();
            }
        }
    }

    /**
     * At least 10,000 cases ran (jqwik could run fewer, e.g. with exhaustive generation or a lowered default), and
     * they are not vacuous: both verdicts occur often, and many accepted bodies went through the scan.
     */
    @AfterContainer
    static void bothVerdictsWereExercised() {
        int cases = CASES.get();
        System.out.printf("[differential] %d cases: %d accepted (%d through the scan), %d refused; %.1f s CPU on "
                        + "this thread (load %.1f)%n", cases, ACCEPTED.get(), SCANNED.get(), cases - ACCEPTED.get(),
                java.lang.management.ManagementFactory.getThreadMXBean().getCurrentThreadCpuTime() / 1e9,
                java.lang.management.ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage());
        if (DIFFERED.get() > 0) {
            return; // a failing run stops early and shrinks; its own failure is what matters
        }
        assertThat(cases).as("cases run").isGreaterThanOrEqualTo(10_000);
        assertThat(ACCEPTED.get()).as("accepted of %d", cases).isGreaterThan(cases / 10);
        assertThat(cases - ACCEPTED.get()).as("refused of %d", cases).isGreaterThan(cases / 10);
        assertThat(SCANNED.get()).as("accepted through the scan").isGreaterThan(ACCEPTED.get() / 2);
    }

    /** A mutated body and what was done to it. */
    record Mutated(Base base, byte[] body, String what) {
        @Override
        public String toString() {
            return what;
        }
    }

    private static final byte[] BYTES = {0x00, 0x01, 0x08, 0x1f, 0x7f, (byte) 0x80, (byte) 0xbf, (byte) 0xc0,
            (byte) 0xc1, (byte) 0xc2, (byte) 0xe0, (byte) 0xed, (byte) 0xef, (byte) 0xf0, (byte) 0xf4, (byte) 0xf5,
            (byte) 0xff, '"', '\\', '{', '}', '[', ']', ',', ':', ' ', '\n', '\t', 'a', '0', '1', '-', '+', '.', 'e',
            'E', 'u', 't', 'f', 'n', '/'};

    private static final List<String> SNIPPETS = List.of("\\", "\\u12", "\\uzzzz", "\\u00e9", "\\ud800", "\\x", "\\'",
            "\"", "\\\"", "\u0001", "\u007f", "\u0085", "\u2028", "é", "中", "😀", "01", "-", "-0", "1.", ".5", "1e", "1e+",
            "1E-7", "NaN", "Infinity", "tru", "nul", "truex", "true", "null", ",", ",,", ":", "{}", "[]", "{", "}", "[",
            "]", "[[[[", "]]]]", "\"a\":1,", "\"a\":1,\"a\":2", "\"Name\":\"dup\",", "\"Name\":\"\",",
            "\"Name\":\"Gpu\",", "\"Name\":\"gpu\\u002da\",", "\"Name\":\"gpü\",", "\"Name\":7,", "\"Name\":null,",
            "\"Node\":{\"metadata\":{\"name\":\"n\"}},", "\"Node\":{\"metadata\":{\"name\":5}},",
            "\"Node\":{\"metadata\":{\"name\":\"a\",\"name\":\"b\"}},", "\"Idle\":{},", "\"Tasks\":{},",
            "\"x\":" + "1".repeat(64) + ",", "\"x\":" + "1".repeat(65) + ",", "\"x\":" + "1".repeat(100) + ",",
            "\"x\":" + "1".repeat(101) + ",", "\"" + "k".repeat(1025) + "\":0,", "/* c */", "// c\n", "\r\n", "\u000b");

    @Provide
    Arbitrary<Mutated> mutated() {
        Arbitrary<Base> base = Arbitraries.of(BASES);
        return base.flatMap(b -> Arbitraries.oneOf(replaced(b), inserted(b), deleted(b), nested(b), invalidUtf8(b)));
    }

    /** A position, four times in five inside the node list (the part the fast path reads). */
    private static Arbitrary<Integer> position(Base b) {
        return Arbitraries.frequencyOf(
                net.jqwik.api.Tuple.of(4, Arbitraries.integers().between(b.nodesAt(), b.body().length - 1)),
                net.jqwik.api.Tuple.of(1, Arbitraries.integers().between(0, b.body().length - 1)));
    }

    private static Arbitrary<Mutated> replaced(Base b) {
        return Combinators.combine(position(b), Arbitraries.of(bytes())).as((at, v) -> {
            byte[] m = b.body().clone();
            m[at] = v;
            return new Mutated(b, m, "byte " + at + " -> 0x" + Integer.toHexString(v & 0xff));
        });
    }

    private static Arbitrary<Mutated> inserted(Base b) {
        return Combinators.combine(position(b), Arbitraries.of(SNIPPETS)).as((at, s) ->
                new Mutated(b, splice(b.body(), at, 0, s.getBytes(StandardCharsets.UTF_8)), "insert at " + at + ": " + s));
    }

    private static Arbitrary<Mutated> deleted(Base b) {
        return Combinators.combine(position(b), Arbitraries.integers().between(1, 8)).as((at, len) ->
                new Mutated(b, splice(b.body(), at, Math.min(len, b.body().length - at), new byte[0]),
                        "delete " + len + " at " + at));
    }

    /** Nesting around the limit in place of a value inside the node list. */
    private static Arbitrary<Mutated> nested(Base b) {
        return Combinators.combine(Arbitraries.integers().between(118, 130), Arbitraries.of("[", "{\"a\":")).as((d, open) -> {
            String close = open.equals("[") ? "]" : "}";
            String value = open.repeat(d) + "0" + close.repeat(d);
            // as the value of an extra key at the start of the first NodeInfo
            int at = firstNodeInfo(b) + 1;
            return new Mutated(b, splice(b.body(), at, 0, ("\"deep\":" + value + ",").getBytes(StandardCharsets.UTF_8)),
                    "nesting " + d + " x " + open);
        });
    }

    /** Malformed, overlong or surrogate UTF-8 inside a string of the node list. */
    private static Arbitrary<Mutated> invalidUtf8(Base b) {
        byte[][] sequences = {{(byte) 0xc0, (byte) 0x80}, {(byte) 0xe0, (byte) 0x80, (byte) 0x80},
                {(byte) 0xed, (byte) 0xa0, (byte) 0x80}, {(byte) 0xf4, (byte) 0x90, (byte) 0x80, (byte) 0x80},
                {(byte) 0xf8, (byte) 0x88, (byte) 0x80, (byte) 0x80, (byte) 0x80}, {(byte) 0xe2, (byte) 0x82},
                {(byte) 0x80}, {(byte) 0xc3}, {(byte) 0xe2, (byte) 0x82, (byte) 0xac}, {(byte) 0xf0, (byte) 0x9f,
                (byte) 0x98, (byte) 0x80}};
        return Combinators.combine(Arbitraries.integers().between(b.nodesAt(), b.body().length - 1),
                Arbitraries.of(sequences)).as((at, seq) -> {
                    // just after the next quote: inside a key or string value
                    int q = at;
                    while (q < b.body().length - 1 && b.body()[q] != '"') {
                        q++;
                    }
                    return new Mutated(b, splice(b.body(), q + 1, 0, seq), "utf-8 " + hex(seq) + " at " + (q + 1));
                });
    }

    private static int firstNodeInfo(Base b) {
        int i = b.nodesAt();
        while (b.body()[i] != '{') {
            i++;
        }
        return i;
    }

    private static List<Byte> bytes() {
        List<Byte> out = new java.util.ArrayList<>();
        for (byte v : BYTES) {
            out.add(v);
        }
        return out;
    }

    static byte[] splice(byte[] body, int at, int remove, byte[] insert) {
        ByteArrayOutputStream out = new ByteArrayOutputStream(body.length + insert.length);
        out.write(body, 0, at);
        out.write(insert, 0, insert.length);
        out.write(body, at + remove, body.length - at - remove);
        return out.toByteArray();
    }

    private static String hex(byte[] seq) {
        StringBuilder sb = new StringBuilder();
        for (byte v : seq) {
            sb.append(String.format("%02x", v & 0xff));
        }
        return sb.toString();
    }
}
