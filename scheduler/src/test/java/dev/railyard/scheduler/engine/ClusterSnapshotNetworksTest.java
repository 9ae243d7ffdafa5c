package dev.railyard.scheduler.engine;

import dev.railyard.topology.fabric.FabricModel;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Snapshots made one after another with equal networks share one networks map, so the engine's answer caches compare
 * their keys' networks by identity; any change in the networks makes a new map, equal to what the list says.
 */
class ClusterSnapshotNetworksTest {
    private static final SecondaryNetwork LAN2 = new SecondaryNetwork("prod", "rail0", "lan2", "192.168.4.0/22",
            "192.168.4.0-22");
    private static final SecondaryNetwork LAN3 = new SecondaryNetwork("prod", "rail1", "lan3", "192.168.8.0/22",
            "192.168.8.0-22");

    private static ClusterSnapshot snapshot(List<SecondaryNetwork> networks) {
        return new ClusterSnapshot(List.of(), networks, FabricModel.empty(), null);
    }

    @Test
    void equalNetworksShareOneMapWhateverTheListInstanceAndOrder() {
        ClusterSnapshot a = snapshot(List.of(LAN2, LAN3));
        ClusterSnapshot b = snapshot(new ArrayList<>(List.of(
                new SecondaryNetwork("prod", "rail1", "lan3", "192.168.8.0/22", "192.168.8.0-22"), LAN2)));
        assertThat(b.networks()).isSameAs(a.networks());
        assertThat(b.networksHash()).isEqualTo(a.networksHash()).isEqualTo(a.networks().hashCode() | 1);
        assertThat(a.withPools(null).networks()).isSameAs(a.networks());
        assertThat(a.networks()).isEqualTo(Map.of("prod/rail0", LAN2, "prod/rail1", LAN3));
    }

    @Test
    void aSnapshotWithNodesReplacedSharesItsNetworksWhateverWasMadeSince() {
        ClusterSnapshot a = snapshot(List.of(LAN2, LAN3));
        snapshot(List.of(LAN2)); // another cluster's snapshot (simulate, explain) made in between
        ClusterSnapshot b = a.withNodes(List.of());
        assertThat(b.networks()).isSameAs(a.networks());
        assertThat(b.networksHash()).isEqualTo(a.networksHash());
        assertThat(b.nodeNames()).isSameAs(a.nodeNames());
    }

    @Test
    void anyChangeMakesANewMapEqualToTheList() {
        ClusterSnapshot before = snapshot(List.of(LAN2, LAN3));
        SecondaryNetwork lan3Moved = new SecondaryNetwork("prod", "rail1", "lan5", "192.168.8.0/22",
                "192.168.8.0-22");
        ClusterSnapshot moved = snapshot(List.of(LAN2, lan3Moved));
        assertThat(moved.networks()).isNotSameAs(before.networks())
                .isEqualTo(Map.of("prod/rail0", LAN2, "prod/rail1", lan3Moved));
        assertThat(snapshot(List.of(LAN2)).networks()).isEqualTo(Map.of("prod/rail0", LAN2));
        assertThat(snapshot(null).networks()).isEmpty();
        assertThat(snapshot(List.of()).networksHash()).isEqualTo(1); // Map.of().hashCode() is 0, | 1
    }

    @Test
    void aRepeatedKeyKeepsTheLaterNetworkAndIsNotTakenForALargerMap() {
        snapshot(List.of(LAN2, LAN3));
        // two entries, both equal to the last map's rail0: the same size as that map, but a map of one network
        assertThat(snapshot(List.of(LAN2, LAN2)).networks()).isEqualTo(Map.of("prod/rail0", LAN2));
        SecondaryNetwork rail0OnLan4 = new SecondaryNetwork("prod", "rail0", "lan4", null, null);
        assertThat(snapshot(List.of(LAN2, rail0OnLan4)).networks()).isEqualTo(Map.of("prod/rail0", rail0OnLan4));
    }
}
