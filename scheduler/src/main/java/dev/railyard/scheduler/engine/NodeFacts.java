package dev.railyard.scheduler.engine;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import com.github.benmanes.caffeine.cache.Interner;

import java.util.List;
import java.util.Objects;
import java.util.Set;

/**
 * What the gang planner reads of every node on every plan, worked out once per {@link NodeState} instance: its free
 * GPU count and its {@link TwinKey}. The cluster state keeps a node's instance while its record is unchanged
 * (docs/adr/0008), so a plan made after one pod change works these out for the changed nodes only, not for the whole
 * cluster. Held weakly by instance: an entry goes when its node state is no longer referenced. Thread-safe.
 */
final class NodeFacts {
    /**
     * What makes two nodes' {@link NodeRailView}s identical for one pod shape: the same topology instance, allocated
     * GPUs, RDMA resources and schedulability. Interned, so keys of twin nodes are one instance and compare by
     * identity ({@link NodeViews#build}).
     */
    static final class TwinKey {
        private final Object spec;
        private final Set<Integer> allocated;
        private final List<HcaResource> resources;
        private final boolean schedulable;
        private final int hash;

        private TwinKey(NodeState ns) {
            this.spec = ns.topology();
            this.allocated = ns.allocatedGpus();
            this.resources = ns.hcaResources();
            this.schedulable = ns.schedulable();
            this.hash = Objects.hash(System.identityHashCode(spec), allocated, resources, schedulable);
        }

        @Override
        public boolean equals(Object o) {
            // the topology by instance, as the engine's caches keyed by spec instance see it
            return o instanceof TwinKey k && hash == k.hash && spec == k.spec && schedulable == k.schedulable
                    && allocated.equals(k.allocated) && resources.equals(k.resources);
        }

        @Override
        public int hashCode() {
            return hash;
        }
    }

    /**
     * @param twin     the node's interned twin key
     * @param freeGpus {@link NodeState#freeGpuCount()}
     */
    record Fact(TwinKey twin, int freeGpus) {
    }

    private final Cache<NodeState, Fact> facts = Caffeine.newBuilder().weakKeys().build();
    private final Interner<TwinKey> keys = Interner.newWeakInterner();

    /** @return the node's facts (worked out on the first call for this instance) */
    Fact of(NodeState node) {
        Fact f = facts.getIfPresent(node);
        if (f == null) {
            f = new Fact(keys.intern(new TwinKey(node)), node.freeGpuCount());
            facts.put(node, f);
        }
        return f;
    }
}
