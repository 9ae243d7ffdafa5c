package dev.railyard.scheduler.cluster;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.ObjectMeta;
import io.fabric8.kubernetes.client.informers.cache.Cache;
import io.fabric8.kubernetes.client.informers.cache.ItemStore;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.stream.Stream;

/**
 * The informer's store, keeping of each object only what the informer itself needs (kind, name, namespace, UID and
 * {@code resourceVersion}: the key, and the version it compares to skip unchanged objects on a relist), since
 * {@link ClusterState} keeps its own compact records. The full object still reaches the event handlers: the store
 * says it does not hold the full state ({@link #isFullState()} false), so fabric8's {@code ProcessorStore} hands
 * each listed object to the handlers as it comes instead of deferring the adds of the first list and replaying them
 * from the store (fabric8 kubernetes-client 8.0 {@code informers/impl/cache/ProcessorStore#updateInternal}; see
 * docs/adr/0006). Objects a relist no longer returns are deleted with their stored stub, which carries the key.
 * Thread-safe.
 */
public final class KeysOnlyItemStore implements ItemStore<GenericKubernetesResource> {
    private final Map<String, GenericKubernetesResource> items = new ConcurrentHashMap<>();

    @Override
    public String getKey(GenericKubernetesResource obj) {
        return Cache.metaNamespaceKeyFunc(obj);
    }

    @Override
    public GenericKubernetesResource put(String key, GenericKubernetesResource obj) {
        return items.put(key, stub(obj));
    }

    @Override
    public GenericKubernetesResource remove(String key) {
        return items.remove(key);
    }

    @Override
    public Stream<String> keySet() {
        return items.keySet().stream();
    }

    @Override
    public Stream<GenericKubernetesResource> values() {
        return items.values().stream();
    }

    @Override
    public int size() {
        return items.size();
    }

    @Override
    public GenericKubernetesResource get(String key) {
        return items.get(key);
    }

    @Override
    public boolean isFullState() {
        return false;
    }

    /** @return kind, apiVersion and the metadata fields name, namespace, uid, resourceVersion of {@code obj} */
    static GenericKubernetesResource stub(GenericKubernetesResource obj) {
        GenericKubernetesResource s = new GenericKubernetesResource();
        s.setApiVersion(Interner.of(obj.getApiVersion()));
        s.setKind(Interner.of(obj.getKind()));
        ObjectMeta m = obj.getMetadata();
        if (m != null) {
            ObjectMeta sm = new ObjectMeta();
            sm.setName(m.getName());
            sm.setNamespace(Interner.of(m.getNamespace()));
            sm.setUid(m.getUid());
            sm.setResourceVersion(m.getResourceVersion());
            s.setMetadata(sm);
        }
        return s;
    }
}
