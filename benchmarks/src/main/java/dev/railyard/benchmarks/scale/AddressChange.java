package dev.railyard.benchmarks.scale;

import dev.railyard.api.whereabouts.IPAllocation;
import dev.railyard.api.whereabouts.IPPool;
import dev.railyard.api.whereabouts.IPPoolSpec;
import dev.railyard.e2e.SeedCluster;
import io.fabric8.kubernetes.api.model.ListOptionsBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Address changes as whereabouts makes them when a pod starts or ends: one allocation written into, or removed from,
 * one IPPool through the API server. Each is an IPAM change to Railyard (a new pool snapshot, the networks resolved
 * again, gang plans made again), unlike a pod status update. The pools are the first {@code count} the API server
 * lists in whereabouts' namespace (one per network, or node pools under node slices).
 */
final class AddressChange {
    private static final String PROBE = ClusterLayout.PROD + "/bench-address-probe";
    private final KubernetesClient client;
    private final List<String> pools;

    /**
     * @param count pools to take turns on
     * @throws IllegalStateException when the cluster has no IPPool
     */
    AddressChange(KubernetesClient client, int count) {
        this.client = client;
        this.pools = client.resources(IPPool.class).inNamespace(SeedCluster.WHEREABOUTS_NAMESPACE)
                .list(new ListOptionsBuilder().withLimit((long) count).build()).getItems().stream()
                .map(p -> p.getMetadata().getName()).toList();
        if (pools.isEmpty()) {
            throw new IllegalStateException("no IPPool in namespace " + SeedCluster.WHEREABOUTS_NAMESPACE);
        }
    }

    /**
     * Allocates one more address in pool {@code k} (modulo the pools) to a pod that does not exist, at the lowest
     * offset the pool does not hold, as whereabouts' first-fit does.
     *
     * @return the offset written
     */
    String allocate(int k) {
        IPPool pool = read(k);
        Map<String, IPAllocation> a = new LinkedHashMap<>(pool.getSpec().allocations());
        int offset = 1;
        while (a.containsKey(Integer.toString(offset))) {
            offset++;
        }
        String key = Integer.toString(offset);
        a.put(key, new IPAllocation(String.format("%064x", 0xadd0L + k), PROBE, "net1"));
        write(pool, a);
        return key;
    }

    /** Removes the allocation {@link #allocate} wrote into pool {@code k}. */
    void release(int k, String offset) {
        IPPool pool = read(k);
        Map<String, IPAllocation> a = new LinkedHashMap<>(pool.getSpec().allocations());
        a.remove(offset);
        write(pool, a);
    }

    private IPPool read(int k) {
        return client.resources(IPPool.class).inNamespace(SeedCluster.WHEREABOUTS_NAMESPACE)
                .withName(pools.get(k % pools.size())).get();
    }

    private void write(IPPool pool, Map<String, IPAllocation> allocations) {
        pool.setSpec(new IPPoolSpec(pool.getSpec().range(), allocations));
        ClusterPopulator.retry(() -> client.resource(pool).update());
    }
}
