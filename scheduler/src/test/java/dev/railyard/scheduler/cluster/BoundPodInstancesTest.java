package dev.railyard.scheduler.cluster;

import dev.railyard.scheduler.ipam.IpamSnapshot;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import org.junit.jupiter.api.Test;

import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A bound pod's update that leaves its networks and node (a label, an annotation such as Railyard's hints) leaves its
 * address record the same instance, so the pool ledger's carried counts, which compare bound pods by identity
 * (docs/adr/0020, addendum of 2026-12-03), survive it; a change to what the pod draws (another node) makes a new
 * record. (Status updates that change nothing Railyard reads do not reach the record at all.)
 */
class BoundPodInstancesTest {
    private static final Map<String, String> NETWORKS = Map.of("k8s.v1.cni.cncf.io/networks", "rail");

    @Test
    void aStatusUpdateKeepsTheRecordAnAddressChangeFeedsTheLedgerWithIt() {
        List<IpamSnapshot> fed = new ArrayList<>();
        ClusterState state = new ClusterState(null, null, fed::add, Clock.systemUTC());
        state.upsert(WatchedKind.NETWORK_ATTACHMENT_DEFINITION, ClusterFixtures.nad("ml", "rail", "lan2",
                "10.30.0.0/24"));
        state.upsert(WatchedKind.POD, ClusterFixtures.pod("ml", "p0", "n0", NETWORKS, Map.of("cpu", "1")));
        state.snapshot();
        IpamSnapshot first = fed.getLast();
        assertThat(first.boundPods()).hasSize(1);

        // an update Railyard reads (a label; hints and holds are annotations) that leaves the pod's networks and node
        GenericKubernetesResource updated = ClusterFixtures.pod("ml", "p0", "n0", Map.of("team", "a"), NETWORKS,
                Map.of("cpu", "1"));
        state.upsert(WatchedKind.POD, updated);
        state.snapshot();
        state.upsert(WatchedKind.IP_POOL, ClusterFixtures.ipPool("kube-system", "10.30.0.0-24", "10.30.0.0/24",
                List.of("ml/p0")));
        state.snapshot();
        IpamSnapshot afterPoolWrite = fed.getLast();
        assertThat(afterPoolWrite).isNotSameAs(first);
        assertThat(afterPoolWrite.boundPods().getFirst()).isSameAs(first.boundPods().getFirst());

        state.upsert(WatchedKind.POD, ClusterFixtures.pod("ml", "p0", "n1", NETWORKS, Map.of("cpu", "1")));
        state.snapshot();
        assertThat(fed.getLast().boundPods().getFirst().node()).isEqualTo("n1");
    }
}
