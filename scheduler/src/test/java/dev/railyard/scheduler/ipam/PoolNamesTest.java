package dev.railyard.scheduler.ipam;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/** whereabouts naming (pkg/storage/kubernetes/ipam.go IPPoolName, normalizeRange, NormalizeIP). */
class PoolNamesTest {

    @Test
    void ipPoolNamesFromTheDesignDocExamples() {
        // docs/formats/whereabouts.md §1: 192.168.4.0/22 -> 192.168.4.0-22; fd00:10::/64 -> fd00-10---64; 2001::/116 -> 2001---116
        assertThat(PoolNames.ipPool("", null, "192.168.4.0/22")).isEqualTo("192.168.4.0-22");
        assertThat(PoolNames.ipPool("", null, "fd00:10::/64")).isEqualTo("fd00-10---64");
        assertThat(PoolNames.ipPool("", null, "2001::/116")).isEqualTo("2001---116");
        assertThat(PoolNames.ipPool("lan2", null, "192.168.4.0/22")).isEqualTo("lan2-192.168.4.0-22");
        assertThat(PoolNames.ipPool("", "node-a", "192.168.4.64/26")).isEqualTo("node-a-192.168.4.64-26");
        assertThat(PoolNames.ipPool("lan2", "node-a", "192.168.4.64/26")).isEqualTo("lan2-node-a-192.168.4.64-26");
        assertThat(PoolNames.normalize("fd00::")).isEqualTo("fd00--0");
    }

    @Test
    void reservationNamesAndTheirInverse() {
        // docs/formats/whereabouts.md §1: 192.168.4.7, lan2-192.168.4.7, fd00-10--5
        assertThat(PoolNames.reservation("", AddressText.parseAddress("192.168.4.7"))).isEqualTo("192.168.4.7");
        assertThat(PoolNames.reservation("lan2", AddressText.parseAddress("192.168.4.7")))
                .isEqualTo("lan2-192.168.4.7");
        assertThat(PoolNames.reservation("", AddressText.parseAddress("fd00:10:0:0::5"))).isEqualTo("fd00-10--5");
        assertThat(PoolNames.reservation("", AddressText.parseAddress("fd00::"))).isEqualTo("fd00--0");

        assertThat(PoolNames.reservedAddress("fd00-10--5", "")).isEqualTo(AddressText.parseAddress("fd00:10::5"));
        assertThat(PoolNames.reservedAddress("fd00--0", "")).isEqualTo(AddressText.parseAddress("fd00::"));
        assertThat(PoolNames.reservedAddress("lan2-192.168.4.7", "lan2"))
                .isEqualTo(AddressText.parseAddress("192.168.4.7"));
        assertThat(PoolNames.reservedAddress("lan2-192.168.4.7", "")).isNull(); // another network's reservation
        assertThat(PoolNames.reservedAddress("192.168.4.7", "lan2")).isNull();
        assertThat(PoolNames.reservedAddress("lan3-192.168.4.7", "lan2")).isNull();
    }

    @Test
    void canonicalTextIsGosNetIpString() {
        // Go: net.ParseIP("2001:db8:0:0:1:0:0:1").String() == "2001:db8::1:0:0:1" (first longest zero run);
        // a single zero group is not compressed; IPv4-mapped prints as IPv4.
        assertThat(AddressText.format(AddressText.parseAddress("2001:db8:0:0:1:0:0:1"))).isEqualTo("2001:db8::1:0:0:1");
        assertThat(AddressText.format(AddressText.parseAddress("2001:db8:0:1:1:1:1:1")))
                .isEqualTo("2001:db8:0:1:1:1:1:1");
        assertThat(AddressText.format(AddressText.parseAddress("2001:0DB8::0001"))).isEqualTo("2001:db8::1");
        assertThat(AddressText.format(AddressText.parseAddress("::ffff:10.0.0.5"))).isEqualTo("10.0.0.5");
        assertThat(AddressText.parseCidr("192.168.4.77/22").canonical()).isEqualTo("192.168.4.0/22");
        assertThat(AddressText.parseCidr("fd00:10::77/64").canonical()).isEqualTo("fd00:10::/64");
    }

    @Test
    void onlyTheTextFormsGoParses() {
        assertThat(AddressText.parseAddress("010.1.2.3")).isEqualTo(AddressText.parseAddress("10.1.2.3")); // sloppy
        assertThat(AddressText.parseAddress("1.2.3")).isNull();
        assertThat(AddressText.parseAddress(" 1.2.3.4")).isNull();
        assertThat(AddressText.parseAddress("1.2.3.*")).isNull();
        assertThat(AddressText.parseAddress("fe80::1%eth0")).isNull();
        assertThat(AddressText.parseAddress("1.2.3.4/24")).isNull();
        assertThat(AddressText.parseCidr("1.2.3.4")).isNull();
        assertThat(AddressText.parseCidr("1.2.3.4/33")).isNull();
        assertThat(AddressText.parseCidr("1.2.3.4/255.255.255.0")).isNull();
    }
}
