package dev.railyard.scheduler.cluster;

import com.fasterxml.jackson.annotation.JsonAnySetter;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import tools.jackson.core.JsonParser;
import tools.jackson.core.JsonToken;
import tools.jackson.databind.DeserializationContext;
import tools.jackson.databind.ValueDeserializer;
import tools.jackson.databind.annotation.JsonDeserialize;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The Pod informer's decoding: of a Pod's {@code spec} and {@code status} it keeps only what {@link PodView#of}
 * reads, and skips the rest token by token without building it. Metadata decodes as in {@link InformerDecoding}
 * (without managed fields).
 *
 * <p>Kept: {@code spec.nodeName}, {@code hostNetwork}, {@code schedulerName}, {@code nodeSelector}, {@code overhead},
 * {@code affinity.nodeAffinity}, {@code containers[].name} and {@code .resources}, {@code initContainers[].name},
 * {@code .resources} and {@code .restartPolicy}; {@code status.phase}. Each kept value decodes exactly as with
 * fabric8's default (the same untyped maps, number types and strings). A value of another shape than a Pod's is
 * read by the same rules: a scalar whole, a list element by element (so {@code containers} given as one object is
 * filtered as a container would be); either way {@link PodView#of} reads it as it read the default's. Skipped: everything else, for example containers' images, commands, environment, probes and
 * volume mounts, volumes, tolerations, and the status's conditions and container statuses. In the 5,000-node
 * benchmark's cluster that is about two thirds of a Pod's JSON after its managed fields, and real pods carry
 * more (docs/performance.md, "A Pod decoded as far as PodView reads it").
 *
 * <p>Only for the Pod informer: the state keeps a Pod only as its {@link PodView} (docs/adr/0008), so nothing else
 * reads what is skipped. {@code PodDecodingTest} holds the decoding to {@link PodView#of} on real and made-up pods.
 */
public final class PodDecoding {
    private PodDecoding() {
    }

    /** Marks a value kept whole. */
    private static final Map<String, Object> WHOLE = Map.of();
    private static final Map<String, Object> SPEC = Map.of(
            "nodeName", WHOLE, "hostNetwork", WHOLE, "schedulerName", WHOLE, "nodeSelector", WHOLE,
            "overhead", WHOLE, "affinity", Map.of("nodeAffinity", WHOLE),
            "containers", Map.of("name", WHOLE, "resources", WHOLE),
            "initContainers", Map.of("name", WHOLE, "resources", WHOLE, "restartPolicy", WHOLE));
    private static final Map<String, Object> STATUS = Map.of("phase", WHOLE);

    /**
     * @param from the client whose server, credentials and timeouts to use
     * @return a new client with {@link #serialization()}; the caller closes it
     */
    static KubernetesClient client(KubernetesClient from) {
        return InformerDecoding.client(from, serialization());
    }

    /** @return a new serialization for Pods, as described above; thread-safe */
    public static KubernetesSerialization serialization() {
        return InformerDecoding.serialization(PodTopLevelFields.class);
    }

    /** Mix-in for {@link GenericKubernetesResource}: a Pod's top-level fields pass through one reader. */
    abstract static class PodTopLevelFields {
        // contentUsing, as InformerDecoding.TopLevelFields (Jackson 3.2 ignores `using` on an any-setter's values)
        @JsonAnySetter
        @JsonDeserialize(contentUsing = PodTopLevelValue.class)
        abstract void setAdditionalProperty(String name, Object value);
    }

    /** Reads a Pod's top-level field: {@code spec} and {@code status} as kept above, anything else whole. */
    static final class PodTopLevelValue extends ValueDeserializer<Object> {
        @Override
        public Object deserialize(JsonParser p, DeserializationContext ctxt) {
            String name = p.currentName();
            Map<String, Object> keep = "spec".equals(name) ? SPEC : "status".equals(name) ? STATUS : WHOLE;
            return read(p, ctxt, keep);
        }
    }

    /**
     * Reads the value at the parser's current token: all of it when {@code keep} is {@link #WHOLE} or the value is a
     * scalar; of an object, {@code keep}'s entries, each read with its own entry; of a list, each element by these
     * rules with {@code keep}.
     */
    @SuppressWarnings("unchecked")
    static Object read(JsonParser p, DeserializationContext ctxt, Map<String, Object> keep) {
        JsonToken t = p.currentToken();
        if (keep == WHOLE || (t != JsonToken.START_OBJECT && t != JsonToken.START_ARRAY)) {
            return ctxt.readValue(p, Object.class);
        }
        if (t == JsonToken.START_ARRAY) {
            List<Object> list = new ArrayList<>();
            while (p.nextToken() != JsonToken.END_ARRAY) {
                list.add(read(p, ctxt, keep));
            }
            return list;
        }
        Map<String, Object> map = new LinkedHashMap<>();
        for (String name = p.nextName(); name != null; name = p.nextName()) {
            p.nextToken();
            Map<String, Object> inner = (Map<String, Object>) keep.get(name);
            if (inner == null) {
                p.skipChildren();
            } else {
                map.put(name, read(p, ctxt, inner));
            }
        }
        return map;
    }
}
