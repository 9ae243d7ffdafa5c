package dev.railyard.benchmarks.scale;

import dev.railyard.api.multus.NetworkAttachmentDefinition;
import dev.railyard.api.whereabouts.IPPool;
import dev.railyard.api.whereabouts.NodeSlicePool;
import dev.railyard.scheduler.ipam.IpPoolLedger;
import dev.railyard.scheduler.ipam.IpamSnapshot;
import dev.railyard.scheduler.ipam.PodNetworksRequest;
import dev.railyard.scheduler.ipam.PoolReason;
import dev.railyard.scheduler.ipam.PoolStatus;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The benchmark's networks in both shapes, read back by Railyard's own pool ledger: what the benchmark stores must be
 * what whereabouts would store (docs/formats/whereabouts.md §1, §6), or its figures measure a cluster no one runs.
 */
class ScaleNetworksTest {
    private static final KubernetesSerialization SER = new KubernetesSerialization();

    @Test
    void theShapeFollowsWhatOneIPPoolCanHold() {
        assertThat(ScaleNetworks.of(5_000, 15_000).nodeSlices()).isFalse();
        // 20,000 nodes × 4 pods held 17,050 addresses per network: more than one IPPool object stores (§6)
        assertThat(ScaleNetworks.of(20_000, 17_050).nodeSlices()).isTrue();
        assertThatThrownBy(() -> ScaleNetworks.of(40_000, 34_000)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("32,768 node slices");
    }

    @Test
    void onePoolPerNetworkCountsOffsetsFromTheNetworkAddress() {
        ScaleNetworks one = ScaleNetworks.of(10, 3);
        // the k-th holder holds offset k+2; offset 300 = 1 * 256 + 44 in 10.8.0.0/16 (the second network)
        assertThat(one.offset(0, 0)).isEqualTo(2);
        assertThat(one.networkStatus(7, 300)).contains("\"10.8.1.44\"").contains("\"10.4.1.44\"");
        List<IPPool> pools = one.pools(List.of(new ScaleNetworks.Holder("a", 0, 2), new ScaleNetworks.Holder("b", 5, 3)));
        assertThat(pools).extracting(p -> p.getMetadata().getName())
                .containsExactly("10.12.0.0-16", "10.16.0.0-16", "10.4.0.0-16", "10.8.0.0-16");
        assertThat(pools.get(2).getSpec().allocations()).containsOnlyKeys("2", "3");
    }

    @Test
    void nodeSlicesAreReadByTheLedgerAsWhereaboutsWouldAllocate() {
        ScaleNetworks sliced = new ScaleNetworks(true, 3);
        // node i holds slice i of the /13 at /28: node 2 of the second network starts at 10.72.0.32
        assertThat(sliced.slice(1, 2)).isEqualTo("10.72.0.32/28");
        assertThat(sliced.offset(99, 1)).isEqualTo(2);
        assertThat(sliced.networkStatus(2, 1)).contains("\"10.72.0.33\"");

        List<ScaleNetworks.Holder> holders = List.of(new ScaleNetworks.Holder("a", 0, 1),
                new ScaleNetworks.Holder("b", 0, 2), new ScaleNetworks.Holder("c", 2, 1));
        IpamSnapshot.Builder b = IpamSnapshot.builder(Instant.EPOCH);
        try (KubernetesClient client = new KubernetesClientBuilder().build()) {
            for (HasMetadata h : sliced.networks(client)) {
                if (h.getKind().equals("NetworkAttachmentDefinition")) {
                    b.networkAttachmentDefinition(SER.convertValue(h, NetworkAttachmentDefinition.class));
                }
            }
        }
        sliced.slicePools().forEach(b::nodeSlicePool);
        List<IPPool> pools = sliced.pools(holders);
        pools.forEach(b::ipPool);
        holders.forEach(h -> b.livePod("prod/" + h.pod()));
        IpPoolLedger ledger = new IpPoolLedger(Clock.fixed(Instant.EPOCH, ZoneOffset.UTC));
        ledger.update(b.build());

        // two nodes with holders × four networks
        assertThat(pools).hasSize(8);
        PodNetworksRequest lan2 = PodNetworksRequest.ofAnnotation("prod", "rdma-net-ipam-lan2");
        PoolStatus node0 = ledger.check(lan2, 1, "gpu-00000").pools().get(0);
        assertThat(node0.poolName()).isEqualTo("rdma-net-ipam-lan2-gpu-00000-10.64.0.0-28");
        // a /28 offers whereabouts 16 − 2 addresses (network+1 .. broadcast−1); a and b hold two
        assertThat(node0.usable()).isEqualTo(14);
        assertThat(node0.allocated()).isEqualTo(2);
        assertThat(node0.staleAllocations()).isEmpty();
        PoolStatus node2 = ledger.check(lan2, 1, "gpu-00002").pools().get(0);
        assertThat(node2.range()).isEqualTo("10.64.0.32/28");
        assertThat(node2.allocated()).isEqualTo(1);
        assertThat(ledger.check(lan2, 1, "gpu-00001").pools().get(0).allocated()).isZero();
        // slices past the cluster's nodes are free: a node the controller has not sliced for is refused
        assertThat(ledger.check(lan2, 1, "gpu-00003").reason()).isEqualTo(PoolReason.NODE_SLICE_MISSING);
    }

    @Test
    void aNodeSlicePoolOfTwentyThousandNodesFitsOneObject() {
        // every slice is listed, taken or free, so the size depends on the range, not the nodes: 32,768 entries
        NodeSlicePool pool = new ScaleNetworks(true, 20_000).slicePools().getFirst();
        assertThat(pool.getStatus().allocations()).hasSize(32_768);
        assertThat(pool.getStatus().allocations().get(19_999).nodeName()).isEqualTo("gpu-19999");
        assertThat(pool.getStatus().allocations().get(20_000).nodeName()).isEmpty();
        assertThat(pool.getStatus().allocations().get(32_767).sliceRange()).isEqualTo("10.71.255.240/28");
        // kube-apiserver stores no object over 2 MiB (docs/formats/whereabouts.md §6)
        assertThat(SER.asJson(pool).getBytes(StandardCharsets.UTF_8).length).isLessThan(2 * 1024 * 1024);
    }
}
