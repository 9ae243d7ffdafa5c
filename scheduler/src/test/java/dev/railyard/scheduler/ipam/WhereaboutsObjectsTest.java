package dev.railyard.scheduler.ipam;

import dev.railyard.api.multus.MacvlanNetwork;
import dev.railyard.api.whereabouts.IPPool;
import dev.railyard.api.whereabouts.NodeSlicePool;
import dev.railyard.api.whereabouts.OverlappingRangeIPReservation;
import io.fabric8.kubernetes.api.model.HasMetadata;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/** The api model classes read the upstream objects as fabric8 (and so the informers) will deliver them. */
class WhereaboutsObjectsTest {

    @Test
    void ipPoolFromTheDesignDocDecodesOffsetsFromSpecRange() {
        // docs/formats/whereabouts.md §1 example: "266" = 192.168.5.10 in 192.168.4.0/22
        IPPool pool = IpamObjects.SERIALIZATION.unmarshal("""
                apiVersion: whereabouts.cni.cncf.io/v1alpha1
                kind: IPPool
                metadata: {name: 192.168.4.0-22, namespace: nvidia-network-operator}
                spec:
                  range: 192.168.4.0/22
                  allocations:
                    "1":   {id: 3f2a, podref: team-a/trainer-0, ifname: net1}
                    "266": {id: 9c1b, podref: team-a/trainer-1, ifname: net1}
                """, IPPool.class);
        assertThat(pool.getSpec().allocations().get("266").podref()).isEqualTo("team-a/trainer-1");
        DecodedPool d = DecodedPool.decode(pool);
        assertThat(d.error()).isNull();
        assertThat(d.allocations()).extracting(a -> AddressText.format(a.address()))
                .containsExactly("192.168.4.1", "192.168.5.10");
        assertThat(HasMetadata.getApiVersion(IPPool.class)).isEqualTo("whereabouts.cni.cncf.io/v1alpha1");
        assertThat(HasMetadata.getPlural(IPPool.class)).isEqualTo("ippools");
    }

    @Test
    void reservationsSlicesAndMacvlanNetworksRead() {
        OverlappingRangeIPReservation r = IpamObjects.SERIALIZATION.unmarshal("""
                apiVersion: whereabouts.cni.cncf.io/v1alpha1
                kind: OverlappingRangeIPReservation
                metadata: {name: lan2-192.168.4.7, namespace: kube-system}
                spec: {podref: team-a/trainer-0, ifname: net1}
                """, OverlappingRangeIPReservation.class);
        assertThat(r.getSpec().podref()).isEqualTo("team-a/trainer-0");
        assertThat(PoolNames.reservedAddress(r.getMetadata().getName(), "lan2"))
                .isEqualTo(AddressText.parseAddress("192.168.4.7"));

        NodeSlicePool s = IpamObjects.SERIALIZATION.unmarshal("""
                apiVersion: whereabouts.cni.cncf.io/v1alpha1
                kind: NodeSlicePool
                metadata: {name: rail1, namespace: kube-system}
                spec: {range: 10.0.0.0/8, sliceSize: /24}
                status:
                  allocations:
                  - {nodeName: node-a, sliceRange: 10.0.0.0/24}
                  - {nodeName: "", sliceRange: 10.0.1.0/24}
                """, NodeSlicePool.class);
        assertThat(s.getStatus().allocations()).extracting(a -> a.nodeName()).containsExactly("node-a", "");

        MacvlanNetwork m = IpamObjects.SERIALIZATION.unmarshal("""
                apiVersion: mellanox.com/v1alpha1
                kind: MacvlanNetwork
                metadata: {name: rdma-net-ipam-lan2}
                spec: {master: lan2, mode: bridge, mtu: 9000, ipam: '{"type":"whereabouts","range":"192.168.4.0/22"}'}
                status: {state: ready, macvlanNetworkAttachmentDef: default/rdma-net-ipam-lan2}
                """, MacvlanNetwork.class);
        assertThat(m.getSpec().effectiveNetworkNamespace()).isEqualTo("default");
        assertThat(m.getStatus().state()).isEqualTo("ready");
        assertThat(m.getSpec().mtu()).isEqualTo(9000);
    }
}
