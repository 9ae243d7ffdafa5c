package dev.railyard.scheduler.protocol.volcano;

import com.fasterxml.jackson.core.JsonGenerator;
import dev.railyard.scheduler.engine.NodeScore;
import dev.railyard.scheduler.engine.NodeVerdict;
import dev.railyard.scheduler.engine.Status;
import dev.railyard.scheduler.protocol.AllocationVerdict;
import dev.railyard.scheduler.protocol.DecisionMetrics;
import dev.railyard.scheduler.protocol.ExtenderPod;
import dev.railyard.scheduler.protocol.GangJob;
import dev.railyard.scheduler.protocol.GangReadiness;
import dev.railyard.scheduler.protocol.GangVerdict;
import dev.railyard.scheduler.protocol.PlacementDecisions;
import dev.railyard.scheduler.protocol.PortAnswers;
import dev.railyard.scheduler.protocol.VerbHandler;
import dev.railyard.scheduler.protocol.WireFormatException;
import dev.railyard.scheduler.protocol.WireJson;
import dev.railyard.scheduler.protocol.WireReply;
import io.micrometer.core.instrument.MeterRegistry;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * Volcano scheduler {@code extender} plugin adapter (volcano-sh/volcano pkg/scheduler/plugins/extender,
 * v1.6–v1.16-alpha; docs/formats/volcano-extender.md). Serves one handler per verb; the server mounts them under
 * {@value #PREFIX}, so Volcano is configured with {@code extender.urlPrefix: http://<service>:<port>/volcano}
 * and each {@code extender.<verb>Verb} set to the verb name below.
 *
 * <table>
 *   <caption>Verbs, requests and replies</caption>
 *   <tr><th>verb</th><th>reads</th><th>reply</th></tr>
 *   <tr><td>{@code predicate}</td><td>task, node</td><td>{@code {"status":"<reason>","code":0|2|3}} (dialect
 *       v1.10; see {@link VolcanoReplyDialect})</td></tr>
 *   <tr><td>{@code prioritize}</td><td>task, nodes</td><td>{@code {"nodeScore":{"<node>":score×weight},"errorMessage":""}}</td></tr>
 *   <tr><td>{@code jobEnqueueable}</td><td>job</td><td>{@code {"status":1|0|-1}} (permit/abstain/reject)</td></tr>
 *   <tr><td>{@code jobReady}</td><td>job</td><td>{@code {"status":true|false}}</td></tr>
 *   <tr><td>{@code allocateFunc}</td><td>task</td><td>{@code {"errorMessage":""}}, non-empty vetoes</td></tr>
 *   <tr><td>{@code deallocateFunc}</td><td>task</td><td>{@code {"errorMessage":""}}</td></tr>
 *   <tr><td>{@code onSessionOpen}, {@code onSessionClose}, {@code jobEnqueued}</td><td>nothing</td><td>{@code {}}</td></tr>
 *   <tr><td>{@code preemptable}, {@code reclaimable}</td><td>nothing</td><td>{@code {"status":0,"victims":null}} (abstain)</td></tr>
 *   <tr><td>{@code queueOverused}</td><td>nothing</td><td>{@code {"overused":false}}</td></tr>
 * </table>
 *
 * <p>Replies use only codes Volcano understands: predicate 0 (Success), 1 (Error), 2 (Unschedulable: Volcano's
 * preempt and reclaim actions keep the node as a candidate) and 3 (UnschedulableAndUnresolvable: they skip it), from
 * the verdict's {@link Status.Code} (docs/formats/volcano-extender.md §4); votes 1, 0, −1. Every reply is a JSON body with status 200, since Volcano
 * treats an empty body as an error. Thread-safe.
 */
public final class VolcanoExtender {
    /** URL path prefix the server mounts these verbs under. */
    public static final String PREFIX = "/volcano/";
    /** Protocol tag in metrics. */
    public static final String PROTOCOL = "volcano";
    /** Plugin name in v1.8-dialect predicate statuses. */
    static final String PLUGIN = "railyard";

    private static final Logger LOG = LoggerFactory.getLogger(VolcanoExtender.class);
    private static final byte[] ABSTAIN_VICTIMS = "{\"status\":0,\"victims\":null}".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] NOT_OVERUSED = "{\"overused\":false}".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] NO_ERROR = "{\"errorMessage\":\"\"}".getBytes(StandardCharsets.US_ASCII);

    private final PlacementDecisions decisions;
    private final VolcanoSettings settings;
    private final DecisionMetrics metrics;

    public VolcanoExtender(PlacementDecisions decisions, VolcanoSettings settings, MeterRegistry registry) {
        this.decisions = Objects.requireNonNull(decisions, "decisions");
        this.settings = Objects.requireNonNull(settings, "settings");
        this.metrics = new DecisionMetrics(registry, PROTOCOL);
    }

    /**
     * Verb name to handler, for mounting under {@link #PREFIX}. {@code predicate} and {@code prioritize} (parse,
     * {@link PlacementDecisions#filter}/{@link PlacementDecisions#score}, write) and the constant verbs answer on the
     * server's I/O thread ({@link VerbHandler.Threading#IO_THREAD}): Volcano fans predicate out 16-way, and a hand-off
     * to another thread per call cost tail latency (docs/adr/0017-netty-transport.md). The others run on their own
     * thread: {@code allocateFunc}/{@code deallocateFunc} write holds on pods through the API server,
     * {@code jobEnqueueable} plans a whole gang.
     */
    public Map<String, VerbHandler> verbs() {
        Map<String, VerbHandler> v = new LinkedHashMap<>();
        v.put("predicate", VerbHandler.onIoThread(this::predicate));
        v.put("prioritize", VerbHandler.onIoThread(this::prioritize));
        v.put("jobEnqueueable", this::jobEnqueueable);
        v.put("jobReady", this::jobReady);
        v.put("allocateFunc", this::allocateFunc);
        v.put("deallocateFunc", this::deallocateFunc);
        v.put("onSessionOpen", VerbHandler.constant(WireReply.emptyObject()));
        v.put("onSessionClose", VerbHandler.constant(WireReply.emptyObject()));
        v.put("jobEnqueued", VerbHandler.constant(WireReply.emptyObject()));
        v.put("preemptable", abstainVictims("preemptable"));
        v.put("reclaimable", abstainVictims("reclaimable"));
        v.put("queueOverused", counted("queueOverused", "not_overused", WireReply.json(NOT_OVERUSED)));
        return v;
    }

    /** predicate: Filter for one (task, node). */
    public WireReply predicate(byte[] body) throws WireFormatException {
        String verb = "volcano predicate";
        var req = VolcanoRequestReader.readTaskRequest(body, verb, "node");
        String node = req.nodes().getFirst();
        NodeVerdict v = PortAnswers.verdicts(req.nodes(), decisions.filter(req.task(), req.nodes())).getFirst();
        metrics.recordVerdicts("predicate", List.of(v));
        if (LOG.isDebugEnabled()) {
            LOG.debug("volcano predicate {} on {}: {}{}", req.task(), node, describe(v),
                    reasonSuffix(v.reasons().isEmpty() ? "" : v.describe()));
        }
        return WireReply.json(predicateReply(v, settings.dialect()));
    }

    /** The predicate reply in the given dialect. */
    static byte[] predicateReply(NodeVerdict v, VolcanoReplyDialect dialect) {
        String reason = v.feasible() ? "" : v.describe();
        int code = predicateCode(v.code());
        return WireJson.write(g -> {
            g.writeStartObject();
            switch (dialect) {
                case V1_10 -> {
                    g.writeStringField("status", reason);
                    g.writeNumberField("code", code);
                }
                case V1_8 -> {
                    g.writeArrayFieldStart("status");
                    if (code != 0) {
                        g.writeStartObject();
                        g.writeNumberField("Code", code);
                        g.writeStringField("Reason", reason);
                        g.writeStringField("Plugin", PLUGIN);
                        g.writeEndObject();
                    }
                    g.writeEndArray();
                }
                case V1_6 -> g.writeStringField("errorMessage", reason);
            }
            g.writeEndObject();
        });
    }

    /**
     * @return Volcano's predicate code for a status code ({@code pkg/scheduler/api/types.go}, v1.14.1: 0 Success,
     *         1 Error, 2 Unschedulable, 3 UnschedulableAndUnresolvable)
     */
    static int predicateCode(Status.Code code) {
        return switch (code) {
            case SUCCESS -> 0;
            case ERROR -> 1;
            case UNSCHEDULABLE -> 2;
            case UNSCHEDULABLE_AND_UNRESOLVABLE -> 3;
        };
    }

    /** prioritize: Score for one task over the candidate nodes. */
    public WireReply prioritize(byte[] body) throws WireFormatException {
        String verb = "volcano prioritize";
        var req = VolcanoRequestReader.readTaskRequest(body, verb, "nodes");
        List<NodeScore> scores = PortAnswers.scores(req.nodes(), decisions.score(req.task(), req.nodes()),
                settings.neutralScore());
        metrics.recordScores("prioritize", scores);
        double w = settings.scoreWeight();
        if (LOG.isDebugEnabled()) {
            LOG.debug("volcano prioritize {} over {} nodes: {}", req.task(), scores.size(), summarize(scores));
        }
        return WireReply.json(WireJson.write(g -> {
            g.writeStartObject();
            g.writeObjectFieldStart("nodeScore");
            for (NodeScore s : scores) {
                g.writeFieldName(s.node());
                writeScore(g, s.score() * w);
            }
            g.writeEndObject();
            g.writeStringField("errorMessage", "");
            g.writeEndObject();
        }));
    }

    private static void writeScore(JsonGenerator g, double v) throws IOException {
        if (v == Math.rint(v) && Math.abs(v) < 1e15) {
            g.writeNumber((long) v);
        } else {
            g.writeNumber(v);
        }
    }

    /** jobEnqueueable: gang admission. */
    public WireReply jobEnqueueable(byte[] body) throws WireFormatException {
        GangJob job = VolcanoRequestReader.readJobRequest(body, "volcano jobEnqueueable");
        GangVerdict v = decisions.enqueueable(job);
        if (v == null) {
            v = GangVerdict.abstain("placement engine gave no answer");
        }
        metrics.record("jobEnqueueable", v.outcome().name().toLowerCase(java.util.Locale.ROOT), 1);
        if (LOG.isDebugEnabled()) {
            LOG.debug("volcano jobEnqueueable {} ({} tasks, minAvailable {}): {}{}", job, job.tasks().size(),
                    job.minAvailable(), v.outcome(), reasonSuffix(v.reason()));
        }
        int status = v.outcome().volcanoStatus();
        return WireReply.json(WireJson.write(g -> {
            g.writeStartObject();
            g.writeNumberField("status", status);
            g.writeEndObject();
        }));
    }

    /** jobReady: may the session commit the gang. */
    public WireReply jobReady(byte[] body) throws WireFormatException {
        GangJob job = VolcanoRequestReader.readJobRequest(body, "volcano jobReady");
        GangReadiness r = decisions.jobReady(job);
        if (r == null) {
            r = new GangReadiness(true, "placement engine gave no answer", true);
        }
        metrics.record("jobReady", r.neutral() ? "neutral" : r.ready() ? "ready" : "not_ready", 1);
        if (LOG.isDebugEnabled()) {
            LOG.debug("volcano jobReady {}: {}{}", job, r.ready() ? "ready" : "not ready", reasonSuffix(r.reason()));
        }
        boolean ready = r.ready();
        return WireReply.json(WireJson.write(g -> {
            g.writeStartObject();
            g.writeBooleanField("status", ready);
            g.writeEndObject();
        }));
    }

    /** allocateFunc: a tentative allocation of {@code task} to {@code task.NodeName}. */
    public WireReply allocateFunc(byte[] body) throws WireFormatException {
        String verb = "volcano allocateFunc";
        ExtenderPod task = VolcanoRequestReader.readTaskRequest(body, verb, null).task();
        String node = requireNode(task, verb);
        AllocationVerdict v = decisions.allocated(task, node);
        if (v == null) {
            v = AllocationVerdict.accept();
        }
        metrics.record("allocateFunc", v.accepted() ? "accept" : "veto", 1);
        if (LOG.isDebugEnabled()) {
            LOG.debug("volcano allocateFunc {} on {} (status {}): {}{}", task, node, task.volcanoTask().status(),
                    v.accepted() ? "accepted" : "vetoed", reasonSuffix(v.reason()));
        }
        String message = v.accepted() ? "" : v.reason();
        return WireReply.json(WireJson.write(g -> {
            g.writeStartObject();
            g.writeStringField("errorMessage", message);
            g.writeEndObject();
        }));
    }

    /** deallocateFunc: a tentative allocation was undone. */
    public WireReply deallocateFunc(byte[] body) throws WireFormatException {
        String verb = "volcano deallocateFunc";
        ExtenderPod task = VolcanoRequestReader.readTaskRequest(body, verb, null).task();
        String node = requireNode(task, verb);
        decisions.deallocated(task, node);
        metrics.record("deallocateFunc", "released", 1);
        LOG.debug("volcano deallocateFunc {} from {}", task, node);
        return WireReply.json(NO_ERROR);
    }

    private static String requireNode(ExtenderPod task, String verb) throws WireFormatException {
        String node = task.volcanoTask().nodeName();
        if (node.isEmpty()) {
            throw WireJson.missing(verb, "task.NodeName is empty: an allocation event names the node");
        }
        return node;
    }

    private VerbHandler abstainVictims(String verb) {
        return counted(verb, "abstain", WireReply.json(ABSTAIN_VICTIMS));
    }

    private VerbHandler counted(String verb, String outcome, WireReply reply) {
        return new VerbHandler() {
            @Override
            public WireReply handle(byte[] body) {
                metrics.record(verb, outcome, 1);
                return reply;
            }

            @Override
            public boolean readsBody() {
                return false;
            }

            @Override
            public Threading threading() {
                return Threading.IO_THREAD;
            }
        };
    }

    private static String describe(NodeVerdict v) {
        if (v.neutral()) {
            return "pass (neutral)";
        }
        return v.code().name().toLowerCase(java.util.Locale.ROOT);
    }

    /** {@code ": reason"} for a log line, control characters escaped; empty for no reason. */
    static String reasonSuffix(String reason) {
        return reason == null || reason.isEmpty() ? "" : ": " + dev.railyard.scheduler.input.LogText.escape(reason);
    }

    static String summarize(List<NodeScore> scores) {
        StringBuilder sb = new StringBuilder();
        int shown = Math.min(scores.size(), 8);
        for (int i = 0; i < shown; i++) {
            NodeScore s = scores.get(i);
            sb.append(i == 0 ? "" : ", ").append(s.node()).append('=').append(s.score()).append(s.neutral() ? "(neutral)" : "");
        }
        if (scores.size() > shown) {
            sb.append(", ... ").append(scores.size() - shown).append(" more");
        }
        return sb.toString();
    }
}
