package dev.railyard.scheduler.ipam;

import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.time.Instant;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A whereabouts {@code range} written with host bits set is the network to whereabouts, not an error
 * (docs/formats/whereabouts.md §5: {@code pkg/config/config.go} {@code LoadIPAMConfig} stores {@code ParseCIDR}'s
 * network and masks the written IP into {@code range_start}, which {@code GetIPRange} ignores as unusable). So
 * Railyard counts the whole network, names the pool by it, admits pods, and notes the host bits.
 */
class HostBitsRangeTest {
    private static final String NS = "team";

    private static IpPoolLedger ledger(IpamSnapshot.Builder b) {
        IpPoolLedger ledger = new IpPoolLedger(new IpamObjects.MutableClock(Instant.EPOCH), Duration.ofMinutes(5),
                null);
        ledger.update(b.build());
        return ledger;
    }

    private static PoolVerdict check(IpPoolLedger ledger, String network) {
        return ledger.check(PodNetworksRequest.ofAnnotation(NS, network), 1, null);
    }

    @Test
    void readmeExampleRangeIsWidenedToItsNetworkAndCountedAsWhereaboutsAllocates() {
        // whereabouts README "Example config": range 192.168.2.225/28, exclude 192.168.2.229/30 and 192.168.2.236/32.
        // Network 192.168.2.224/28: usable .225-.238 = 14; the /30 excludes .228-.231 (4, its host bits masked too),
        // the /32 excludes .236 (1): 14 - 4 - 1 = 9. One allocation at offset 1 (= .225) in pool 192.168.2.224-28: 8.
        IpPoolLedger ledger = ledger(IpamSnapshot.builder(Instant.EPOCH)
                .networkAttachmentDefinition(IpamObjects.whereaboutsNad(NS, "readme",
                        "\"range\":\"192.168.2.225/28\",\"exclude\":[\"192.168.2.229/30\",\"192.168.2.236/32\"]"))
                .ipPool(IpamObjects.pool("192.168.2.224-28", "192.168.2.224/28", Map.of("1", "team/p1"))));
        PoolVerdict v = check(ledger, "readme");
        assertThat(v.admitted()).as(v.message()).isTrue();
        NetworkVerdict net = v.networks().get(0);
        PoolStatus pool = net.pools().get(0);
        assertThat(pool.poolName()).isEqualTo("192.168.2.224-28");
        assertThat(pool.usable()).isEqualTo(9);
        assertThat(pool.allocated()).isEqualTo(1);
        assertThat(pool.free()).isEqualTo(8);
        assertThat(net.notes()).anySatisfy(n -> assertThat(n)
                .isEqualTo("range '192.168.2.225/28' has host bits set: whereabouts uses 192.168.2.224/28 "
                        + "(pool 192.168.2.224-28); write the network address, and range_start/range_end to narrow it"));
    }

    @Test
    void hostBitsInAnIpRangesEntryAreWidenedToo() {
        // LoadIPAMConfig treats every ipRanges entry like the top-level range: 10.5.0.77/24 is 10.5.0.0/24, 254 usable
        IpPoolLedger ledger = ledger(IpamSnapshot.builder(Instant.EPOCH)
                .networkAttachmentDefinition(IpamObjects.whereaboutsNad(NS, "multi",
                        "\"ipRanges\":[{\"range\":\"10.5.0.77/24\"}]")));
        PoolVerdict v = check(ledger, "multi");
        assertThat(v.admitted()).as(v.message()).isTrue();
        PoolStatus pool = v.networks().get(0).pools().get(0);
        assertThat(pool.poolName()).isEqualTo("10.5.0.0-24");
        assertThat(pool.usable()).isEqualTo(254);
        assertThat(pool.free()).isEqualTo(254);
        assertThat(v.networks().get(0).notes()).anyMatch(n -> n.startsWith("ipRanges[0].range '10.5.0.77/24' has "
                + "host bits set: whereabouts uses 10.5.0.0/24"));
    }

    @Test
    void aWidenedRangeStillHonoursAnExplicitRangeStart() {
        // range_start inside the network narrows it as usual: .100-.254 of 192.168.4.0/24 is 155 addresses
        IpPoolLedger ledger = ledger(IpamSnapshot.builder(Instant.EPOCH)
                .networkAttachmentDefinition(IpamObjects.whereaboutsNad(NS, "narrow",
                        "\"range\":\"192.168.4.77/24\",\"range_start\":\"192.168.4.100\"")));
        PoolStatus pool = check(ledger, "narrow").networks().get(0).pools().get(0);
        assertThat(pool.poolName()).isEqualTo("192.168.4.0-24");
        assertThat(pool.usable()).isEqualTo(155);
    }
}
