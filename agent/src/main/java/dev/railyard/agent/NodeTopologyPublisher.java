package dev.railyard.agent;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.MapperFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.json.JsonMapper;
import dev.railyard.api.topology.NodeTopology;
import dev.railyard.api.topology.NodeTopologySpec;
import dev.railyard.api.topology.NodeTopologyStatus;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.dsl.EditReplacePatchable;
import io.fabric8.kubernetes.client.dsl.Resource;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import io.fabric8.kubernetes.client.dsl.base.ResourceDefinitionContext;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * Writes a node's {@code NodeTopology} ({@code railyard.dev/v1alpha1}, cluster-scoped, named after the node) with
 * server-side apply as field manager {@value #FIELD_MANAGER}, forcing conflicts (the agent owns its node's object):
 * first the object with its spec, then the {@code status} subresource.
 *
 * <p>The apply bodies are JSON written by Jackson with nulls left out (an absent field, not a null, is what SSA
 * expects) and without {@code isX()} convenience methods of the model records; they go through fabric8's generic
 * resources, so the API server's answer is never bound to the model classes (a newer CRD with more fields does not
 * break an older agent). A server that answers the apply of a missing object with 404 (some test servers do; a real
 * API server creates it) gets a create instead, and one that does not implement server-side apply at all (415
 * Unsupported Media Type, as fabric8's mock server in CRUD mode) gets JSON Patches from then on, each replacing
 * {@code spec} or {@code status} whole, which leaves the same object as the apply. Errors from
 * the API server propagate as {@link KubernetesClientException}.
 *
 * <p>{@link #stored} reads the object back (one {@code get}, when an agent starts) so that a restarted agent does not
 * rewrite an unchanged object; unknown fields (from a newer CRD) are ignored there. Thread-safe if the client is.
 */
public final class NodeTopologyPublisher implements NodeTopologySink {
    /** Field manager of every write. */
    public static final String FIELD_MANAGER = "railyard-agent";
    /** Label put on every object this agent writes. */
    public static final String MANAGED_BY_LABEL = "app.kubernetes.io/managed-by";

    private static final ObjectMapper JSON = JsonMapper.builder()
            .disable(MapperFeature.AUTO_DETECT_IS_GETTERS)
            .disable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES)
            .defaultPropertyInclusion(JsonInclude.Value.construct(JsonInclude.Include.NON_NULL,
                    JsonInclude.Include.NON_NULL))
            .build();

    private static final Logger LOG = LoggerFactory.getLogger(NodeTopologyPublisher.class);
    private static final ResourceDefinitionContext CONTEXT =
            ResourceDefinitionContext.fromResourceType(NodeTopology.class);

    private final KubernetesClient client;
    private volatile boolean applyUnsupported;

    /** @param client client of the cluster (needs get/create/patch on nodetopologies and nodetopologies/status) */
    public NodeTopologyPublisher(KubernetesClient client) {
        this.client = Objects.requireNonNull(client);
    }

    /**
     * Applies the object and then its status.
     *
     * @param desired what the object should hold
     * @throws KubernetesClientException when the API server refuses or cannot be reached
     */
    @Override
    public void publish(DesiredNodeTopology desired) {
        Resource<GenericKubernetesResource> named = client.genericKubernetesResources(CONTEXT)
                .withName(desired.nodeName());
        Map<String, Object> object = skeleton(desired.nodeName(), true);
        if (desired.spec() != null) {
            object.put("spec", desired.spec());
        }
        GenericKubernetesResource body = client.getKubernetesSerialization().unmarshal(json(object),
                GenericKubernetesResource.class);
        try {
            write(() -> client.genericKubernetesResources(CONTEXT).resource(body).fieldManager(FIELD_MANAGER)
                    .forceConflicts().serverSideApply(), named, "/spec", desired.spec());
        } catch (KubernetesClientException e) {
            if (e.getCode() != 404) {
                throw e;
            }
            client.genericKubernetesResources(CONTEXT).resource(body).create();
        }
        Map<String, Object> status = skeleton(desired.nodeName(), false);
        status.put("status", desired.status());
        String statusBody = json(status);
        EditReplacePatchable<GenericKubernetesResource> statusResource = named.subresource("status");
        write(() -> statusResource.patch(applyContext(), statusBody), statusResource, "/status", desired.status());
    }

    /**
     * Reads the node's object as the API server holds it.
     *
     * @param nodeName node name = object name
     * @return its spec and status as the model records (either null when absent or not readable as this version's
     *         model, e.g. written by an incompatible agent: the agent then rewrites that part), or empty when there is
     *         no object
     * @throws KubernetesClientException when the API server refuses (e.g. 403 without {@code get} on
     *                                   {@code nodetopologies}) or cannot be reached
     */
    @Override
    public Optional<DesiredNodeTopology> stored(String nodeName) {
        GenericKubernetesResource stored = client.genericKubernetesResources(CONTEXT).withName(nodeName).get();
        if (stored == null) {
            return Optional.empty();
        }
        Map<String, Object> fields = stored.getAdditionalProperties();
        return Optional.of(new DesiredNodeTopology(nodeName, read(fields.get("spec"), NodeTopologySpec.class, nodeName),
                read(fields.get("status"), NodeTopologyStatus.class, nodeName)));
    }

    private static <T> T read(Object part, Class<T> type, String nodeName) {
        if (part == null) {
            return null;
        }
        try {
            return JSON.convertValue(part, type);
        } catch (IllegalArgumentException e) {
            LOG.warn("stored NodeTopology {}: {} not readable, it will be rewritten: {}", nodeName,
                    type.getSimpleName(), String.valueOf(e.getMessage()).replaceAll("\\s+", " ").strip());
            return null;
        }
    }

    /**
     * Runs {@code apply}. On a server without server-side apply (415) it writes, from then on, a JSON Patch
     * (RFC 6902) {@code add} of {@code value} at {@code path} of {@code target}, which replaces that part whole.
     */
    private void write(Runnable apply, EditReplacePatchable<GenericKubernetesResource> target, String path,
                       Object value) {
        if (!applyUnsupported) {
            try {
                apply.run();
                return;
            } catch (KubernetesClientException e) {
                if (e.getCode() != 415) {
                    throw e;
                }
                applyUnsupported = true;
                LOG.warn("API server refuses server-side apply (415); writing NodeTopology with JSON patches");
            }
        }
        if (value != null) {
            target.patch(PatchContext.of(PatchType.JSON),
                    json(List.of(Map.of("op", "add", "path", path, "value", value))));
        }
    }

    private static Map<String, Object> skeleton(String name, boolean labels) {
        Map<String, Object> object = new LinkedHashMap<>();
        object.put("apiVersion", NodeTopology.GROUP + "/" + NodeTopology.VERSION);
        object.put("kind", "NodeTopology");
        object.put("metadata", labels ? Map.of("name", name, "labels", Map.of(MANAGED_BY_LABEL, FIELD_MANAGER))
                : Map.of("name", name));
        return object;
    }

    private static PatchContext applyContext() {
        PatchContext context = PatchContext.of(PatchType.SERVER_SIDE_APPLY);
        context.setFieldManager(FIELD_MANAGER);
        context.setForce(true);
        return context;
    }

    /**
     * @param desired an object to publish
     * @return the whole object as JSON, as the agent would write it (metadata, spec, status; no nulls), for
     *         {@code railyard agent --dry-run} and bug reports
     */
    public static String toJson(DesiredNodeTopology desired) {
        Map<String, Object> object = skeleton(desired.nodeName(), true);
        if (desired.spec() != null) {
            object.put("spec", desired.spec());
        }
        object.put("status", desired.status());
        return json(object);
    }

    /** @return the apply body Jackson writes for {@code value} (nulls and {@code isX()} methods left out) */
    static String json(Object value) {
        try {
            return JSON.writeValueAsString(value);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("cannot serialize NodeTopology: " + e.getMessage(), e);
        }
    }
}
