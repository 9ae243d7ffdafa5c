package dev.railyard.scheduler.server;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.BooleanNode;
import com.fasterxml.jackson.databind.node.IntNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.databind.node.TextNode;
import dev.railyard.scheduler.protocol.WireJson;
import dev.railyard.scheduler.protocol.WireResources;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.Tuple;
import net.jqwik.api.lifecycle.AfterContainer;
import net.jqwik.api.lifecycle.BeforeContainer;

import java.net.InetAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Bad bodies against the running server: malformed JSON (truncated valid requests, random text and bytes),
 * wrong JSON types at every key the adapters read, 0-byte bodies, bodies over the limit, nesting far deeper
 * than allowed. Each must get a 4xx with a one-line reason, and the server must keep answering valid
 * requests afterwards.
 */
class BadInputPropertyTest {
    static final long LIMIT = 256 * 1024;
    static ExtenderServer server;
    static final ObjectMapper JSON = new ObjectMapper();

    /** A verb, a valid body for it, and the JSON pointers of values the adapter reads (so a wrong type must be refused). */
    record Case(String path, String resource, List<String> readPointers) {
    }

    static final List<Case> CASES = List.of(
            new Case("/volcano/predicate", "volcano/predicate-v1.15.json", List.of("/task", "/node", "/task/UID",
                    "/task/Name", "/task/Namespace", "/task/Job", "/task/TaskRole", "/task/Status", "/task/Pod",
                    "/task/Pod/metadata", "/task/Pod/metadata/name", "/task/Pod/metadata/labels",
                    "/task/Pod/metadata/annotations", "/task/Pod/spec", "/task/Pod/spec/schedulerName",
                    "/task/Pod/spec/containers", "/task/Pod/spec/containers/0",
                    "/task/Pod/spec/containers/0/resources", "/task/Pod/spec/containers/0/resources/requests",
                    "/task/Pod/spec/initContainers/1/restartPolicy", "/node/Name")),
            new Case("/volcano/prioritize", "volcano/prioritize-v1.15.json", List.of("/task", "/nodes", "/nodes/0",
                    "/nodes/2", "/nodes/1/Name", "/task/Pod/metadata/labels")),
            new Case("/volcano/jobEnqueueable", "volcano/jobEnqueueable-v1.15.json", List.of("/job", "/job/UID",
                    "/job/MinAvailable", "/job/Tasks", "/job/TaskMinAvailable", "/job/TaskMinAvailable/worker", "/job/Queue")),
            new Case("/volcano/jobReady", "volcano/jobReady-v1.15.json", List.of("/job", "/job/PgUID", "/job/Tasks")),
            new Case("/volcano/allocateFunc", "volcano/allocateFunc-v1.15.json", List.of("/task", "/task/NodeName", "/task/Pod")),
            new Case("/volcano/deallocateFunc", "volcano/deallocateFunc-v1.15.json", List.of("/task", "/task/Status")),
            new Case("/kube/filter", "kube/filter-nodenames.json", List.of("/Pod", "/NodeNames", "/NodeNames/0",
                    "/Pod/metadata", "/Pod/metadata/namespace", "/Pod/spec/overhead", "/Pod/spec/containers/0/resources/requests")),
            new Case("/kube/filter", "kube/filter-nodes.json", List.of("/Nodes", "/Nodes/items", "/Nodes/items/1",
                    "/Nodes/items/0/metadata/name")),
            new Case("/kube/prioritize", "kube/prioritize-nodenames.json", List.of("/Pod", "/NodeNames")),
            new Case("/kube/bind", "kube/bind.json", List.of("/PodName", "/PodNamespace", "/PodUID", "/Node")));

    @BeforeContainer
    static void start() throws Exception {
        server = TestServers.start(LIMIT, Optional::empty, TestServers.registry(), Map.of(), null);
    }

    @AfterContainer
    static void stop() {
        server.close();
    }

    @Property(tries = 150)
    void truncatedRequestsAreRefused(@ForAll("cases") Case c, @ForAll("fractions") double fraction) throws Exception {
        byte[] full = WireResources.load(c.resource());
        int cut = (int) Math.min(full.length - 1, Math.floor(full.length * fraction));
        assertRefusedAndStillServing(c.path(), java.util.Arrays.copyOf(full, cut), 400);
    }

    @Property(tries = 150)
    void wrongTypesAtReadKeysAreRefused(@ForAll("mutations") Tuple.Tuple3<Case, String, JsonNode> m) throws Exception {
        Case c = m.get1();
        JsonNode tree = JSON.readTree(WireResources.load(c.resource()));
        replace(tree, m.get2(), m.get3());
        assertRefusedAndStillServing(c.path(), JSON.writeValueAsBytes(tree), 400);
    }

    @Property(tries = 100)
    void garbageIsRefused(@ForAll("cases") Case c, @ForAll("garbage") byte[] body) throws Exception {
        assertRefusedAndStillServing(c.path(), body, 400);
    }

    @Property(tries = 30)
    void deepNestingIsRefused(@ForAll("cases") Case c, @ForAll("depths") int depth, @ForAll boolean arrays) throws Exception {
        String open = arrays ? "[" : "{\"a\":";
        String close = arrays ? "]" : "}";
        String body = "{\"task\":" + open.repeat(depth) + "1" + close.repeat(depth) + ",\"Pod\":1}";
        assertRefusedAndStillServing(c.path(), body.getBytes(StandardCharsets.UTF_8), 400);
    }

    @Property(tries = 20)
    void emptyAndOversizedBodiesAreRefused(@ForAll("cases") Case c, @ForAll boolean oversized) throws Exception {
        // oversized: only the headers are sent, declaring a body over the limit; the server must answer 413 without
        // reading it (sending the body too races the server's close and the client sees a reset, as Go would)
        long declared = oversized ? LIMIT + 1 + c.path().length() : 0;
        assertRefusedAndStillServing(c.path(), new byte[0], declared, oversized ? 413 : 400);
    }

    @Provide
    Arbitrary<Case> cases() {
        return Arbitraries.of(CASES);
    }

    @Provide
    Arbitrary<Double> fractions() {
        return Arbitraries.doubles().between(0.0, 1.0);
    }

    @Provide
    Arbitrary<Integer> depths() {
        // 1,000 deep is the example; the rest spread from just over the limit to 5,000
        return Arbitraries.oneOf(Arbitraries.just(1000), Arbitraries.integers().between(WireJson.MAX_NESTING_DEPTH + 1, 5000));
    }

    @Provide
    Arbitrary<byte[]> garbage() {
        Arbitrary<byte[]> text = Arbitraries.strings().ofMinLength(1).ofMaxLength(200)
                .withChars("{}[]\":,0123456789.eE+-truefalsnl \\u\t\nabc\u00e9\u4e2d")
                .filter(s -> !s.isBlank())
                .map(s -> s.getBytes(StandardCharsets.UTF_8));
        Arbitrary<byte[]> bytes = Arbitraries.bytes().array(byte[].class).ofMinSize(1).ofMaxSize(300);
        return Arbitraries.oneOf(text, bytes).filter(b -> !isBlankAscii(b));
    }

    @Provide
    Arbitrary<Tuple.Tuple3<Case, String, JsonNode>> mutations() {
        return Arbitraries.of(CASES).flatMap(c -> Combinators.combine(
                        Arbitraries.just(c), Arbitraries.of(c.readPointers()),
                        Arbitraries.<JsonNode>of(new IntNode(42), new TextNode("x"), BooleanNode.TRUE,
                                JsonNodeFactory.instance.arrayNode().add(1), JsonNodeFactory.instance.objectNode().put("k", 1)))
                .as(Tuple::of))
                .filter(t -> wrongTypeFor(t.get1(), t.get2(), t.get3()));
    }

    /** True when the replacement's JSON type differs from the value at that pointer (so it must be refused). */
    static boolean wrongTypeFor(Case c, String pointer, JsonNode replacement) {
        JsonNode original = tree(c).at(pointer);
        if (original.isMissingNode()) {
            throw new IllegalStateException(c.resource() + " has nothing at " + pointer);
        }
        return original.getNodeType() != replacement.getNodeType()
                && !(original.isNumber() && replacement.isNumber());
    }

    private static final Map<String, JsonNode> TREES = new java.util.concurrent.ConcurrentHashMap<>();

    static JsonNode tree(Case c) {
        return TREES.computeIfAbsent(c.resource(), r -> {
            try {
                return JSON.readTree(WireResources.load(r));
            } catch (java.io.IOException e) {
                throw new java.io.UncheckedIOException(e);
            }
        });
    }

    static void replace(JsonNode root, String pointer, JsonNode value) {
        int slash = pointer.lastIndexOf('/');
        JsonNode parent = slash == 0 ? root : root.at(pointer.substring(0, slash));
        String last = pointer.substring(slash + 1);
        if (parent instanceof ObjectNode o) {
            o.set(last, value);
        } else if (parent instanceof ArrayNode a) {
            a.set(Integer.parseInt(last), value);
        } else {
            throw new IllegalStateException("no container at " + pointer);
        }
    }

    private static boolean isBlankAscii(byte[] b) {
        for (byte x : b) {
            if (x != ' ' && x != '\t' && x != '\n' && x != '\r') {
                return false;
            }
        }
        return true;
    }

    static void assertRefusedAndStillServing(String path, byte[] body, int expectedStatus) throws Exception {
        assertRefusedAndStillServing(path, body, body.length, expectedStatus);
    }

    static void assertRefusedAndStillServing(String path, byte[] body, long declaredLength, int expectedStatus)
            throws Exception {
        try (Socket s = new Socket(InetAddress.getLoopbackAddress(), server.port())) {
            s.setSoTimeout(5000);
            var r = TestServers.exchange(s, "POST", path, body, declaredLength);
            assertThat(r.status()).as("status for %d-byte body to %s: %s", body.length, path, r.body()).isEqualTo(expectedStatus);
            assertThat(r.header("Content-Type")).isEqualTo("text/plain; charset=utf-8");
            assertThat(r.body()).endsWith("\n");
            String line = r.body().substring(0, r.body().length() - 1);
            assertThat(line).isNotBlank().doesNotContain("\n").doesNotContain("\r").hasSizeLessThan(600)
                    .doesNotContain("at dev.railyard").doesNotContain("Exception");
        }
        // a fresh connection still gets a proper answer
        byte[] ok = WireResources.load("volcano/predicate-v1.15.json");
        try (Socket s = new Socket(InetAddress.getLoopbackAddress(), server.port())) {
            s.setSoTimeout(5000);
            var r = TestServers.exchange(s, "POST", "/volcano/predicate", ok, ok.length);
            assertThat(r.status()).isEqualTo(200);
            assertThat(r.body()).isEqualTo("{\"status\":\"\",\"code\":0}");
        }
    }

}
