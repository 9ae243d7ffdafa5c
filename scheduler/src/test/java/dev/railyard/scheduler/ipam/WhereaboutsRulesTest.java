package dev.railyard.scheduler.ipam;

import dev.railyard.api.whereabouts.IPAllocation;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/** Single whereabouts rules, each with its upstream source. */
class WhereaboutsRulesTest {
    private static final Instant T0 = Instant.EPOCH;

    private static PoolVerdict check(IpamSnapshot.Builder snapshot, String annotation, int pods) {
        IpPoolLedger ledger = new IpPoolLedger(new IpamObjects.MutableClock(T0), Duration.ofMinutes(5), null);
        ledger.update(snapshot.build());
        return ledger.check(PodNetworksRequest.ofAnnotation("ns", annotation), pods, null);
    }

    private static PoolVerdict checkIpam(String ipamMembers) {
        return check(IpamSnapshot.builder(T0).networkAttachmentDefinition(
                IpamObjects.whereaboutsNad("ns", "n", ipamMembers)), "n", 1);
    }

    @Test
    void slash30HasTwoAddressesAndSlash31Slash32HaveNone() {
        // iphelpers.go HasUsableIPs: totalBits - ones > 1
        assertThat(checkIpam("\"range\":\"10.0.0.4/30\"").pools().get(0).usable()).isEqualTo(2);
        for (String r : List.of("10.0.0.4/31", "10.0.0.4/32", "fd00::/127", "fd00::/128")) {
            PoolVerdict v = checkIpam("\"range\":\"" + r + "\"");
            assertThat(v.reason()).as(r).isEqualTo(PoolReason.IPAM_CONFIG_INVALID);
            assertThat(v.message()).contains("has no usable address");
        }
        assertThat(checkIpam("\"range\":\"fd00::/126\"").pools().get(0).usable()).isEqualTo(2);
    }

    @Test
    void dashFormSetsStartAndEndAndTheGatewayIsNotExcluded() {
        // config.go: "<first>-<ip>/<prefix>": first -> range_start, ip -> range_end, network -> range
        PoolVerdict v = checkIpam("\"range\":\"192.168.4.10-192.168.4.19/22\",\"gateway\":\"192.168.4.10\"");
        PoolStatus p = v.pools().get(0);
        assertThat(p.poolName()).isEqualTo("192.168.4.0-22");
        assertThat(p.span()).isEqualTo("192.168.4.10-192.168.4.19");
        assertThat(p.usable()).isEqualTo(10);
        PoolVerdict outside = checkIpam("\"range\":\"192.168.9.1-192.168.4.19/22\"");
        assertThat(outside.reason()).isEqualTo(PoolReason.IPAM_CONFIG_INVALID);
        assertThat(outside.message()).contains("start 192.168.9.1 is outside 192.168.4.0/22");
    }

    @Test
    void rangeStartAndEndOutsideTheRangeAreSilentlyIgnored() {
        // iphelpers.go GetIPRange
        PoolVerdict v = checkIpam("\"range\":\"10.0.0.0/24\",\"range_start\":\"10.0.1.5\",\"range_end\":\"10.0.0.0\"");
        assertThat(v.pools().get(0).usable()).isEqualTo(254);
        assertThat(v.networks().get(0).notes()).anyMatch(n -> n.contains("range_start 10.0.1.5 is outside"))
                .anyMatch(n -> n.contains("range_end 10.0.0.0 is outside"));
        // range_end below a valid range_start is ignored too
        assertThat(checkIpam("\"range\":\"10.0.0.0/24\",\"range_start\":\"10.0.0.200\",\"range_end\":\"10.0.0.100\"")
                .pools().get(0).span()).isEqualTo("10.0.0.200-10.0.0.254");
        // an unparsable top-level range_start is dropped (types.go backwardsCompatibleIPAddress)...
        assertThat(checkIpam("\"range\":\"10.0.0.0/24\",\"range_start\":\"ten\"").pools().get(0).usable())
                .isEqualTo(254);
        // ...but fails the config inside ipRanges (a Go net.IP there)
        assertThat(checkIpam("\"ipRanges\":[{\"range\":\"10.0.0.0/24\",\"range_start\":\"ten\"}]").reason())
                .isEqualTo(PoolReason.IPAM_CONFIG_INVALID);
    }

    @Test
    void excludesRemoveWholeBlocksAndZeroAddressesInsideWideRangesAreUsable() {
        // allocate.go skipExcludedSubnets; the ".0 skip" was removed in v0.4.1
        PoolStatus p = checkIpam("\"range\":\"10.0.0.0/23\",\"exclude\":[\"10.0.0.0/28\",\"10.0.1.255\","
                + "\"10.0.0.9/30\"]").pools().get(0);
        assertThat(p.usable()).isEqualTo(510 - 15); // .1-.15 excluded (the /30 lies inside the /28); .255 is bcast
    }

    @Test
    void everyIpRangeIsOnePoolAndEachNeedsRoom() {
        // config.go: top-level range prepended to ipRanges; one address from each
        Map<String, String> full = new java.util.LinkedHashMap<>();
        full.put("1", "ns/a");
        full.put("2", "ns/b");
        IpamSnapshot.Builder b = IpamSnapshot.builder(T0)
                .networkAttachmentDefinition(IpamObjects.whereaboutsNad("ns", "dual", "\"range\":\"10.0.0.0/30\","
                        + "\"ipRanges\":[{\"range\":\"fd00:1::/64\"}]"))
                .ipPool(IpamObjects.pool("10.0.0.0-30", "10.0.0.0/30", full));
        PoolVerdict v = check(b, "dual", 1);
        assertThat(v.pools()).extracting(PoolStatus::poolName).containsExactly("10.0.0.0-30", "fd00-1---64");
        assertThat(v.pools().get(1).free()).isEqualTo(Long.MAX_VALUE); // 2^64 - 2 does not fit a long
        assertThat(v.reason()).isEqualTo(PoolReason.POOL_EXHAUSTED);
        assertThat(v.message()).contains("pool 10.0.0.0-30").doesNotContain("fd00-1---64");
    }

    @Test
    void overlappingRangeReservationsOfTheSameNetworkNameTakeAddresses() {
        // ipam.go IPManagementKubernetesUpdate: an IP reserved under another podref is skipped
        IpamSnapshot.Builder b = IpamSnapshot.builder(T0)
                .networkAttachmentDefinition(IpamObjects.whereaboutsNad("ns", "a", "\"range\":\"10.0.0.0/29\","
                        + "\"network_name\":\"blue\""))
                .networkAttachmentDefinition(IpamObjects.whereaboutsNad("ns", "b", "\"range\":\"10.0.0.0/29\","
                        + "\"network_name\":\"blue\",\"enable_overlapping_ranges\":false"))
                .ipPool(IpamObjects.pool("blue-10.0.0.0-29", "10.0.0.0/29", Map.of("1", "ns/p1")))
                .overlappingRangeIPReservation(IpamObjects.reservation("blue-10.0.0.1", "ns/p1")) // same as pool
                .overlappingRangeIPReservation(IpamObjects.reservation("blue-10.0.0.2", "other/q"))
                .overlappingRangeIPReservation(IpamObjects.reservation("10.0.0.3", "other/r")) // unnamed network
                .overlappingRangeIPReservation(IpamObjects.reservation("red-10.0.0.4", "other/s"));
        PoolStatus a = check(b, "a", 1).pools().get(0);
        assertThat(a.allocated()).isEqualTo(1);
        assertThat(a.reservedElsewhere()).isEqualTo(1);
        assertThat(a.free()).isEqualTo(6 - 2);
        PoolStatus off = check(b, "b", 1).pools().get(0);
        assertThat(off.reservedElsewhere()).isZero();
        assertThat(off.free()).isEqualTo(5);
    }

    @Test
    void allocationsDecodeAgainstTheIpWrittenInSpecRange() {
        // ipam.go toIPReservationList: offset added to the IP of spec.range as written (old pools)
        IpamSnapshot.Builder b = IpamSnapshot.builder(T0)
                .networkAttachmentDefinition(IpamObjects.whereaboutsNad("ns", "n", "\"range\":\"10.0.0.0/29\","
                        + "\"range_start\":\"10.0.0.5\""))
                .ipPool(IpamObjects.pool("10.0.0.0-29", "10.0.0.4/29", Map.of("1", "ns/a", "2", "ns/b")));
        PoolStatus p = check(b, "n", 1).pools().get(0);
        assertThat(p.span()).isEqualTo("10.0.0.5-10.0.0.6");
        assertThat(p.allocated()).isEqualTo(2); // 10.0.0.5 and 10.0.0.6, not .1 and .2
        assertThat(p.free()).isZero();
    }

    @Test
    void staleAllocationsAreReportedAndStillUsed() {
        IpamSnapshot.Builder b = IpamSnapshot.builder(T0)
                .networkAttachmentDefinition(IpamObjects.whereaboutsNad("ns", "n", "\"range\":\"10.0.0.0/29\""))
                .ipPool(IpamObjects.pool("10.0.0.0-29", "10.0.0.0/29", Map.of("1", "ns/gone", "2", "ns/here")))
                .livePod("ns/here");
        PoolStatus p = check(b, "n", 1).pools().get(0);
        assertThat(p.staleAllocations()).containsExactly("10.0.0.1 (ns/gone net1)");
        assertThat(p.allocated()).isEqualTo(2);
        assertThat(p.free()).isEqualTo(4);
        assertThat(p.describe()).contains("2 allocated of which 1 stale");
    }

    @Test
    void poolsAreFoundInWhicheverNamespaceHoldsThem() {
        // whereabouts keeps pools in its own namespace (kube-system, or nvidia-network-operator up to operator v25.7)
        IpamSnapshot.Builder b = IpamSnapshot.builder(T0)
                .networkAttachmentDefinition(IpamObjects.whereaboutsNad("ns", "n", "\"range\":\"10.0.0.0/29\""))
                .ipPool(IpamObjects.poolWith("nvidia-network-operator", "10.0.0.0-29", "10.0.0.0/29",
                        Map.of("1", new IPAllocation("c", "ns/a", "net1"))));
        PoolVerdict v = check(b, "n", 1);
        assertThat(v.pools().get(0).poolNamespace()).isEqualTo("nvidia-network-operator");
        assertThat(v.pools().get(0).allocated()).isEqualTo(1);

        b.ipPool(IpamObjects.poolWith("kube-system", "10.0.0.0-29", "10.0.0.0/29", Map.of(
                "1", new IPAllocation("c", "ns/a", "net1"), "2", new IPAllocation("d", "ns/b", "net1"))));
        PoolVerdict two = check(b, "n", 1);
        assertThat(two.pools().get(0).poolNamespace()).isEqualTo("kube-system");
        assertThat(two.networks().get(0).notes()).anyMatch(n -> n.contains("exists in namespaces kube-system, "
                + "nvidia-network-operator; counted the one in kube-system"));
    }

    @Test
    void conflistsCaseInsensitiveKeysAndOtherIpamTypes() {
        IpamSnapshot.Builder b = IpamSnapshot.builder(T0)
                .networkAttachmentDefinition(IpamObjects.nad("ns", "chain", "{\"cniVersion\":\"0.3.1\",\"name\":\"c\","
                        + "\"plugins\":[{\"type\":\"macvlan\",\"master\":\"lan2\",\"IPAM\":{\"Type\":\"whereabouts\","
                        + "\"RANGE\":\"10.0.0.0/29\"}},{\"type\":\"tuning\"}]}"))
                .networkAttachmentDefinition(IpamObjects.nad("ns", "static", "{\"type\":\"macvlan\",\"ipam\":"
                        + "{\"type\":\"static\"}}"))
                .networkAttachmentDefinition(IpamObjects.nad("ns", "file", ""));
        PoolVerdict v = check(b, "chain,static,file", 1);
        assertThat(v.admitted()).isTrue();
        assertThat(v.networks().get(0).pools().get(0).usable()).isEqualTo(6);
        assertThat(v.networks().get(1).notes()).singleElement().asString().contains("IPAM type 'static'");
        assertThat(v.networks().get(2).notes()).singleElement().asString().contains("has no spec.config");
    }
}
