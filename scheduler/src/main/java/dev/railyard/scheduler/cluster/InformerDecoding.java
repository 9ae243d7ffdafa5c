package dev.railyard.scheduler.cluster;

import com.fasterxml.jackson.annotation.JsonAnySetter;
import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.ObjectMeta;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import io.fabric8.kubernetes.model.jackson.Jackson2JdkTypesModule;
import tools.jackson.core.JsonParser;
import tools.jackson.core.JsonToken;
import tools.jackson.databind.DeserializationContext;
import tools.jackson.databind.ValueDeserializer;
import tools.jackson.databind.annotation.JsonDeserialize;
import tools.jackson.databind.json.JsonMapper;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The decoding of the informers' own client ({@link ClusterCache} makes one from the caller's), which differs from
 * fabric8's default in two ways, neither of which changes a value Railyard reads.
 *
 * <ol>
 *   <li><b>Watch events decode straight into {@link GenericKubernetesResource}</b>, the informers' type, for every
 *   {@link WatchedKind}. fabric8 otherwise decodes a Pod or Node event into its typed class and then converts it to
 *   the generic one (serialize and decode again): three passes per event, 94 % of the informer thread's time under
 *   the 5,000-node benchmark's churn (docs/performance.md, "Watch events").</li>
 *   <li><b>Two fields Railyard never reads are skipped</b>: {@code metadata.managedFields} (server-side apply's
 *   bookkeeping; 41 % of the pods' JSON in the 5,000-node benchmark's cluster) and a Node's {@code status.images}
 *   (the kubelet's list of cached images; 59 % of the nodes'). In a list they are skipped token by token, never
 *   built; a watch event is first read whole into a JSON tree (fabric8 8.0.0's {@code KubernetesDeserializer}), so
 *   there they are only left out of the maps made from it. Everything else decodes exactly as with the default
 *   (the same untyped maps, number types and strings), so the conversions ({@link NodeFields}, {@link PodView},
 *   ...) see the same values.</li>
 * </ol>
 *
 * <p>The Pod informer has a client of its own whose decoding keeps still less of a Pod ({@link PodDecoding}).
 *
 * <p>Only the informers use this client. Writes (Bindings, Events, hint patches, leases) go through the caller's
 * client, so no object read here is written back without its managed fields, and the caller's typed reads keep
 * fabric8's own decoding.
 */
public final class InformerDecoding {
    private InformerDecoding() {
    }

    /**
     * @param from the client whose server, credentials and timeouts to use
     * @return a new client with {@link #serialization()}; the caller closes it
     */
    static KubernetesClient client(KubernetesClient from) {
        return client(from, serialization());
    }

    /** @return a new client with {@code from}'s server, credentials and timeouts and this decoding */
    static KubernetesClient client(KubernetesClient from, KubernetesSerialization serialization) {
        return new KubernetesClientBuilder().withConfig(from.getConfiguration())
                .withKubernetesSerialization(serialization).build();
    }

    /** @return a new serialization that decodes as described above; thread-safe, as fabric8's own */
    public static KubernetesSerialization serialization() {
        return serialization(TopLevelFields.class);
    }

    /**
     * @param topLevelMixIn the mix-in for {@link GenericKubernetesResource} that says how its top-level fields other
     *                      than metadata are read
     * @return a new serialization: fabric8's default mapper, metadata without managed fields, the mix-in, and every
     *         {@link WatchedKind}'s watch events decoded straight into {@link GenericKubernetesResource}
     */
    static KubernetesSerialization serialization(Class<?> topLevelMixIn) {
        // fabric8's own default mapper (KubernetesSerialization's no-argument constructor, fabric8 8.0.0), plus the
        // two mix-ins
        JsonMapper mapper = JsonMapper.builderWithJackson2Defaults()
                .addModule(new Jackson2JdkTypesModule())
                .addMixIn(ObjectMeta.class, MetadataWithoutManagedFields.class)
                .addMixIn(GenericKubernetesResource.class, topLevelMixIn)
                .build();
        KubernetesSerialization serialization = new KubernetesSerialization(mapper, true);
        for (WatchedKind kind : WatchedKind.ALL) {
            serialization.registerKubernetesResource(kind.apiVersion(), kind.kind(), GenericKubernetesResource.class);
        }
        return serialization;
    }

    /** Mix-in for {@link ObjectMeta}: its {@code managedFields} are skipped, never built. */
    @JsonIgnoreProperties({"managedFields"})
    abstract static class MetadataWithoutManagedFields {
    }

    /** Mix-in for {@link GenericKubernetesResource}: its top-level fields other than metadata pass through one reader. */
    abstract static class TopLevelFields {
        // contentUsing: Jackson 3.2 ignores `using` on an any-setter's values (InformerDecodingTest holds this)
        @JsonAnySetter
        @JsonDeserialize(contentUsing = TopLevelValue.class)
        abstract void setAdditionalProperty(String name, Object value);
    }

    /**
     * Reads one top-level field of an object (spec, status, data, ...) as fabric8's default would (untyped maps,
     * lists, numbers, strings), except that an {@code images} entry directly under {@code status} is skipped. Only a
     * Node has one among the watched kinds; a Pod's images are under {@code status.containerStatuses}, untouched.
     */
    static final class TopLevelValue extends ValueDeserializer<Object> {
        @Override
        public Object deserialize(JsonParser p, DeserializationContext ctxt) {
            if (p.currentToken() != JsonToken.START_OBJECT || !"status".equals(p.currentName())) {
                return ctxt.readValue(p, Object.class);
            }
            Map<String, Object> status = new LinkedHashMap<>();
            for (String name = p.nextName(); name != null; name = p.nextName()) {
                p.nextToken();
                if ("images".equals(name)) {
                    p.skipChildren();
                } else {
                    status.put(name, ctxt.readValue(p, Object.class));
                }
            }
            return status;
        }
    }
}
