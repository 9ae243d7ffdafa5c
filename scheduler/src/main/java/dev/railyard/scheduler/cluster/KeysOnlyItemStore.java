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
 * {@code resourceVersion}: the key, and the version it compares to skip unchanged objects on a relist), and handing
 * the full object to the {@link ClusterState} as the informer stores it: synchronously, before fabric8 notifies any
 * handler, so the state is as current as the informer's own store and is complete when the informer reports synced
 * (docs/adr/0008). Objects a relist no longer returns are removed by key. The store says it does not hold the full
 * state ({@link #isFullState()} false), so fabric8's {@code ProcessorStore} does not replay the first list's adds
 * from it (fabric8 kubernetes-client 8.0 {@code informers/impl/cache/ProcessorStore#updateInternal}). Thread-safe.
 */
public final class KeysOnlyItemStore implements ItemStore<GenericKubernetesResource> {
    private final Map<String, GenericKubernetesResource> items = new ConcurrentHashMap<>();
    private final WatchedKind kind;
    private final ClusterState state;

    /**
     * @param kind  the kind the informer watches
     * @param state where every stored object and every removal goes; null to keep stubs only
     */
    public KeysOnlyItemStore(WatchedKind kind, ClusterState state) {
        this.kind = kind;
        this.state = state;
    }

    @Override
    public String getKey(GenericKubernetesResource obj) {
        return Cache.metaNamespaceKeyFunc(obj);
    }

    @Override
    public GenericKubernetesResource put(String key, GenericKubernetesResource obj) {
        if (state != null) {
            state.upsert(kind, obj);
        }
        return items.put(key, stub(obj));
    }

    @Override
    public GenericKubernetesResource remove(String key) {
        GenericKubernetesResource old = items.remove(key);
        if (state != null && old != null) {
            state.delete(kind, old);
        }
        return old;
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
