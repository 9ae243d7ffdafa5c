package dev.railyard.scheduler.protocol.kube;

import com.fasterxml.jackson.core.JsonGenerator;
import dev.railyard.scheduler.engine.NodeScore;
import dev.railyard.scheduler.engine.NodeVerdict;
import dev.railyard.scheduler.engine.Status;
import dev.railyard.scheduler.input.LogText;
import dev.railyard.scheduler.input.RateLimitedLog;
import dev.railyard.scheduler.protocol.DecisionMetrics;
import dev.railyard.scheduler.protocol.BindDecision;
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
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.function.Function;

/**
 * kube-scheduler extender v1 adapter (kubernetes/kube-scheduler extender/v1/types.go; client
 * kubernetes/kubernetes pkg/scheduler/extender.go; docs/formats/kube-extender.md). The server mounts the verbs under
 * {@value #PREFIX}, so a {@code KubeSchedulerConfiguration} extender has {@code urlPrefix:
 * http://<service>:<port>/kube}, {@code filterVerb: filter}, {@code prioritizeVerb: prioritize},
 * {@code bindVerb: bind}, and works with {@code nodeCacheCapable} true or false.
 *
 * <ul>
 *   <li>{@code filter}: ExtenderArgs → ExtenderFilterResult
 *       {@code {"Nodes", "NodeNames", "FailedNodes", "FailedAndUnresolvableNodes", "Error"}}. In cache mode the
 *       passing nodes go under {@code NodeNames} (never null, since a reply with neither list filters every
 *       node out); otherwise under {@code Nodes.items}, each echoed byte for byte from the request.
 *       By the verdict's {@link Status.Code}: {@code UNSCHEDULABLE} nodes go to {@code FailedNodes} (kube-scheduler
 *       may preempt there), {@code UNSCHEDULABLE_AND_UNRESOLVABLE} ones to {@code FailedAndUnresolvableNodes} (it
 *       does not), and an {@code ERROR} fills {@code Error}, which fails the attempt as a framework Error does
 *       (docs/formats/kube-extender.md §3).</li>
 *   <li>{@code prioritize}: ExtenderArgs → HostPriorityList {@code [{"Host", "Score"}]}, Score 0..10
 *       ({@code MaxExtenderPriority}); kube-scheduler multiplies it by the extender's weight and by 10.
 *       Railyard's 0..100 score is divided by 10, rounding half up.</li>
 *   <li>{@code bind}: ExtenderBindingArgs → ExtenderBindingResult {@code {"Error"}}: asks the port for bind
 *       hints and has the {@link Binder} create the Binding with them.</li>
 * </ul>
 * Thread-safe.
 */
public final class KubeExtender {
    /** URL path prefix the server mounts these verbs under. */
    public static final String PREFIX = "/kube/";
    /** Protocol tag in metrics. */
    public static final String PROTOCOL = "kube";
    /** kube-scheduler's MaxExtenderPriority. */
    public static final int MAX_EXTENDER_PRIORITY = 10;

    private static final Logger LOG = LoggerFactory.getLogger(KubeExtender.class);

    /**
     * A verdict's reason as the content of a JSON string: the bytes the reply's own generator writes for it
     * ({@link JsonGenerator#writeString(String)}, so escapes and surrogates come out exactly as before), without the
     * quotes, which {@link JsonGenerator#writeRawUTF8String} adds. Kept per status ({@link Status#encodedMessage}),
     * so the cached verdicts of a kube filter are escaped once, not on every call.
     */
    private static final Function<String, byte[]> JSON_STRING_CONTENT = m -> {
        byte[] quoted = WireJson.write(g -> g.writeString(m));
        return Arrays.copyOfRange(quoted, 1, quoted.length - 1);
    };

    private final PlacementDecisions decisions;
    private final Binder binder;
    private final int neutralScore;
    private final DecisionMetrics metrics;
    private final RateLimitedLog lines;

    /**
     * @param neutralScore 0..100 score for a node the placement engine left out
     */
    public KubeExtender(PlacementDecisions decisions, Binder binder, int neutralScore, MeterRegistry registry) {
        this(decisions, binder, neutralScore, registry, RateLimitedLog.of(LOG));
    }

    /** @param lines where the bind's refused and failed lines go, at most one per refusal label and for failures */
    KubeExtender(PlacementDecisions decisions, Binder binder, int neutralScore, MeterRegistry registry,
                 RateLimitedLog lines) {
        this.lines = Objects.requireNonNull(lines, "lines");
        this.decisions = Objects.requireNonNull(decisions, "decisions");
        this.binder = Objects.requireNonNull(binder, "binder");
        if (neutralScore < 0 || neutralScore > NodeScore.MAX) {
            throw new IllegalArgumentException("neutral score must be 0..100, got " + neutralScore);
        }
        this.neutralScore = neutralScore;
        this.metrics = new DecisionMetrics(registry, PROTOCOL);
    }

    /**
     * Verb name to handler, for mounting under {@link #PREFIX}. {@code filter} and {@code prioritize} answer on the
     * server's I/O thread ({@link VerbHandler.Threading#IO_THREAD}: {@link PlacementDecisions#filterAndHold} and
     * {@link PlacementDecisions#score} never block); {@code bind} creates the Binding through the API server, so it
     * runs on its own thread.
     */
    public Map<String, VerbHandler> verbs() {
        Map<String, VerbHandler> v = new LinkedHashMap<>();
        v.put("filter", VerbHandler.onIoThread(this::filter));
        v.put("prioritize", VerbHandler.onIoThread(this::prioritize));
        v.put("bind", this::bind);
        return v;
    }

    /** filter: Filter over the candidate nodes. */
    public WireReply filter(byte[] body) throws WireFormatException {
        String verb = "kube filter";
        var args = KubeRequestReader.readArgs(body, verb, decisions.knownNodeNames());
        List<NodeVerdict> verdicts = PortAnswers.verdicts(args.nodeNames(),
                decisions.filterAndHold(args.pod(), args.nodeNames()));
        metrics.recordVerdicts("filter", verdicts);
        if (LOG.isDebugEnabled()) {
            LOG.debug("kube filter {} over {} nodes: {}", args.pod(), verdicts.size(), summarize(verdicts));
        }
        return WireReply.json(WireJson.write(g -> writeFilterResult(g, args, verdicts, body)));
    }

    private static void writeFilterResult(JsonGenerator g, KubeRequestReader.ExtenderArgs args,
                                          List<NodeVerdict> verdicts, byte[] body) throws IOException {
        g.writeStartObject();
        if (args.cacheMode()) {
            g.writeNullField("Nodes");
            g.writeArrayFieldStart("NodeNames");
            for (NodeVerdict v : verdicts) {
                if (v.feasible()) {
                    g.writeString(v.node());
                }
            }
            g.writeEndArray();
        } else {
            g.writeObjectFieldStart("Nodes");
            g.writeObjectFieldStart("metadata");
            g.writeEndObject();
            g.writeArrayFieldStart("items");
            for (int i = 0; i < verdicts.size(); i++) {
                if (verdicts.get(i).feasible()) {
                    KubeRequestReader.RawNode raw = args.rawNodes().get(i);
                    // the item is a complete JSON object from the request: write it through unchanged
                    g.writeRawValue(new String(body, raw.start(), raw.end() - raw.start(),
                            java.nio.charset.StandardCharsets.UTF_8));
                }
            }
            g.writeEndArray();
            g.writeEndObject();
            g.writeNullField("NodeNames");
        }
        writeFailed(g, "FailedNodes", verdicts, Status.Code.UNSCHEDULABLE);
        writeFailed(g, "FailedAndUnresolvableNodes", verdicts, Status.Code.UNSCHEDULABLE_AND_UNRESOLVABLE);
        g.writeStringField("Error", errors(verdicts));
        g.writeEndObject();
    }

    private static void writeFailed(JsonGenerator g, String key, List<NodeVerdict> verdicts, Status.Code code)
            throws IOException {
        g.writeObjectFieldStart(key);
        for (NodeVerdict v : verdicts) {
            if (v.code() == code) {
                g.writeFieldName(v.node());
                byte[] reason = v.status().encodedMessage(JSON_STRING_CONTENT);
                g.writeRawUTF8String(reason, 0, reason.length);
            }
        }
        g.writeEndObject();
    }

    /** @return the {@code ERROR} verdicts as one line ({@code "node-a: internal error: ..."}), or empty */
    static String errors(List<NodeVerdict> verdicts) {
        StringBuilder b = new StringBuilder();
        for (NodeVerdict v : verdicts) {
            if (v.code() == Status.Code.ERROR) {
                b.append(b.isEmpty() ? "" : "; ").append(v.node()).append(": ").append(v.describe());
            }
        }
        return b.toString();
    }

    /** prioritize: Score over the candidate nodes, on kube-scheduler's 0..10 scale. */
    public WireReply prioritize(byte[] body) throws WireFormatException {
        String verb = "kube prioritize";
        var args = KubeRequestReader.readArgs(body, verb, decisions.knownNodeNames());
        List<NodeScore> scores = PortAnswers.scores(args.nodeNames(),
                decisions.score(args.pod(), args.nodeNames()), neutralScore);
        metrics.recordScores("prioritize", scores);
        if (LOG.isDebugEnabled()) {
            LOG.debug("kube prioritize {} over {} nodes", args.pod(), scores.size());
        }
        return WireReply.json(WireJson.write(g -> {
            g.writeStartArray();
            for (NodeScore s : scores) {
                g.writeStartObject();
                g.writeStringField("Host", s.node());
                g.writeNumberField("Score", toExtenderPriority(s.score()));
                g.writeEndObject();
            }
            g.writeEndArray();
        }));
    }

    /** Railyard's 0..100 score on kube-scheduler's 0..10 extender scale, rounding half up (55 → 6). */
    public static int toExtenderPriority(int score) {
        return (score + 5) / 10;
    }

    /**
     * bind: admit the bind ({@link PlacementDecisions#admitBind}: the pod is one Railyard may bind, and its addresses
     * are held), then create the Binding with Railyard's hints and the hold; a refusal or a failed Binding answers an
     * {@code Error}, which kube-scheduler retries (and reports on the pod in a {@code FailedScheduling} Event). A
     * caller can repeat either at will, so their log lines are rate-limited ({@link RateLimitedLog}: one per refusal
     * label, and one for failed Bindings, every 10 s); {@code railyard_decisions_total{verb="bind"}} counts each.
     */
    public WireReply bind(byte[] body) throws WireFormatException {
        String verb = "kube bind";
        var args = KubeRequestReader.readBindArgs(body, verb);
        BindDecision decision = decisions.admitBind(args.pod(), args.node());
        String error = "";
        if (!decision.admitted()) {
            error = decision.reason();
            metrics.record("bind", "refused", 1);
            lines.info("refused " + decision.why(), "kube bind {} to {} refused: {}", args.pod(), args.node(), error);
        } else {
            PlacementDecisions.BindOutcome outcome = PlacementDecisions.BindOutcome.FAILED;
            try {
                binder.bind(args.pod(), args.node(), decision.annotations());
                outcome = PlacementDecisions.BindOutcome.BOUND;
                metrics.record("bind", "bound", 1);
                LOG.debug("kube bind {} to {} with {} annotations", args.pod(), args.node(),
                        decision.annotations().size());
            } catch (Binder.BindException e) {
                error = e.getMessage() == null ? "bind failed"
                        : LogText.escape(e.getMessage().replaceAll("\\s+", " "));
                metrics.record("bind", "failed", 1);
                lines.warn("failed", "kube bind {} to {} failed: {}", args.pod(), args.node(), error);
            } finally {
                decisions.bindFinished(args.pod(), args.node(), decision, outcome);
            }
        }
        String message = error;
        return WireReply.json(WireJson.write(g -> {
            g.writeStartObject();
            g.writeStringField("Error", message);
            g.writeEndObject();
        }));
    }

    private static String summarize(List<NodeVerdict> verdicts) {
        int pass = 0, neutral = 0, unsched = 0, unres = 0, error = 0;
        for (NodeVerdict v : verdicts) {
            if (v.neutral()) {
                neutral++;
            } else {
                switch (v.code()) {
                    case SUCCESS -> pass++;
                    case UNSCHEDULABLE -> unsched++;
                    case UNSCHEDULABLE_AND_UNRESOLVABLE -> unres++;
                    case ERROR -> error++;
                }
            }
        }
        return pass + " pass, " + neutral + " pass neutrally, " + unsched + " unschedulable, " + unres
                + " unresolvable" + (error == 0 ? "" : ", " + error + " error");
    }
}
