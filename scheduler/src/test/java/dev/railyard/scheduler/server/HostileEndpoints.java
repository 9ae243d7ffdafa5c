package dev.railyard.scheduler.server;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.railyard.scheduler.hints.delivery.BindingHintWebhook;
import dev.railyard.scheduler.hints.delivery.HintLookup;
import dev.railyard.scheduler.protocol.WireFormatException;
import dev.railyard.scheduler.protocol.WireResources;
import dev.railyard.scheduler.protocol.kube.KubeParsers;
import dev.railyard.scheduler.protocol.volcano.VolcanoParsers;
import dev.railyard.scheduler.service.ExplainEndpoint;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Every endpoint of the service as {@link HostileCorpusTest} attacks it: its path, a valid body (a real captured
 * one where there is one, wire/captured/), where the pod, its name and namespace, a node name and a task key sit in
 * that body, and the oracle: the endpoint's full parser, run in the test's own JVM, whose refusal means the server
 * must not answer 2xx.
 */
final class HostileEndpoints {
    private HostileEndpoints() {
    }

    /** A place in a body that a corpus entry can attack. */
    enum Concept { POD, POD_NAME, NAMESPACE, NODE_NAME, TASK_KEY, LABELS }

    /** The full parser's verdict on a body: the refusal, or empty when it accepts. */
    interface Oracle {
        Optional<String> refuses(byte[] body);
    }

    /**
     * @param name     for messages
     * @param path     URL path
     * @param get      true for the GET-only built-in endpoints (probes, metrics)
     * @param base     a valid request body, or empty for GET endpoints
     * @param places   JSON pointers of the concepts this body has
     * @param headers  extra request header lines (each ending in CRLF), e.g. the bearer token of /explain
     * @param oracle   the endpoint's full parser
     */
    record Endpoint(String name, String path, boolean get, byte[] base, Map<Concept, String> places, String headers,
                    Oracle oracle) {
        @Override
        public String toString() {
            return name;
        }
    }

    private static final ObjectMapper JSON = new ObjectMapper();

    private static Oracle of(Check check) {
        return body -> {
            try {
                check.run(body);
                return Optional.empty();
            } catch (WireFormatException e) {
                return Optional.of(e.getMessage());
            }
        };
    }

    private interface Check {
        void run(byte[] body) throws WireFormatException;
    }

    private static byte[] load(String resource) {
        if (!resource.startsWith("../")) {
            return WireResources.load(resource);
        }
        try (var in = HostileEndpoints.class.getResourceAsStream("/" + resource.substring(3))) {
            return java.util.Objects.requireNonNull(in, resource).readAllBytes();
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    private static final Map<Concept, String> VOLCANO_TASK = Map.of(Concept.POD, "/task/Pod",
            Concept.POD_NAME, "/task/Pod/metadata/name", Concept.NAMESPACE, "/task/Pod/metadata/namespace",
            Concept.LABELS, "/task/Pod/metadata/labels");

    private static Map<Concept, String> with(Map<Concept, String> m, Concept c, String pointer) {
        var out = new java.util.EnumMap<Concept, String>(Concept.class);
        out.putAll(m);
        out.put(c, pointer);
        return out;
    }

    static List<Endpoint> all() {
        Oracle ignored = body -> Optional.empty();
        Oracle getOnly = body -> Optional.of("405: POST on a GET endpoint");
        BindingHintWebhook webhook = new BindingHintWebhook((pod, node) -> new HintLookup.NotApplicable("test"), null,
                Duration.ofMillis(500), TestServers.registry());
        String jobTask = firstTaskPointer(load("captured/volcano/jobReady-v1.14.1.json"));
        Map<Concept, String> job = Map.of(Concept.POD, jobTask + "/Pod", Concept.POD_NAME, jobTask + "/Pod/metadata/name",
                Concept.NAMESPACE, jobTask + "/Pod/metadata/namespace", Concept.TASK_KEY, jobTask);
        String composedTask = firstTaskPointer(load("volcano/jobEnqueueable-v1.15.json"));
        Map<Concept, String> composedJob = Map.of(Concept.POD, composedTask + "/Pod", Concept.POD_NAME,
                composedTask + "/Pod/metadata/name", Concept.NAMESPACE, composedTask + "/Pod/metadata/namespace",
                Concept.TASK_KEY, composedTask);
        Map<Concept, String> kube = Map.of(Concept.POD, "/Pod", Concept.POD_NAME, "/Pod/metadata/name",
                Concept.NAMESPACE, "/Pod/metadata/namespace", Concept.NODE_NAME, "/NodeNames/0",
                Concept.LABELS, "/Pod/metadata/labels");
        return List.of(
                new Endpoint("volcano predicate", "/volcano/predicate", false, load("captured/volcano/predicate-v1.14.1.json"),
                        with(VOLCANO_TASK, Concept.NODE_NAME, "/node/Name"), "",
                        of(b -> VolcanoParsers.task(b, "volcano predicate", "node"))),
                new Endpoint("volcano prioritize", "/volcano/prioritize", false, load("captured/volcano/prioritize-v1.14.1.json"),
                        with(VOLCANO_TASK, Concept.NODE_NAME, "/nodes/0/Name"), "",
                        of(b -> VolcanoParsers.task(b, "volcano prioritize", "nodes"))),
                new Endpoint("volcano jobEnqueueable", "/volcano/jobEnqueueable", false, load("volcano/jobEnqueueable-v1.15.json"),
                        composedJob, "", of(b -> VolcanoParsers.job(b, "volcano jobEnqueueable"))),
                new Endpoint("volcano jobReady", "/volcano/jobReady", false, load("captured/volcano/jobReady-v1.14.1.json"),
                        job, "", of(b -> VolcanoParsers.job(b, "volcano jobReady"))),
                new Endpoint("volcano allocateFunc", "/volcano/allocateFunc", false, load("captured/volcano/allocateFunc-v1.14.1.json"),
                        with(VOLCANO_TASK, Concept.NODE_NAME, "/task/NodeName"), "",
                        of(b -> VolcanoParsers.task(b, "volcano allocateFunc", null))),
                new Endpoint("volcano deallocateFunc", "/volcano/deallocateFunc", false, load("captured/volcano/deallocateFunc-v1.14.1.json"),
                        with(VOLCANO_TASK, Concept.NODE_NAME, "/task/NodeName"), "",
                        of(b -> VolcanoParsers.task(b, "volcano deallocateFunc", null))),
                new Endpoint("volcano onSessionOpen", "/volcano/onSessionOpen", false, load("captured/volcano/onSessionOpen-v1.14.1.json"),
                        Map.of(), "", ignored),
                new Endpoint("volcano onSessionClose", "/volcano/onSessionClose", false, load("captured/volcano/onSessionClose-v1.14.1.json"),
                        Map.of(), "", ignored),
                new Endpoint("volcano jobEnqueued", "/volcano/jobEnqueued", false, "{}".getBytes(StandardCharsets.UTF_8),
                        Map.of(), "", ignored),
                new Endpoint("volcano preemptable", "/volcano/preemptable", false, load("volcano/preemptable-v1.15.json"),
                        Map.of(), "", ignored),
                new Endpoint("volcano reclaimable", "/volcano/reclaimable", false, load("volcano/reclaimable-v1.15.json"),
                        Map.of(), "", ignored),
                new Endpoint("volcano queueOverused", "/volcano/queueOverused", false, load("captured/volcano/queueOverused-v1.14.1.json"),
                        Map.of(), "", ignored),
                new Endpoint("kube filter (NodeNames)", "/kube/filter", false, load("captured/kube/filter-nodenames-v1.35.4.json"),
                        kube, "", of(b -> KubeParsers.args(b, "kube filter"))),
                new Endpoint("kube filter (Nodes)", "/kube/filter", false, load("kube/filter-nodes.json"),
                        with(kube, Concept.NODE_NAME, "/Nodes/items/0/metadata/name"), "",
                        of(b -> KubeParsers.args(b, "kube filter"))),
                new Endpoint("kube prioritize", "/kube/prioritize", false, load("captured/kube/prioritize-nodenames-v1.35.4.json"),
                        kube, "", of(b -> KubeParsers.args(b, "kube prioritize"))),
                new Endpoint("kube bind", "/kube/bind", false, load("captured/kube/bind-v1.35.4.json"),
                        Map.of(Concept.POD_NAME, "/PodName", Concept.NAMESPACE, "/PodNamespace", Concept.NODE_NAME, "/Node"),
                        "", of(b -> KubeParsers.bind(b, "kube bind"))),
                new Endpoint("explain", "/explain", false,
                        "{\"command\":\"job\",\"namespace\":\"prod\",\"name\":\"rdma-test\"}".getBytes(StandardCharsets.UTF_8),
                        Map.of(Concept.POD_NAME, "/name", Concept.NAMESPACE, "/namespace"),
                        "Authorization: Bearer " + HostileServerMain.GOOD_TOKEN + "\r\n", of(ExplainEndpoint::parse)),
                new Endpoint("admission pods-binding", BindingHintWebhook.PATH, false, load("../admission/pods-binding-volcano.json"),
                        Map.of(Concept.POD_NAME, "/request/object/metadata/name", Concept.NAMESPACE, "/request/namespace",
                                Concept.NODE_NAME, "/request/object/target/name"), "",
                        of(b -> webhook.handle(b))),
                new Endpoint("healthz", "/healthz", true, new byte[0], Map.of(), "", getOnly),
                new Endpoint("readyz", "/readyz", true, new byte[0], Map.of(), "", getOnly),
                new Endpoint("metrics", "/metrics", true, new byte[0], Map.of(), "", getOnly));
    }

    /** JSON pointer of the first task in {@code job.Tasks}. */
    private static String firstTaskPointer(byte[] body) {
        try {
            var tasks = JSON.readTree(body).path("job").path("Tasks");
            String key = tasks.fieldNames().next();
            return "/job/Tasks/" + key.replace("~", "~0").replace("/", "~1");
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }
}
