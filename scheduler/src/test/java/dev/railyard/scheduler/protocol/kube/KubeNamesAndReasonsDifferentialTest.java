package dev.railyard.scheduler.protocol.kube;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import dev.railyard.scheduler.engine.NodeVerdict;
import dev.railyard.scheduler.engine.Reason;
import dev.railyard.scheduler.engine.ReasonCode;
import dev.railyard.scheduler.engine.Status;
import dev.railyard.scheduler.input.ObjectNames;
import dev.railyard.scheduler.protocol.KnownNames;
import dev.railyard.scheduler.protocol.PodJson;
import dev.railyard.scheduler.protocol.RecordingDecisions;
import dev.railyard.scheduler.protocol.WireFormatException;
import dev.railyard.scheduler.protocol.WireJson;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.Test;

import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.Random;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicReference;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

/**
 * Hostile differential tests of the kube adapter's fast paths (node names read as the cluster's strings, reasons
 * written from their kept encoding; docs/adr/0008, amendment "a kube filter's names and reasons") against the way
 * names and reasons were read and written before them (commit 0ff043d's {@code readNames} loop and
 * {@code writeStringField}, copied below as the reference): names with JSON escapes, surrogates, look-alike letters,
 * hash collisions and lengths across Jackson's buffers; reasons with every character JSON escapes, around Jackson's
 * segment and buffer sizes. Written by a reviewer trying to make the two differ.
 */
class KubeNamesAndReasonsDifferentialTest {
    private static final String POD = "{\"metadata\":{\"name\":\"p\",\"namespace\":\"ml\",\"uid\":\"u\"},"
            + "\"spec\":{\"containers\":[{\"name\":\"c\"}]}}";

    private static byte[] body(String namesJson) {
        return ("{\"Pod\":" + POD + ",\"Nodes\":null,\"NodeNames\":" + namesJson + "}")
                .getBytes(StandardCharsets.UTF_8);
    }

    /** The reference: {@code readNames} as it was (0ff043d), verbatim but for the surrounding readArgs. */
    private static List<String> parentNames(byte[] body) throws Exception {
        try {
            return parentNames0(body);
        } catch (java.io.IOException e) {
            throw WireJson.translate(e, "kube filter");
        }
    }

    private static List<String> parentNames0(byte[] body) throws Exception {
        try (JsonParser p = WireJson.factory().createParser(body)) {
            p.nextToken();
            while (p.nextToken() == JsonToken.FIELD_NAME) {
                String key = p.currentName();
                p.nextToken();
                if (!key.equals("NodeNames")) {
                    p.skipChildren();
                    continue;
                }
                List<String> out = new ArrayList<>();
                while (p.nextToken() != JsonToken.END_ARRAY) {
                    String n = p.getText();
                    if (n.isEmpty()) {
                        throw WireJson.missing("kube filter", "NodeNames[" + out.size() + "] is an empty node name");
                    }
                    Optional<String> problem = ObjectNames.subdomainProblem(n);
                    if (problem.isPresent()) {
                        PodJson.checkName("kube filter", "NodeNames[" + out.size() + "]", n, problem);
                    }
                    out.add(n);
                }
                return out;
            }
        }
        return null;
    }

    private static String outcome(ThrowingSupplier s) {
        try {
            return "ok " + s.get();
        } catch (WireFormatException e) {
            return "refused " + e.kind() + " " + e.getMessage();
        } catch (Exception e) {
            return "threw " + e;
        }
    }

    interface ThrowingSupplier {
        Object get() throws Exception;
    }

    private static String escapeSome(String n, Random r) {
        StringBuilder b = new StringBuilder();
        for (char c : n.toCharArray()) {
            int k = r.nextInt(6);
            if (k == 0) {
                b.append(String.format(Locale.ROOT, "\\u%04x", (int) c));
            } else if (k == 1) {
                b.append(String.format(Locale.ROOT, "\\u%04X", (int) c));
            } else {
                b.append(c);
            }
        }
        return b.toString();
    }

    private static String jsonString(String raw) {
        return "\"" + raw + "\"";
    }

    @Test
    void readerAgreesWithTheParentOnHostileNames() throws Exception {
        Random r = new Random(42);
        List<String> cluster = new ArrayList<>();
        for (int i = 0; i < 3000; i++) {
            cluster.add(String.format(Locale.ROOT, "gpu-%05d", i));
        }
        // String.hashCode collisions among valid names ("ac0"/"aan": 2*31 == 'n'-'0')
        cluster.addAll(List.of("ac0", "aan", "gpu-5359jz", "gpu-3q3wjz", "a".repeat(253), "x.y-z.0",
                "BAD", "bad_", "", "a".repeat(254)));
        KnownNames known = KnownNames.of(cluster);
        String[] hostile = {"\\ud800", "\\udc00", "\\ud83d\\ude00", "é", "\\u00e9", "\\u0000", "\\n", "\\\"",
                "\\\\", "\\/", "A", "_", ".", "-", " ", "\\u0130", "\\u212a", "ａ"};
        for (int iter = 0; iter < 4000; iter++) {
            StringBuilder arr = new StringBuilder("[");
            int n = r.nextInt(6);
            for (int j = 0; j < n; j++) {
                if (j > 0) {
                    arr.append(',');
                }
                String base = cluster.get(r.nextInt(cluster.size()));
                String raw = switch (r.nextInt(7)) {
                    case 0 -> escapeSome(base, r);
                    case 1 -> base + hostile[r.nextInt(hostile.length)];
                    case 2 -> hostile[r.nextInt(hostile.length)] + base;
                    case 3 -> {
                        if (base.isEmpty()) {
                            yield base;
                        }
                        int at = r.nextInt(base.length());
                        yield base.substring(0, at) + hostile[r.nextInt(hostile.length)] + base.substring(at + 1);
                    }
                    case 4 -> "z".repeat(r.nextInt(400));
                    default -> base;
                };
                arr.append(jsonString(raw));
            }
            arr.append(']');
            byte[] b = body(arr.toString());
            String parent = outcome(() -> parentNames(b));
            String now = outcome(() -> KubeRequestReader.readArgs(b, "kube filter", known).nodeNames());
            String none = outcome(() -> KubeRequestReader.readArgs(b, "kube filter").nodeNames());
            assertThat(now).as(arr.toString()).isEqualTo(parent);
            assertThat(none).as(arr.toString()).isEqualTo(parent);
        }
    }

    @Test
    void longNamesAcrossTextBufferSegments() throws Exception {
        KnownNames known = KnownNames.of(List.of("a".repeat(253)));
        for (int len : new int[]{252, 253, 254, 4000, 4001, 70_000, 300_000}) {
            byte[] b = body("[\"" + "a".repeat(len) + "\"]");
            String parent = outcome(() -> parentNames(b));
            String now = outcome(() -> KubeRequestReader.readArgs(b, "kube filter", known).nodeNames());
            assertThat(now).as("len " + len).isEqualTo(parent);
        }
    }

    @Test
    void aNameOverJacksonsStringLimitIsRefusedAlike() throws Exception {
        KnownNames known = KnownNames.of(List.of("gpu-1"));
        byte[] b = body("[\"gpu-1\",\"" + "a".repeat(20_000_001) + "\"]");
        String parent = outcome(() -> parentNames(b));
        String now = outcome(() -> KubeRequestReader.readArgs(b, "kube filter", known).nodeNames());
        assertThat(parent).startsWith("refused");
        assertThat(now).isEqualTo(parent);
    }

    @Test
    void aMalformedRequestIsRefusedWithoutTouchingTheClusterState() {
        java.util.concurrent.atomic.AtomicInteger views = new java.util.concurrent.atomic.AtomicInteger();
        var d = new dev.railyard.scheduler.service.EnginePlacementDecisions(() -> {
            views.incrementAndGet(); // ClusterState.snapshot(): its lock, and a rebuild when dirty
            return null;
        }, new dev.railyard.scheduler.ipam.IpPoolLedger(java.time.Clock.systemUTC()),
                new dev.railyard.scheduler.engine.PlacementEngine(), 50, new SimpleMeterRegistry());
        KubeExtender kube = new KubeExtender(d, (p, n, a) -> { }, 50, new SimpleMeterRegistry());
        for (int i = 0; i < 10; i++) {
            try {
                kube.filter("{\"Pod\":".getBytes(StandardCharsets.UTF_8));
            } catch (WireFormatException expected) {
                // 400
            }
        }
        assertThat(views.get()).as("ClusterState.snapshot() calls made for 10 malformed bodies").isZero();
    }
    @Test
    void replyBytesMatchTheParentForHostileReasons() throws Exception {
        Random r = new Random(7);
        char[] alphabet = {'a', '"', '\\', '\n', '\u0001', '\u001f', '\u007f', '\u0080', 'é', '€', '\ud83d',
            '\ude00', '\ud800', '\udfff', '\u2028', '<', '>', '&', '\'', '/', '\u0000', '\ufffe', '\uffff'};
        RecordingDecisions port = new RecordingDecisions();
        KubeExtender kube = new KubeExtender(port, (p, n, a) -> { }, 50, new SimpleMeterRegistry());
        for (int iter = 0; iter < 300; iter++) {
            int len = switch (iter % 4) {
                case 0 -> r.nextInt(20);
                case 1 -> 900 + r.nextInt(200); // around _outputMaxContiguous
                case 2 -> 7990 + r.nextInt(20);   // around the 8000-byte output buffer
                default -> r.nextInt(30_000);
            };
            StringBuilder m = new StringBuilder();
            for (int i = 0; i < len; i++) {
                m.append(alphabet[r.nextInt(alphabet.length)]);
            }
            String text = m.toString();
            NodeVerdict v = new NodeVerdict("gpu-a-018", List.of(new Reason(ReasonCode.POOL_EXHAUSTED, text, "")));
            NodeVerdict pass = NodeVerdict.pass("gpu-a-017");
            port.verdict = (p, n) -> n.equals("gpu-a-018") ? v : pass;
            byte[] expected = WireJson.write(g -> {
                g.writeStartObject();
                g.writeNullField("Nodes");
                g.writeArrayFieldStart("NodeNames");
                g.writeString("gpu-a-017");
                g.writeEndArray();
                g.writeObjectFieldStart("FailedNodes");
                g.writeStringField("gpu-a-018", text);
                g.writeEndObject();
                g.writeObjectFieldStart("FailedAndUnresolvableNodes");
                g.writeEndObject();
                g.writeStringField("Error", "");
                g.writeEndObject();
            });
            byte[] got = kube.filter(body("[\"gpu-a-017\",\"gpu-a-018\"]")).body();
            byte[] again = kube.filter(body("[\"gpu-a-017\",\"gpu-a-018\"]")).body();
            assertThat(got).as("iter " + iter + " len " + len).isEqualTo(expected);
            assertThat(again).isEqualTo(expected);
        }
    }

    @Test
    void encodedMessageRacesGiveEqualBytes() throws Exception {
        for (int round = 0; round < 200; round++) {
            Status s = Status.of(List.of(new Reason(ReasonCode.POOL_EXHAUSTED, "x\"é😀" + round, "d")));
            int threads = 4;
            CountDownLatch go = new CountDownLatch(1);
            AtomicReference<Throwable> bad = new AtomicReference<>();
            List<Thread> ts = new ArrayList<>();
            java.util.function.Function<String, String> enc1 = String::toUpperCase;
            java.util.function.Function<String, Integer> enc2 = String::length;
            for (int t = 0; t < threads; t++) {
                int tt = t;
                Thread th = new Thread(() -> {
                    try {
                        go.await();
                        for (int i = 0; i < 200; i++) {
                            if ((tt + i) % 2 == 0) {
                                assertThat(s.encodedMessage(enc1)).isEqualTo(s.message().toUpperCase());
                            } else {
                                assertThat(s.encodedMessage(enc2)).isEqualTo(s.message().length());
                            }
                        }
                    } catch (Throwable e) {
                        bad.set(e);
                    }
                });
                th.start();
                ts.add(th);
            }
            go.countDown();
            for (Thread th : ts) {
                th.join();
            }
            assertThat(bad.get()).isNull();
        }
    }

    private static long allocated(ThrowingSupplier s) throws Exception {
        var bean = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
        long id = Thread.currentThread().threadId();
        long best = Long.MAX_VALUE;
        for (int i = 0; i < 5; i++) {
            long before = bean.getThreadAllocatedBytes(id);
            try {
                s.get();
            } catch (WireFormatException expected) {
                // the refusal is what we measure
            }
            best = Math.min(best, bean.getThreadAllocatedBytes(id) - before);
        }
        return best;
    }

    @Test
    void aLongInvalidNameCostsNoMoreMemoryThanBefore() throws Exception {
        byte[] b = body("[\"" + "a".repeat(10_000_000) + "\"]");
        KnownNames known = KnownNames.of(List.of("gpu-1"));
        long parent = allocated(() -> parentNames(b));
        long now = allocated(() -> KubeRequestReader.readArgs(b, "kube filter", known));
        byte[] small = body("[\"" + "A".repeat(10) + "\"]");
        long parentSmall = allocated(() -> parentNames(small));
        long nowSmall = allocated(() -> KubeRequestReader.readArgs(small, "kube filter", known));
        assertThat(nowSmall - parentSmall).as("the known-names path's own cost on a 10-character name")
                .isLessThan(16 * 1024);
        // a 10-million-character name is 20 MB as a String: read once, as before, not copied a second time
        assertThat(now).as("now vs the reference, in bytes").isLessThan(parent + parent / 10);
    }

    @Test
    void knownNamesAreTheClustersStringsAndUnknownOnesAreReadAsBefore() throws Exception {
        List<String> cluster = List.of(new String("gpu-a-017"), new String("gpu-a-018"));
        byte[] body = body("[\"gpu-a-018\",\"gpu-x-001\",\"gpu-a-017\"]");

        var plain = KubeRequestReader.readArgs(body, "kube filter");
        var known = KubeRequestReader.readArgs(body, "kube filter", KnownNames.of(cluster));

        assertThat(known.nodeNames()).isEqualTo(plain.nodeNames())
                .containsExactly("gpu-a-018", "gpu-x-001", "gpu-a-017");
        assertThat(known.nodeNames().get(0)).isSameAs(cluster.get(1));
        assertThat(known.nodeNames().get(2)).isSameAs(cluster.get(0));
        assertThat(known.cacheMode()).isTrue();
    }

    @Test
    void anEscapedKnownNameIsFoundByItsCharactersAsJsonReadsThem() throws Exception {
        // "gpu-a-017" with its 'a' written as \u0061: the same string once read
        List<String> cluster = List.of("gpu-a-017");
        var known = KubeRequestReader.readArgs(body("[\"gpu-\\u0061-017\"]"), "kube filter",
                KnownNames.of(cluster));
        assertThat(known.nodeNames().getFirst()).isSameAs(cluster.getFirst());
    }

    @Test
    void anInvalidNameIsRefusedWithTheSameReasonWhateverTheClusterHolds() {
        byte[] body = body("[\"gpu-a-017\",\"GPU_B\"]");
        // the table holds only valid subdomains, so an invalid name reaches the check even if a node bore it
        KnownNames cluster = KnownNames.of(List.of("gpu-a-017", "GPU_B"));
        WireFormatException plain = catchThrowableOfType(WireFormatException.class,
                () -> KubeRequestReader.readArgs(body, "kube filter"));
        WireFormatException known = catchThrowableOfType(WireFormatException.class,
                () -> KubeRequestReader.readArgs(body, "kube filter", cluster));
        assertThat(plain).isNotNull();
        assertThat(known).isNotNull();
        assertThat(known.getMessage()).isEqualTo(plain.getMessage()).contains("NodeNames[1]");
    }
}
