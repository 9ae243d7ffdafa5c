package dev.railyard.scheduler.ipam;

import dev.railyard.api.whereabouts.IPAllocation;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Bad input: each broken network gets its own one-line reason, a pod attaching to it is refused with that reason,
 * and every other network in the same snapshot is counted as if the broken one were not there.
 */
class BadInputTest {
    private static final String NS = "team";
    private final IpPoolLedger ledger = new IpPoolLedger(new IpamObjects.MutableClock(Instant.EPOCH),
            Duration.ofMinutes(5), null);

    BadInputTest() {
        Map<String, IPAllocation> badKeys = new LinkedHashMap<>();
        badKeys.put("7", new IPAllocation("c1", "team/a", "net1"));
        badKeys.put("ten", new IPAllocation("c2", "team/b", "net1"));
        ledger.update(IpamSnapshot.builder(Instant.EPOCH)
                // healthy network: /24, offsets 1..4 allocated -> 250 free
                .networkAttachmentDefinition(IpamObjects.whereaboutsNad(NS, "good", "\"range\":\"10.1.0.0/24\""))
                .ipPool(IpamObjects.pool("10.1.0.0-24", "10.1.0.0/24",
                        Map.of("1", "team/p1", "2", "team/p2", "3", "team/p3", "4", "team/p4")))
                // spec.config is not JSON
                .networkAttachmentDefinition(IpamObjects.nad(NS, "broken-json",
                        "{\"type\":\"macvlan\",\"ipam\":{\"type\":\"whereabouts\",\"range\":\"10.2.0.0/24\""))
                // IPAM JSON whose range has the wrong type
                .networkAttachmentDefinition(IpamObjects.whereaboutsNad(NS, "wrong-type", "\"range\":[\"10.3.0.0/24\"]"))
                // exclude larger than the range
                .networkAttachmentDefinition(IpamObjects.whereaboutsNad(NS, "wide-exclude",
                        "\"range\":\"10.9.0.0/24\",\"exclude\":[\"10.9.0.0/16\"]"))
                // exclude that is not a CIDR nor an IP
                .networkAttachmentDefinition(IpamObjects.whereaboutsNad(NS, "junk-exclude",
                        "\"range\":\"10.8.0.0/24\",\"exclude\":[\"10.8.0.300/32\"]"))
                // allocation key that is not a number
                .networkAttachmentDefinition(IpamObjects.whereaboutsNad(NS, "bad-key", "\"range\":\"10.4.0.0/24\""))
                .ipPool(IpamObjects.poolWith(IpamObjects.WHEREABOUTS_NS, "10.4.0.0-24", "10.4.0.0/24", badKeys))
                // MacvlanNetwork whose ipam string is not JSON (the seed's unquoted form)
                .macvlanNetwork(IpamObjects.macvlan("rdma-net-ipam-lan3", NS, "lan3",
                        "{type: whereabouts, range: 192.168.8.0/22, gateway: 192.168.8.1}"))
                .build());
    }

    private PoolVerdict check(String annotation) {
        return ledger.check(PodNetworksRequest.ofAnnotation(NS, annotation), 1, null);
    }

    private void assertRefusedAlongsideGood(String bad, PoolReason reason, String... phrases) {
        PoolVerdict alone = check(bad);
        assertThat(alone.reason()).as(alone.message()).isEqualTo(reason);
        assertThat(alone.message()).startsWith("network team/" + bad + " (net1): ").contains(phrases)
                .doesNotContain("\n");
        PoolVerdict both = check("good," + bad);
        assertThat(both.reason()).isEqualTo(reason);
        assertThat(both.networks()).extracting(NetworkVerdict::reason).containsExactly(PoolReason.OK, reason);
        assertThat(both.networks().get(0).pools().get(0).free()).isEqualTo(250);
    }

    @Test
    void nadConfigThatIsNotJson() {
        assertRefusedAlongsideGood("broken-json", PoolReason.NETWORK_CONFIG_INVALID,
                "NetworkAttachmentDefinition team/broken-json: spec.config is not valid JSON", "line 1, column");
    }

    @Test
    void ipamJsonWithAWrongType() {
        assertRefusedAlongsideGood("wrong-type", PoolReason.IPAM_CONFIG_INVALID,
                "NetworkAttachmentDefinition team/wrong-type IPAM: IPAM JSON:");
    }

    @Test
    void excludeLargerThanTheRange() {
        assertRefusedAlongsideGood("wide-exclude", PoolReason.IPAM_CONFIG_INVALID,
                "exclude '10.9.0.0/16' covers the whole range 10.9.0.0/24");
    }

    @Test
    void excludeThatIsNeitherCidrNorIp() {
        assertRefusedAlongsideGood("junk-exclude", PoolReason.IPAM_CONFIG_INVALID,
                "exclude '10.8.0.300/32' is neither a CIDR nor an IP address");
    }

    @Test
    void allocationKeyThatIsNotANumber() {
        assertRefusedAlongsideGood("bad-key", PoolReason.POOL_INVALID,
                "IPPool kube-system/10.4.0.0-24: allocation key 'ten' is not a decimal offset");
        assertThat(ledger.audit()).filteredOn(a -> a.name().equals("10.4.0.0-24")).singleElement()
                .satisfies(a -> assertThat(a.error()).contains("'ten'"));
    }

    @Test
    void macvlanNetworkWhoseIpamIsNotJson() {
        PoolVerdict v = check("rdma-net-ipam-lan3");
        assertThat(v.reason()).isEqualTo(PoolReason.NETWORK_CONFIG_INVALID);
        assertThat(v.message()).isEqualTo("network team/rdma-net-ipam-lan3 (net1): MacvlanNetwork rdma-net-ipam-lan3: "
                + "spec.ipam is not a JSON object ({type: whereabouts, range: 192.168.8.0/22, gateway: 192.1...), "
                + "so the network-operator cannot render NetworkAttachmentDefinition team/rdma-net-ipam-lan3");
        PoolVerdict both = check("good,rdma-net-ipam-lan3");
        assertThat(both.networks()).extracting(NetworkVerdict::reason)
                .containsExactly(PoolReason.OK, PoolReason.NETWORK_CONFIG_INVALID);
    }

    @Test
    void annotationMultusWouldRejectRefusesThePod() {
        PoolVerdict v = check("good,Bad_Name");
        assertThat(v.reason()).isEqualTo(PoolReason.ANNOTATION_INVALID);
        assertThat(v.message()).contains("entry 2 'Bad_Name'").contains("not a DNS-1123 label");
    }

    @Test
    void aBrokenNetworkRefusesReservationsAndHoldsNothing() {
        PoolVerdict v = ledger.reserve(java.util.List.of(
                new PodPlacement("p", PodNetworksRequest.ofAnnotation(NS, "good,bad-key"), "n1")));
        assertThat(v.reason()).isEqualTo(PoolReason.POOL_INVALID);
        assertThat(ledger.heldAddresses()).isZero();
        assertThat(check("good").pools().get(0).free()).isEqualTo(250);
    }
}
