package dev.railyard.scheduler.hints.delivery;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.railyard.scheduler.input.LogText;
import dev.railyard.scheduler.input.ObjectNames;
import dev.railyard.scheduler.input.RateLimitedLog;
import dev.railyard.scheduler.protocol.PodRef;
import dev.railyard.scheduler.protocol.VerbHandler;
import dev.railyard.scheduler.protocol.WireFormatException;
import dev.railyard.scheduler.protocol.WireJson;
import dev.railyard.scheduler.protocol.WireReply;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.time.Duration;
import java.util.Base64;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * Mutating admission webhook for {@code pods/binding} CREATE: adds the placement hints to the Binding, so the API
 * server copies them onto the pod in the same write that sets {@code spec.nodeName} (docs/formats/binding.md
 * §1–§3). This is how Volcano-scheduled pods get hints, since Volcano has no bind verb for extenders; it also
 * covers any other binder. Served at {@value #PATH} by the extender's HTTPS server ({@link #routes()}).
 *
 * <p>Protocol: {@code admission.k8s.io/v1} AdmissionReview in, AdmissionReview out with the request's
 * {@code uid}, {@code allowed: true} and, when there are hints, {@code patchType: JSONPatch} and {@code patch}: the
 * base64 of an RFC 6902 patch on the Binding. A Binding with no {@code metadata.annotations} (kube-scheduler's
 * DefaultBinder sends none) gets one {@code add /metadata/annotations} of the whole map; one with annotations
 * (Volcano copies the pod's) gets one {@code add /metadata/annotations/<key>} per key, the key escaped as an RFC
 * 6901 JSON pointer token ({@code ~} → {@code ~0}, {@code /} → {@code ~1}: {@code railyard.dev~1placement}).
 * {@code add} on an existing member replaces it.
 *
 * <p>The answer is always {@code allowed: true}: Railyard never blocks a bind (configure {@code failurePolicy:
 * Ignore}). Hints are computed for the Binding's {@code target.name}, whatever the plan said, by the
 * {@link HintSource} within {@code budget}; when the source is not ready or overruns the budget the Binding goes
 * through unchanged and the pod is queued for {@link HintBackfill} (not on a dry run, so the webhook can declare
 * {@code sideEffects: NoneOnDryRun}). A body that is not an AdmissionReview gets HTTP 400 (the API server then
 * applies the failure policy, i.e. the bind proceeds). Meter: {@code railyard_binding_webhook_total{outcome}} with
 * outcome {@code patched}, {@code unchanged}, {@code deferred} or {@code skipped}. Anyone who reaches the port can
 * send AdmissionReviews, so the line of a deferred Binding is rate-limited: one every 10 s ({@link RateLimitedLog}).
 * Thread-safe.
 *
 * <p>Webhook configuration (see docs/hints.md): rules {@code apiGroups [""]}, {@code apiVersions ["v1"]},
 * {@code resources ["pods/binding"]}, {@code operations ["CREATE"]}; {@code admissionReviewVersions ["v1"]};
 * {@code namespaceSelector} or {@code matchConditions}, not {@code objectSelector} (it sees the Binding's
 * labels); {@code timeoutSeconds} above the budget (e.g. 2 with the default 500 ms budget).
 */
public final class BindingHintWebhook implements VerbHandler {
    /** Path prefix of the admission routes. */
    public static final String PREFIX = "/admission/";
    /** Route verb. */
    public static final String VERB = "pods-binding";
    /** Full path the webhook is served at: {@value}. */
    public static final String PATH = PREFIX + VERB;
    /** Default time the hint source gets per request. */
    public static final Duration DEFAULT_BUDGET = Duration.ofMillis(500);

    private static final Logger LOG = LoggerFactory.getLogger(BindingHintWebhook.class);
    private static final RateLimitedLog DEFERRED = RateLimitedLog.of(LOG);
    /** Duplicate keys and anything after the AdmissionReview are refused, as by every Railyard reader (WireJson). */
    private static final ObjectMapper JSON = new ObjectMapper(WireJson.factory())
            .enable(com.fasterxml.jackson.databind.DeserializationFeature.FAIL_ON_READING_DUP_TREE_KEY)
            .enable(com.fasterxml.jackson.databind.DeserializationFeature.FAIL_ON_TRAILING_TOKENS);
    private static final String NAME = "admission pods-binding";

    private final HintSource hints;
    private final HintBackfill backfill;
    private final Duration budget;
    private final MeterRegistry registry;
    private final ExecutorService lookups = Executors.newVirtualThreadPerTaskExecutor();

    /**
     * @param hints    computes hints for the Binding's node
     * @param backfill where pods bound without hints go, or null to leave them without
     * @param budget   longest wait for the hint source per request, positive (keep it well under the webhook's
     *                 {@code timeoutSeconds})
     * @param registry meters, or null for none
     */
    public BindingHintWebhook(HintSource hints, HintBackfill backfill, Duration budget, MeterRegistry registry) {
        this.hints = Objects.requireNonNull(hints, "hints");
        this.backfill = backfill;
        this.budget = Objects.requireNonNull(budget, "budget");
        if (budget.isNegative() || budget.isZero()) {
            throw new IllegalArgumentException("webhook budget must be positive, got " + budget);
        }
        this.registry = registry == null ? new SimpleMeterRegistry() : registry;
    }

    /** {@value #PATH} → this handler, for {@code ExtenderServer.start}'s route map. */
    public Map<String, VerbHandler> routes() {
        return Map.of(PATH, this);
    }

    /**
     * The webhook checks no caller (the chart's NetworkPolicy admits its port from any source: the API server is
     * not a pod), so anyone who reaches it may send a body: {@link BodyBudget#UNAUTHENTICATED}. An AdmissionReview
     * of a Binding is a few KB.
     */
    @Override
    public BodyBudget bodyBudget() {
        return BodyBudget.UNAUTHENTICATED;
    }

    @Override
    public WireReply handle(byte[] body) throws WireFormatException {
        JsonNode root = parse(body);
        String apiVersion = root.path("apiVersion").asText("");
        if (!apiVersion.equals("admission.k8s.io/v1") && !apiVersion.equals("admission.k8s.io/v1beta1")) {
            throw new WireFormatException(WireFormatException.Kind.WRONG_TYPE, NAME
                    + ": apiVersion must be admission.k8s.io/v1 (an AdmissionReview), got '" + apiVersion + "'");
        }
        JsonNode request = root.get("request");
        if (request == null || !request.isObject()) {
            throw WireJson.missing(NAME, "AdmissionReview has no request object");
        }
        String uid = request.path("uid").textValue();
        if (uid == null || uid.isEmpty()) {
            throw WireJson.missing(NAME, "request.uid is missing");
        }
        ArrayNode patch = decide(request);
        return WireReply.json(reply(apiVersion, uid, patch));
    }

    /** @return the JSON patch for the Binding, or null to let it through unchanged */
    private ArrayNode decide(JsonNode request) {
        String operation = request.path("operation").asText("");
        String resource = request.path("resource").path("resource").asText("");
        String subResource = request.path("subResource").asText("");
        JsonNode binding = request.get("object");
        if (!"CREATE".equals(operation) || !"pods".equals(resource) || !"binding".equals(subResource)
                || binding == null || !binding.isObject()) {
            count("skipped");
            LOG.debug("{}: not a pods/binding CREATE ({} {}/{}); allowed unchanged", NAME, LogText.escape(operation),
                    LogText.escape(resource), LogText.escape(subResource));
            return null;
        }
        String node = binding.path("target").path("name").asText("");
        String namespace = firstNonEmpty(request.path("namespace").asText(""),
                binding.path("metadata").path("namespace").asText(""));
        String name = firstNonEmpty(binding.path("metadata").path("name").asText(""),
                request.path("name").asText(""));
        if (ObjectNames.subdomainProblem(node).isPresent() || ObjectNames.labelProblem(namespace).isPresent()
                || ObjectNames.subdomainProblem(name).isPresent()) {
            // empty or not a name Kubernetes admits: the API server never sends such a Binding; nothing to add
            count("skipped");
            return null;
        }
        PodRef pod = new PodRef(namespace, name, binding.path("metadata").path("uid").asText(""));
        boolean dryRun = request.path("dryRun").asBoolean(false);
        HintLookup lookup = lookupWithin(pod, node);
        switch (lookup) {
            case HintLookup.Hints h -> {
                ArrayNode patch = annotationPatch(binding, h.annotations());
                count(patch.isEmpty() ? "unchanged" : "patched");
                return patch.isEmpty() ? null : patch;
            }
            case HintLookup.NotApplicable n -> {
                count("unchanged");
                LOG.debug("{}: no hints for {} on {}: {}", NAME, pod, node, LogText.escape(n.reason()));
                return null;
            }
            case HintLookup.NotReady r -> {
                count("deferred");
                if (!dryRun && backfill != null) {
                    backfill.enqueue(pod, node, r.reason());
                }
                DEFERRED.info("deferred", "{}: {} bound to {} without hints for now ({}){}", NAME, pod, node,
                        LogText.escape(r.reason()), dryRun ? "; dry run, no backfill" : "; queued for backfill");
                return null;
            }
        }
    }

    private HintLookup lookupWithin(PodRef pod, String node) {
        Future<HintLookup> f = lookups.submit(() -> BindingWriter.lookup(hints, pod, node));
        try {
            return f.get(budget.toNanos(), TimeUnit.NANOSECONDS);
        } catch (TimeoutException e) {
            f.cancel(true);
            return new HintLookup.NotReady("hint source did not answer within " + budget.toMillis() + " ms");
        } catch (InterruptedException e) {
            f.cancel(true);
            Thread.currentThread().interrupt();
            return new HintLookup.NotReady("interrupted while computing hints");
        } catch (ExecutionException e) {
            return new HintLookup.NotReady("hint source failed: " + e.getCause());
        }
    }

    /**
     * The RFC 6902 patch that sets {@code annotations} on {@code binding}: one {@code add} of the whole map when the
     * Binding has no annotations object (absent or null), else one {@code add} per key whose value differs.
     *
     * @return the operations; empty when the Binding already carries every value
     */
    static ArrayNode annotationPatch(JsonNode binding, Map<String, String> annotations) {
        ArrayNode ops = JSON.createArrayNode();
        Map<String, String> sorted = new TreeMap<>(annotations);
        JsonNode metadata = binding.get("metadata");
        if (metadata == null || !metadata.isObject()) {
            ObjectNode value = JSON.createObjectNode();
            sorted.forEach(value.putObject("annotations")::put);
            ops.addObject().put("op", "add").put("path", "/metadata").set("value", value);
            return ops;
        }
        JsonNode existing = metadata.get("annotations");
        if (existing == null || !existing.isObject()) {
            ObjectNode value = JSON.createObjectNode();
            sorted.forEach(value::put);
            ops.addObject().put("op", "add").put("path", "/metadata/annotations").set("value", value);
            return ops;
        }
        sorted.forEach((key, value) -> {
            JsonNode current = existing.get(key);
            if (current == null || !current.isTextual() || !current.textValue().equals(value)) {
                ops.addObject().put("op", "add").put("path", "/metadata/annotations/" + pointerToken(key))
                        .put("value", value);
            }
        });
        return ops;
    }

    /** RFC 6901 §3 escaping of one reference token: {@code ~} → {@code ~0} first, then {@code /} → {@code ~1}. */
    static String pointerToken(String key) {
        return key.replace("~", "~0").replace("/", "~1");
    }

    private static byte[] reply(String apiVersion, String uid, ArrayNode patch) {
        ObjectNode root = JSON.createObjectNode();
        root.put("apiVersion", apiVersion);
        root.put("kind", "AdmissionReview");
        ObjectNode response = root.putObject("response");
        response.put("uid", uid);
        response.put("allowed", true);
        if (patch != null) {
            try {
                response.put("patchType", "JSONPatch");
                response.put("patch", Base64.getEncoder().encodeToString(JSON.writeValueAsBytes(patch)));
            } catch (IOException e) {
                throw new java.io.UncheckedIOException(e);
            }
        }
        try {
            return JSON.writeValueAsBytes(root);
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    private static JsonNode parse(byte[] body) throws WireFormatException {
        if (body.length == 0) {
            throw new WireFormatException(WireFormatException.Kind.EMPTY_BODY,
                    NAME + ": empty request body, expected an AdmissionReview");
        }
        try {
            JsonNode root = JSON.readTree(body);
            if (root == null || !root.isObject()) {
                throw new WireFormatException(WireFormatException.Kind.WRONG_TYPE,
                        NAME + ": request body must be a JSON object (an AdmissionReview)");
            }
            return root;
        } catch (IOException e) {
            throw WireJson.translate(e, NAME);
        }
    }

    private static String firstNonEmpty(String a, String b) {
        return a.isEmpty() ? b : a;
    }

    private void count(String outcome) {
        registry.counter("railyard_binding_webhook_total", "outcome", outcome).increment();
    }
}
