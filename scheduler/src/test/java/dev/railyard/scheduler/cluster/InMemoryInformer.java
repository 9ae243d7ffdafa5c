package dev.railyard.scheduler.cluster;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.GenericKubernetesResourceList;
import io.fabric8.kubernetes.api.model.ListMetaBuilder;
import io.fabric8.kubernetes.api.model.ListOptions;
import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.Watcher;
import io.fabric8.kubernetes.client.dsl.internal.AbstractWatchManager;
import io.fabric8.kubernetes.client.informers.impl.ListerWatcher;
import io.fabric8.kubernetes.client.informers.impl.cache.CacheImpl;
import io.fabric8.kubernetes.client.informers.impl.cache.ProcessorStore;
import io.fabric8.kubernetes.client.informers.impl.cache.Reflector;
import io.fabric8.kubernetes.client.informers.impl.cache.SharedProcessor;

import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * One kind's informer wired as {@link ClusterCache} wires it ({@code informer.itemStore(new KeysOnlyItemStore(kind,
 * state))} with the namespace index removed: fabric8's {@link Reflector} over a {@link ProcessorStore} over a
 * {@link CacheImpl} holding a {@link KeysOnlyItemStore} that feeds the {@link ClusterState}), in front of an in-memory
 * API server holding the kind's objects. Watch events go through the reflector's own watcher, and a relist through
 * the reflector's own list-and-sync ({@link Reflector#listSyncAndWatch()}, what fabric8 runs after a broken watch),
 * in pages of {@link #PAGE} objects: the listed objects are stored one page at a time and the ones the list no longer
 * returns are removed by key, as in production. Everything runs on the calling thread. Not thread-safe.
 */
final class InMemoryInformer implements ListerWatcher<GenericKubernetesResource, GenericKubernetesResourceList> {
    /** Objects per page of a list: one, so a relist of several objects takes as many pages. */
    static final long PAGE = 1;

    /** An object as the API server holds it: the object it was written from, and its copy with a resourceVersion. */
    private record Stored(GenericKubernetesResource written, GenericKubernetesResource served) {
    }

    private final WatchedKind kind;
    private final Reflector<GenericKubernetesResource, GenericKubernetesResourceList> reflector;
    private final TreeMap<String, Stored> objects = new TreeMap<>();
    /** The server's objects as of the list being served, in key order (a list is a consistent read). */
    private List<GenericKubernetesResource> listing = List.of();
    private long resourceVersion;
    private Watcher<GenericKubernetesResource> watcher;

    /**
     * Starts the informer: its first list and its watch.
     *
     * @param kind  the kind
     * @param state where the store hands every object
     * @param first the objects the server holds at the start (the first of a key)
     */
    InMemoryInformer(WatchedKind kind, ClusterState state, Collection<GenericKubernetesResource> first) {
        this.kind = kind;
        for (GenericKubernetesResource o : first) {
            objects.putIfAbsent(ClusterState.key(kind, o), new Stored(o, served(o)));
        }
        // DefaultSharedIndexInformer's wiring (fabric8 8.0): a CacheImpl with the namespace index, given the item
        // store (SharedIndexInformer#itemStore), the index removed (#removeNamespaceIndex), a ProcessorStore over it
        CacheImpl<GenericKubernetesResource> cache = new CacheImpl<>();
        cache.setItemStore(new KeysOnlyItemStore(kind, state));
        cache.removeIndexer(CacheImpl.NAMESPACE_INDEX);
        ProcessorStore<GenericKubernetesResource> store = new ProcessorStore<>(cache, new SharedProcessor<>());
        reflector = new Reflector<>(this, store, Runnable::run);
        join(reflector.start());
    }

    /** The object is created or replaced on the server; the watch delivers ADDED or MODIFIED. */
    void write(GenericKubernetesResource o) {
        String key = ClusterState.key(kind, o);
        boolean known = objects.containsKey(key);
        Stored s = new Stored(o, served(o));
        objects.put(key, s);
        watcher.eventReceived(known ? Watcher.Action.MODIFIED : Watcher.Action.ADDED, s.served());
    }

    /**
     * The object is deleted on the server; the watch delivers DELETED (also for an object the server does not hold:
     * an event out of order, which the informer's store ignores).
     */
    void delete(GenericKubernetesResource o) {
        Stored s = objects.remove(ClusterState.key(kind, o));
        watcher.eventReceived(Watcher.Action.DELETED, s != null ? s.served() : served(o));
    }

    /**
     * While the watch was broken, the server's objects of the kind became {@code now} (objects written from the same
     * instance as the one held keep their resourceVersion: unchanged); then the informer lists them again.
     *
     * @param now the objects, one per key
     */
    void relist(Collection<GenericKubernetesResource> now) {
        Map<String, Stored> next = new LinkedHashMap<>();
        for (GenericKubernetesResource o : now) {
            String key = ClusterState.key(kind, o);
            Stored held = objects.get(key);
            next.put(key, held != null && held.written() == o ? held : new Stored(o, served(o)));
        }
        objects.clear();
        objects.putAll(next);
        join(reflector.listSyncAndWatch());
    }

    /** @return the objects the server holds, as it serves them (with resourceVersions), in key order */
    List<GenericKubernetesResource> served() {
        List<GenericKubernetesResource> out = new ArrayList<>();
        objects.values().forEach(s -> out.add(s.served()));
        return out;
    }

    /** @return the objects the server holds, as they were written (the test's own instances), in key order */
    List<GenericKubernetesResource> written() {
        List<GenericKubernetesResource> out = new ArrayList<>();
        objects.values().forEach(s -> out.add(s.written()));
        return out;
    }

    /** Stops the reflector (its watch timeout). */
    void stop() {
        reflector.stop();
    }

    /** @return a shallow copy of {@code o} with the server's next resourceVersion */
    private GenericKubernetesResource served(GenericKubernetesResource o) {
        GenericKubernetesResource c = new GenericKubernetesResource();
        c.setApiVersion(o.getApiVersion());
        c.setKind(o.getKind());
        c.setMetadata(new ObjectMetaBuilder(o.getMetadata()).withResourceVersion(Long.toString(++resourceVersion))
                .build());
        o.getAdditionalProperties().forEach(c::setAdditionalProperty);
        return c;
    }

    private static void join(CompletableFuture<?> f) {
        try {
            f.get(10, TimeUnit.SECONDS);
        } catch (Exception e) {
            throw new IllegalStateException("the reflector did not finish on the calling thread", e);
        }
    }

    @Override
    public CompletableFuture<GenericKubernetesResourceList> submitList(ListOptions options) {
        if (options.getContinue() == null) {
            listing = served();
        }
        int from = options.getContinue() == null ? 0 : Integer.parseInt(options.getContinue());
        int to = options.getLimit() == null ? listing.size()
                : (int) Math.min(listing.size(), from + options.getLimit());
        GenericKubernetesResourceList page = new GenericKubernetesResourceList();
        page.setItems(new ArrayList<>(listing.subList(from, to)));
        page.setMetadata(new ListMetaBuilder().withResourceVersion(Long.toString(resourceVersion))
                .withContinue(to < listing.size() ? Integer.toString(to) : null).build());
        return CompletableFuture.completedFuture(page);
    }

    @Override
    public CompletableFuture<AbstractWatchManager<GenericKubernetesResource>> submitWatch(ListOptions options,
            Watcher<GenericKubernetesResource> w) {
        watcher = w;
        return CompletableFuture.completedFuture(null);
    }

    @Override
    public Long getLimit() {
        return PAGE;
    }

    @Override
    public int getWatchReconnectInterval() {
        return 1000;
    }

    @Override
    public String getApiEndpointPath() {
        return kind.plural();
    }

    @Override
    public Config getConfig() {
        return Config.empty();
    }
}
