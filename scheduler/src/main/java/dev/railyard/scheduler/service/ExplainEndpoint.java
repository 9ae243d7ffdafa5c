package dev.railyard.scheduler.service;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.railyard.scheduler.cluster.ClusterObjects;
import dev.railyard.scheduler.cluster.ClusterView;
import dev.railyard.scheduler.explain.Explanation;
import dev.railyard.scheduler.ipam.IpamSnapshot;
import dev.railyard.scheduler.explain.ExplainRequest;
import dev.railyard.scheduler.explain.Explainer;
import dev.railyard.scheduler.explain.ExplanationJson;
import dev.railyard.scheduler.input.LogText;
import dev.railyard.scheduler.input.ObjectNames;
import dev.railyard.scheduler.protocol.PodJson;
import dev.railyard.scheduler.protocol.VerbHandler;
import dev.railyard.scheduler.protocol.WireFormatException;
import dev.railyard.scheduler.protocol.WireReply;
import dev.railyard.topology.InputException;

import java.nio.charset.StandardCharsets;
import java.util.function.Supplier;

/**
 * {@code POST /explain} on the running service: the same JSON as {@code railyard explain -o json}
 * (schema in docs/explain.md), computed on the service's current cluster objects.
 *
 * <p>Request body: {@code {"command": "job" | "pod" | "pools", "namespace": "prod", "name": "rdma-test"}}
 * ({@code namespace} and {@code name} are not used by {@code pools}). A body that is not such an object gets 400
 * with one line; a job or pod that does not exist gets 404; a cache that has not synced gets 503.
 */
public final class ExplainEndpoint implements VerbHandler {
    /** Path the endpoint is served at. */
    public static final String PATH = "/explain";
    /** Unknown keys, duplicate keys and anything after the object are refused (docs/hostile-input.md). */
    private static final ObjectMapper JSON = new ObjectMapper()
            .enable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES)
            .enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS)
            .enable(com.fasterxml.jackson.core.JsonParser.Feature.STRICT_DUPLICATE_DETECTION);

    static {
        // a number or boolean where a string belongs is refused, not turned into "1" and sent on to RBAC checks
        var textual = JSON.coercionConfigFor(com.fasterxml.jackson.databind.type.LogicalType.Textual);
        for (var shape : new com.fasterxml.jackson.databind.cfg.CoercionInputShape[] {
                com.fasterxml.jackson.databind.cfg.CoercionInputShape.Integer,
                com.fasterxml.jackson.databind.cfg.CoercionInputShape.Float,
                com.fasterxml.jackson.databind.cfg.CoercionInputShape.Boolean}) {
            textual.setCoercion(shape, com.fasterxml.jackson.databind.cfg.CoercionAction.Fail);
        }
    }

    private final Supplier<ClusterView> views;
    private final Supplier<IpamSnapshot> ipam;
    private final Explainer explainer;

    /** The request body. */
    record Body(String command, String namespace, String name) {
    }

    /**
     * @param views     the cluster state's current view, or null while the informers have not synced
     * @param ipam      the live ledger's objects ({@code IpPoolLedger#snapshot()})
     * @param explainer the explainer (with the service's engine settings)
     */
    public ExplainEndpoint(Supplier<ClusterView> views, Supplier<IpamSnapshot> ipam, Explainer explainer) {
        this.views = views;
        this.ipam = ipam;
        this.explainer = explainer;
    }

    /**
     * Over a source of whole object lists (a snapshot directory, a test): each request builds its view from them.
     *
     * @param objects   the cluster objects
     * @param explainer the explainer
     */
    public ExplainEndpoint(Supplier<ClusterObjects> objects, Explainer explainer) {
        this.views = null;
        this.ipam = null;
        this.objectSource = objects;
        this.explainer = explainer;
    }

    private Supplier<ClusterObjects> objectSource;

    @Override
    public WireReply handle(byte[] body) throws WireFormatException {
        return answer(parse(body));
    }

    /**
     * Reads the request body.
     *
     * @throws WireFormatException when it is not {@code {"command": "job|pod|pools", "namespace", "name"}} (unknown
     *                             and duplicate keys refused), or a job or pod lacks its namespace or name
     */
    public static ExplainRequest parse(byte[] body) throws WireFormatException {
        Body b;
        try {
            b = JSON.readValue(body, Body.class);
        } catch (JsonProcessingException e) {
            throw new WireFormatException(WireFormatException.Kind.MALFORMED_JSON, "explain: body must be {\"command\": \"job|pod|pools\", \"namespace\": ..., "
                    + "\"name\": ...}: " + e.getOriginalMessage());
        } catch (java.io.IOException e) {
            throw new WireFormatException(WireFormatException.Kind.MALFORMED_JSON, "explain: cannot read the body: " + e.getMessage());
        }
        if (b == null || b.command() == null) {
            throw new WireFormatException(WireFormatException.Kind.MISSING_FIELD, "explain: \"command\" is missing (job, pod or pools)");
        }
        return switch (b.command()) {
            case ExplainRequest.POOLS -> ExplainRequest.pools();
            case ExplainRequest.JOB, ExplainRequest.POD -> {
                if (b.namespace() == null || b.name() == null) {
                    throw new WireFormatException(WireFormatException.Kind.MISSING_FIELD, "explain " + b.command() + ": \"namespace\" and \"name\" are required");
                }
                // PodGroups, Volcano Jobs and pods are named by DNS-1123 subdomains in DNS-1123 label namespaces
                PodJson.checkName("explain " + b.command(), "namespace", b.namespace(), ObjectNames.labelProblem(b.namespace()));
                PodJson.checkName("explain " + b.command(), "name", b.name(), ObjectNames.subdomainProblem(b.name()));
                yield b.command().equals(ExplainRequest.JOB) ? ExplainRequest.job(b.namespace(), b.name())
                        : ExplainRequest.pod(b.namespace(), b.name());
            }
            default -> throw new WireFormatException(WireFormatException.Kind.WRONG_TYPE, "explain: unknown command \"" + b.command()
                    + "\" (job, pod or pools)");
        };
    }

    /** The explanation of a parsed request: 200 JSON, 404 for an unknown job or pod, 503 before the cache synced. */
    public WireReply answer(ExplainRequest request) {
        String json;
        try {
            Explanation answer;
            if (objectSource != null) {
                ClusterObjects now = objectSource.get();
                if (!now.synced()) {
                    return WireReply.text(503, "explain: the cluster cache has not synced yet");
                }
                answer = explainer.explain(now, request, Explainer.Context.service());
            } else {
                ClusterView view = views.get();
                if (view == null) {
                    return WireReply.text(503, "explain: the cluster cache has not synced yet");
                }
                answer = explainer.explain(view, ipam.get(), request, Explainer.Context.service());
            }
            json = ExplanationJson.write(answer);
        } catch (InputException e) {
            return WireReply.text(404, LogText.escape(e.getMessage()));
        }
        return WireReply.json(json.getBytes(StandardCharsets.UTF_8));
    }
}
