package dev.railyard.scheduler.ipam;

import dev.railyard.api.multus.MacvlanNetwork;
import dev.railyard.api.multus.MultusAnnotations;
import dev.railyard.api.multus.NetworkAttachmentDefinition;
import io.fabric8.kubernetes.api.model.Pod;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;

/** The real-world failures of fixtures case-28, 31, 32, 33 and the seed's four /22 pools. */
class WhereaboutsFixtureTest {
    private final IpamObjects.MutableClock clock = new IpamObjects.MutableClock(Instant.parse("2026-06-01T00:00:00Z"));

    private IpPoolLedger ledger(IpamSnapshot snapshot) {
        IpPoolLedger l = new IpPoolLedger(clock, Duration.ofMinutes(5), null);
        l.update(snapshot);
        return l;
    }

    @Test
    void case28FullThreeAddressPoolHasNoFreeAddressAndRefusesNamingThePool() {
        // case-28 artifact: "Could not allocate IP in range: ip: 10.128.165.32 / - 10.128.165.34 / range:
        // net.IPNet{IP:net.IP{0xa, 0x80, 0xa5, 0x0}, Mask:net.IPMask{0xff, 0xff, 0xff, 0x0}}" for
        // [default/asdasd-1:whereaboutsexample]
        String log = IpamObjects.resource("case-28-kubelet-sandbox-error.log");
        Matcher m = Pattern.compile("\\[(\\S+)/(\\S+):(\\S+)]: .*ip: (\\S+) / - (\\S+) / range: "
                + "net.IPNet\\{IP:net.IP\\{([^}]*)}, Mask:net.IPMask\\{([^}]*)}}").matcher(log);
        assertThat(m.find()).isTrue();
        String namespace = m.group(1);
        String pod = m.group(2);
        String network = m.group(3);
        String first = m.group(4);
        String last = m.group(5);
        String net = String.join(".", List.of(m.group(6).split(",\\s*")).stream()
                .map(h -> Integer.toString(Integer.decode(h.strip()))).toList());
        int prefix = List.of(m.group(7).split(",\\s*")).stream()
                .mapToInt(h -> Integer.bitCount(Integer.decode(h.strip()))).sum();
        assertThat(net + "/" + prefix).isEqualTo("10.128.165.0/24");

        // The pool is full with the three pods' reservations (offsets 32..34 from 10.128.165.0), one of them the very
        // pod being re-added: whereabouts does not hand its old address back (issue #291).
        IpamSnapshot snapshot = IpamSnapshot.builder(clock.instant())
                .networkAttachmentDefinition(IpamObjects.whereaboutsNad(namespace, network, "\"range\":\"" + net
                        + "/" + prefix + "\",\"range_start\":\"" + first + "\",\"range_end\":\"" + last + "\""))
                .ipPool(IpamObjects.pool("10.128.165.0-24", "10.128.165.0/24",
                        Map.of("32", "default/asdasd-0", "33", "default/asdasd-1", "34", "default/asdasd-2")))
                .livePods(List.of("default/asdasd-0", "default/asdasd-1", "default/asdasd-2"))
                .build();
        PoolVerdict v = ledger(snapshot).check(PodNetworksRequest.ofAnnotation(namespace, network), 1, null);

        assertThat(v.admitted()).isFalse();
        assertThat(v.reason()).isEqualTo(PoolReason.POOL_EXHAUSTED);
        PoolStatus pool = v.pools().get(0);
        assertThat(pool.poolName()).isEqualTo("10.128.165.0-24");
        assertThat(pool.span()).isEqualTo("10.128.165.32-10.128.165.34");
        assertThat(pool.usable()).isEqualTo(3);
        assertThat(pool.allocated()).isEqualTo(3);
        assertThat(pool.free()).isZero();
        assertThat(v.message()).contains("network default/whereaboutsexample (net1)")
                .contains("pool 10.128.165.0-24").contains("0 of 3 free").contains("1 needed");
        assertThat(pod).isEqualTo("asdasd-1");
    }

    @Test
    void case31DuplicatePodrefMakesThePoolInconsistentAndBothAddressesCountAsUsed() {
        // case-31 artifact: the reconciler sees pcrf/pcrf-sm-0 at 10.3.8.151 and 10.3.8.152, plus the reserve list
        // "IP: 10.3.8.145 is reserved for pod: imaginemme/mme-sm-1 IP: 10.3.8.146 is reserved for pod: ...mme-sm-0".
        // The artifact does not show the range; 10.3.8.0/24 holds all four addresses.
        String log = IpamObjects.resource("case-31-ip-reconciler.log");
        Map<String, String> byIp = new LinkedHashMap<>();
        Matcher a = Pattern.compile("pod reference (\\S+) matches allocation; Allocation IP: ([0-9.]+);").matcher(log);
        while (a.find()) {
            byIp.put(a.group(2), a.group(1));
        }
        Matcher r = Pattern.compile("IP: ([0-9.]+) is reserved for pod: (\\S+)").matcher(log);
        while (r.find()) {
            byIp.putIfAbsent(r.group(1), r.group(2));
        }
        assertThat(byIp).containsEntry("10.3.8.151", "pcrf/pcrf-sm-0").containsEntry("10.3.8.152", "pcrf/pcrf-sm-0")
                .hasSize(4);
        Map<String, String> offsets = new LinkedHashMap<>();
        byIp.forEach((ip, podref) -> offsets.put(ip.substring(ip.lastIndexOf('.') + 1), podref));

        IpamSnapshot snapshot = IpamSnapshot.builder(clock.instant())
                .networkAttachmentDefinition(IpamObjects.whereaboutsNad("pcrf", "sig", "\"range\":\"10.3.8.0/24\""))
                .ipPool(IpamObjects.pool("10.3.8.0-24", "10.3.8.0/24", offsets))
                // the StatefulSet pod was recreated on node B: it exists
                .livePods(List.of("pcrf/pcrf-sm-0", "imaginemme/mme-sm-0", "imaginemme/mme-sm-1"))
                .build();
        IpPoolLedger ledger = ledger(snapshot);
        PoolVerdict v = ledger.check(PodNetworksRequest.ofAnnotation("pcrf", "sig"), 1, null);

        PoolStatus pool = v.pools().get(0);
        assertThat(pool.inconsistent()).isTrue();
        assertThat(pool.inconsistencies()).singleElement().asString()
                .contains("podref pcrf/pcrf-sm-0 net1 holds 2 addresses (10.3.8.151, 10.3.8.152)");
        assertThat(pool.allocated()).isEqualTo(4); // not 3: the duplicate is a used address
        assertThat(pool.free()).isEqualTo(254 - 4);
        assertThat(v.admitted()).isTrue(); // reported, not refused: there is room
        assertThat(v.message()).contains("inconsistent");
        assertThat(ledger.audit()).singleElement().satisfies(audit -> {
            assertThat(audit.name()).isEqualTo("10.3.8.0-24");
            assertThat(audit.inconsistencies()).hasSize(1);
            assertThat(audit.staleAllocations()).isEmpty();
        });
    }

    @Test
    void case32UnqualifiedNameResolvesInThePodsNamespaceNotInDefault() {
        // case-32 #337: pod in testns2 lists {"name": "macvlan-conf-2"} and {"name": "vlan-conf-1-1", "namespace":
        // "testns1", "interface": "vlan1-1"}; the author expected macvlan-conf-2 to come from default.
        Pod pod = IpamObjects.loadAll("case-32-issue337-pod.yaml", Pod.class).get(0);
        PodNetworksRequest request = PodNetworksRequest.of(pod.getMetadata().getNamespace(),
                pod.getMetadata().getAnnotations());
        assertThat(request.selections()).extracting(NetworkSelection::key, NetworkSelection::podInterface)
                .containsExactly(org.assertj.core.groups.Tuple.tuple("testns2/macvlan-conf-2", "net1"),
                        org.assertj.core.groups.Tuple.tuple("testns1/vlan-conf-1-1", "vlan1-1"));

        IpamSnapshot.Builder b = IpamSnapshot.builder(clock.instant())
                .networkAttachmentDefinition(IpamObjects.whereaboutsNad("default", "macvlan-conf-2",
                        "\"range\":\"10.10.0.0/24\""))
                .networkAttachmentDefinition(IpamObjects.whereaboutsNad("testns1", "vlan-conf-1-1",
                        "\"range\":\"10.11.0.0/24\""));
        PoolVerdict v = ledger(b.build()).check(request, 1, null);
        assertThat(v.reason()).isEqualTo(PoolReason.NETWORK_NOT_FOUND);
        assertThat(v.message()).contains("network testns2/macvlan-conf-2 (net1): no NetworkAttachmentDefinition "
                + "macvlan-conf-2 in namespace testns2").contains("it exists in default: reference it as "
                + "default/macvlan-conf-2");
        assertThat(v.networks()).extracting(NetworkVerdict::network, NetworkVerdict::reason).containsExactly(
                org.assertj.core.groups.Tuple.tuple("testns2/macvlan-conf-2", PoolReason.NETWORK_NOT_FOUND),
                org.assertj.core.groups.Tuple.tuple("testns1/vlan-conf-1-1", PoolReason.OK));

        b.networkAttachmentDefinition(IpamObjects.whereaboutsNad("testns2", "macvlan-conf-2",
                "\"range\":\"10.12.0.0/24\""));
        PoolVerdict fixed = ledger(b.build()).check(request, 1, null);
        assertThat(fixed.admitted()).isTrue();
        assertThat(fixed.pools()).extracting(PoolStatus::poolName).containsExactly("10.12.0.0-24", "10.11.0.0-24");
    }

    @Test
    void case32NamespaceInsideJsonNameIsRefusedWhileTheShortFormResolves() {
        // case-32 #705: '[{"name": "openshift-multus/macvlan-conf"}]' fails at sandbox creation; the short form
        // "openshift-multus/macvlan-conf" works. The NAD (host-local IPAM) lives in openshift-multus.
        Pod pod = IpamObjects.loadAll("case-32-issue705-pod.yaml", Pod.class).get(0);
        NetworkAttachmentDefinition nad = IpamObjects.loadAll("case-32-issue705-nad.yaml",
                NetworkAttachmentDefinition.class).get(0);
        nad.getMetadata().setNamespace("openshift-multus");
        IpPoolLedger ledger = ledger(IpamSnapshot.builder(clock.instant()).networkAttachmentDefinition(nad).build());

        PodNetworksRequest json = PodNetworksRequest.of("dougtest", pod.getMetadata().getAnnotations());
        PoolVerdict refused = ledger.check(json, 1, null);
        assertThat(refused.reason()).isEqualTo(PoolReason.ANNOTATION_INVALID);
        assertThat(refused.message()).contains(MultusAnnotations.NETWORKS).contains("multus-cni#705")
                .contains("{\"namespace\": \"openshift-multus\", \"name\": \"macvlan-conf\"}");

        PoolVerdict shortForm = ledger.check(PodNetworksRequest.ofAnnotation("dougtest",
                "openshift-multus/macvlan-conf"), 1, null);
        assertThat(shortForm.admitted()).isTrue();
        assertThat(shortForm.networks().get(0).notes()).singleElement().asString()
                .contains("uses IPAM type 'host-local', not whereabouts");
    }

    @Test
    void case33EveryRailPoolMustHaveRoomForEveryPod() {
        // case-33: one macvlan NAD + whereabouts range per rail; the pod annotation is cut off in the artifact after
        // '{"name":"rdma-' and is completed here with both rails.
        IpamSnapshot.Builder base = IpamSnapshot.builder(clock.instant());
        for (NetworkAttachmentDefinition nad : IpamObjects.loadAll("case-33-rail-nads.yaml",
                NetworkAttachmentDefinition.class)) {
            nad.getMetadata().setNamespace("default");
            base.networkAttachmentDefinition(nad);
        }
        PodNetworksRequest request = PodNetworksRequest.ofAnnotation("default",
                "[{\"name\":\"rdma-net-1\"},{\"name\":\"rdma-net-2\"}]");
        IpamSnapshot empty = base.build();

        PoolVerdict fresh = ledger(empty).check(request, 1, null);
        assertThat(fresh.admitted()).isTrue();
        // the NAD's master is the only link from a rail's network to its NIC (case-33 expected result)
        assertThat(fresh.networks()).extracting(NetworkVerdict::master).containsExactly("enp1s0f0", "enp2s0f0");
        assertThat(fresh.pools()).extracting(PoolStatus::poolName, PoolStatus::free).containsExactly(
                org.assertj.core.groups.Tuple.tuple("192.168.10.0-24", 254L),
                org.assertj.core.groups.Tuple.tuple("192.168.20.0-24", 254L));

        // rail 2 keeps 5 free (offsets 1..249 taken), rail 1 has 100 free (offsets 1..154 taken)
        IpamSnapshot busy = IpamSnapshot.builder(clock.instant())
                .networkAttachmentDefinition(empty.networkAttachmentDefinitions().get(0))
                .networkAttachmentDefinition(empty.networkAttachmentDefinitions().get(1))
                .ipPool(IpamObjects.pool("192.168.10.0-24", "192.168.10.0/24", taken(154)))
                .ipPool(IpamObjects.pool("192.168.20.0-24", "192.168.20.0/24", taken(249)))
                .build();
        IpPoolLedger ledger = ledger(busy);
        PoolVerdict gangOf8 = ledger.check(request, 8, null);
        assertThat(gangOf8.reason()).isEqualTo(PoolReason.POOL_EXHAUSTED);
        assertThat(gangOf8.networks()).extracting(NetworkVerdict::reason)
                .containsExactly(PoolReason.OK, PoolReason.POOL_EXHAUSTED);
        assertThat(gangOf8.message()).startsWith("network default/rdma-net-2 (net2): pool 192.168.20.0-24")
                .contains("5 of 254 free").contains("8 needed").doesNotContain("rdma-net-1");
        assertThat(ledger.check(request, 5, null).admitted()).isTrue();
        assertThat(ledger.check(request, 6, null).admitted()).isFalse();
    }

    private static Map<String, String> taken(int n) {
        Map<String, String> m = new LinkedHashMap<>();
        for (int i = 1; i <= n; i++) {
            m.put(Integer.toString(i), "default/worker-" + i);
        }
        return m;
    }

    @Test
    void seedFourSlash22PoolsGive1022UsableAddressesEach() {
        // docs/seed-setup.md: MacvlanNetworks rdma-net-ipam-lan2..lan5 in networkNamespace prod, ranges 192.168.4.0/22,
        // 192.168.8.0/22, 192.168.12.0/22, 192.168.16.0/22, gateway .1 of each (not excluded by whereabouts).
        MacvlanNetwork lan2 = IpamObjects.loadAll("seed-macvlannetwork-lan2.yaml", MacvlanNetwork.class).get(0);
        IpamSnapshot.Builder b = IpamSnapshot.builder(clock.instant());
        String[] ranges = {"192.168.4", "192.168.8", "192.168.12", "192.168.16"};
        List<String> names = new ArrayList<>();
        for (int i = 0; i < 4; i++) {
            String name = "rdma-net-ipam-lan" + (i + 2);
            String ipam = lan2.getSpec().ipam().replace("192.168.4.", ranges[i] + ".");
            MacvlanNetwork m = IpamObjects.macvlan(name, lan2.getSpec().networkNamespace(), "lan" + (i + 2), ipam);
            b.macvlanNetwork(m).networkAttachmentDefinition(IpamObjects.renderedBy(m));
            names.add(name);
        }
        // the seed's Volcano job annotation
        PodNetworksRequest request = PodNetworksRequest.ofAnnotation("prod", String.join(",", names));
        IpPoolLedger ledger = ledger(b.build());
        PoolVerdict v = ledger.check(request, 1, null);

        assertThat(v.admitted()).isTrue();
        assertThat(v.networks()).extracting(NetworkVerdict::interfaceName)
                .containsExactly("net1", "net2", "net3", "net4");
        assertThat(v.networks()).extracting(NetworkVerdict::master).containsExactly("lan2", "lan3", "lan4", "lan5");
        assertThat(v.pools()).extracting(PoolStatus::poolName).containsExactly("192.168.4.0-22", "192.168.8.0-22",
                "192.168.12.0-22", "192.168.16.0-22");
        assertThat(v.pools()).allSatisfy(p -> {
            assertThat(p.usable()).isEqualTo(1022);
            assertThat(p.free()).isEqualTo(1022);
            assertThat(p.poolNamespace()).isNull(); // not created until the first allocation
        });
        assertThat(v.pools().get(0).span()).isEqualTo("192.168.4.1-192.168.7.254");
        assertThat(ledger.check(request, 1022, null).admitted()).isTrue();
        assertThat(ledger.check(request, 1023, null).reason()).isEqualTo(PoolReason.POOL_EXHAUSTED);
    }

    @Test
    void seedMacvlanNetworkWithoutItsRenderedNadIsNotFound() {
        MacvlanNetwork lan2 = IpamObjects.loadAll("seed-macvlannetwork-lan2.yaml", MacvlanNetwork.class).get(0);
        IpPoolLedger ledger = ledger(IpamSnapshot.builder(clock.instant()).macvlanNetwork(lan2).build());
        PoolVerdict inProd = ledger.check(PodNetworksRequest.ofAnnotation("prod", "rdma-net-ipam-lan2"), 1, null);
        assertThat(inProd.reason()).isEqualTo(PoolReason.NETWORK_NOT_FOUND);
        assertThat(inProd.message()).contains("MacvlanNetwork rdma-net-ipam-lan2 has not rendered it");
        PoolVerdict inDefault = ledger.check(PodNetworksRequest.ofAnnotation("default", "rdma-net-ipam-lan2"), 1,
                null);
        assertThat(inDefault.message()).contains("MacvlanNetwork rdma-net-ipam-lan2 renders it into namespace prod");
    }
}
