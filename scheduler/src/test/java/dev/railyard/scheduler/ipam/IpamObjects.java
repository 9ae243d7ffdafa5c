package dev.railyard.scheduler.ipam;

import dev.railyard.api.multus.MacvlanNetwork;
import dev.railyard.api.multus.MacvlanNetworkSpec;
import dev.railyard.api.multus.NetworkAttachmentDefinition;
import dev.railyard.api.multus.NetworkAttachmentDefinitionSpec;
import dev.railyard.api.whereabouts.IPAllocation;
import dev.railyard.api.whereabouts.IPPool;
import dev.railyard.api.whereabouts.IPPoolSpec;
import dev.railyard.api.whereabouts.NodeSliceAllocation;
import dev.railyard.api.whereabouts.NodeSlicePool;
import dev.railyard.api.whereabouts.NodeSlicePoolSpec;
import dev.railyard.api.whereabouts.NodeSlicePoolStatus;
import dev.railyard.api.whereabouts.OverlappingRangeIPReservation;
import dev.railyard.api.whereabouts.OverlappingRangeIPReservationSpec;
import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicReference;

/** Builds the Kubernetes objects the ledger reads, and loads fixture artifacts. */
public final class IpamObjects {
    static final KubernetesSerialization SERIALIZATION = new KubernetesSerialization();
    static final String WHEREABOUTS_NS = "kube-system";

    private IpamObjects() {
    }

    static String resource(String name) {
        try (InputStream in = IpamObjects.class.getResourceAsStream("/fixtures/" + name)) {
            if (in == null) {
                throw new IllegalStateException("missing test resource fixtures/" + name);
            }
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** @return every YAML document of the resource, read as {@code type} by fabric8's serializer */
    static <T> List<T> loadAll(String name, Class<T> type) {
        List<T> out = new ArrayList<>();
        for (String doc : resource(name).split("(?m)^---\\s*$")) {
            if (!doc.isBlank()) {
                out.add(SERIALIZATION.unmarshal(doc, type));
            }
        }
        return out;
    }

    static NetworkAttachmentDefinition nad(String namespace, String name, String config) {
        NetworkAttachmentDefinition nad = new NetworkAttachmentDefinition();
        nad.setMetadata(new ObjectMetaBuilder().withNamespace(namespace).withName(name).build());
        nad.setSpec(new NetworkAttachmentDefinitionSpec(config));
        return nad;
    }

    /** A macvlan NAD config around the given IPAM JSON object text. */
    static String macvlanConfig(String name, String master, String ipamJson) {
        return "{\"cniVersion\":\"0.3.1\",\"name\":\"" + name + "\",\"type\":\"macvlan\",\"master\":\"" + master
                + "\",\"mode\":\"bridge\",\"ipam\":" + ipamJson + "}";
    }

    /** A NAD with a whereabouts IPAM config whose other keys are given as JSON members. */
    static NetworkAttachmentDefinition whereaboutsNad(String namespace, String name, String ipamMembers) {
        return nad(namespace, name, macvlanConfig(name, "lan2", "{\"type\":\"whereabouts\"," + ipamMembers + "}"));
    }

    /**
     * What the network-operator renders from a MacvlanNetwork (pkg/state/state_macvlan_network.go, template
     * manifests/state-macvlan-network/0010-macvlan-net-cr.yml): same name, in networkNamespace, ipam with every
     * whitespace character removed.
     */
    static NetworkAttachmentDefinition renderedBy(MacvlanNetwork m) {
        MacvlanNetworkSpec s = m.getSpec();
        String ipam = s.ipam() == null || s.ipam().isBlank() ? "{}" : s.ipam().replaceAll("\\s", "");
        String config = "{\"cniVersion\":\"0.3.1\",\"name\":\"" + m.getMetadata().getName()
                + "\",\"type\":\"macvlan\",\"master\":\"" + s.master() + "\",\"mode\":\"" + s.mode()
                + "\",\"mtu\":" + s.mtu() + ",\"ipam\":" + ipam + "}";
        return nad(s.effectiveNetworkNamespace(), m.getMetadata().getName(), config);
    }

    static MacvlanNetwork macvlan(String name, String networkNamespace, String master, String ipam) {
        MacvlanNetwork m = new MacvlanNetwork();
        m.setMetadata(new ObjectMetaBuilder().withName(name).build());
        m.setSpec(new MacvlanNetworkSpec(networkNamespace, master, "bridge", 1500, ipam, null));
        return m;
    }

    /** @param allocations offset to podref; the interface is net1 */
    static IPPool pool(String name, String range, Map<String, String> allocations) {
        Map<String, IPAllocation> a = new LinkedHashMap<>();
        int i = 0;
        for (Map.Entry<String, String> e : allocations.entrySet()) {
            a.put(e.getKey(), new IPAllocation("c" + (i++), e.getValue(), "net1"));
        }
        return poolWith(WHEREABOUTS_NS, name, range, a);
    }

    static IPPool poolWith(String namespace, String name, String range, Map<String, IPAllocation> allocations) {
        IPPool p = new IPPool();
        p.setMetadata(new ObjectMetaBuilder().withNamespace(namespace).withName(name).build());
        p.setSpec(new IPPoolSpec(range, allocations));
        return p;
    }

    static OverlappingRangeIPReservation reservation(String name, String podref) {
        OverlappingRangeIPReservation r = new OverlappingRangeIPReservation();
        r.setMetadata(new ObjectMetaBuilder().withNamespace(WHEREABOUTS_NS).withName(name).build());
        r.setSpec(new OverlappingRangeIPReservationSpec(null, podref, "net1"));
        return r;
    }

    /** @param slices slice CIDR to node name ("" for a free slice), in order */
    static NodeSlicePool slicePool(String name, String range, String sliceSize, Map<String, String> slices) {
        NodeSlicePool p = new NodeSlicePool();
        p.setMetadata(new ObjectMetaBuilder().withNamespace(WHEREABOUTS_NS).withName(name).build());
        p.setSpec(new NodeSlicePoolSpec(range, sliceSize));
        List<NodeSliceAllocation> a = new ArrayList<>();
        slices.forEach((slice, node) -> a.add(new NodeSliceAllocation(node, slice)));
        p.setStatus(new NodeSlicePoolStatus(a));
        return p;
    }

    /** A clock tests move by hand (also used outside ipam, e.g. SchedulingAttemptsTest). */
    public static final class MutableClock extends Clock {
        private final AtomicReference<Instant> now;

        public MutableClock(Instant start) {
            this.now = new AtomicReference<>(start);
        }

        public void advance(java.time.Duration d) {
            now.updateAndGet(t -> t.plus(d));
        }

        @Override
        public ZoneId getZone() {
            return ZoneOffset.UTC;
        }

        @Override
        public Clock withZone(ZoneId zone) {
            return this;
        }

        @Override
        public Instant instant() {
            return now.get();
        }
    }

    /**
     * @return {@code now} with the {@link PodChanges} from {@code before} (placements compared by identity, as the
     *         cluster state keeps an unchanged pod's record the same instance), or {@code now} itself when
     *         {@code before} is null
     */
    public static IpamSnapshot withChanges(IpamSnapshot before, IpamSnapshot now) {
        if (before == null) {
            return now;
        }
        java.util.Set<String> came = new java.util.LinkedHashSet<>(now.livePods());
        came.removeAll(before.livePods());
        java.util.Set<String> went = new java.util.LinkedHashSet<>(before.livePods());
        went.removeAll(now.livePods());
        came.addAll(went);
        Map<String, PodPlacement> then = new LinkedHashMap<>();
        before.boundPods().forEach(p -> then.put(p.podRef(), p));
        Map<String, PodPlacement> after = new LinkedHashMap<>();
        now.boundPods().forEach(p -> after.put(p.podRef(), p));
        Map<String, PodPlacement> was = new LinkedHashMap<>();
        Map<String, PodPlacement> is = new LinkedHashMap<>();
        java.util.Set<String> keys = new java.util.LinkedHashSet<>(then.keySet());
        keys.addAll(after.keySet());
        for (String k : keys) {
            if (then.get(k) != after.get(k)) {
                if (then.get(k) != null) {
                    was.put(k, then.get(k));
                }
                if (after.get(k) != null) {
                    is.put(k, after.get(k));
                }
            }
        }
        return new IpamSnapshot(now.takenAt(), now.networkAttachmentDefinitions(), now.macvlanNetworks(),
                now.ipPools(), now.overlappingRangeIPReservations(), now.nodeSlicePools(), now.livePods(),
                now.boundPods(), now.heldPods(), new PodChanges(before.livePods(), before.boundPods(), came, was, is));
    }

    /**
     * The ledger tests' pool: network job/rail over 10.7.0.0/28 (14 usable, .1-.14; whereabouts skips network and
     * broadcast), offsets 1..4 allocated to job/old-1..4, so 10 free; live pods job/w-0..19 and {@code moreLive}.
     */
    static IpamSnapshot.Builder tenFreeRail(java.time.Instant takenAt, String... moreLive) {
        java.util.Map<String, IPAllocation> a = new java.util.LinkedHashMap<>();
        for (int i = 1; i <= 4; i++) {
            a.put(Integer.toString(i), new IPAllocation("c" + i, "job/old-" + i, "net1"));
        }
        java.util.List<String> live = new java.util.ArrayList<>();
        for (int i = 0; i < 20; i++) {
            live.add("job/w-" + i);
        }
        live.addAll(java.util.List.of(moreLive));
        return IpamSnapshot.builder(takenAt)
                .networkAttachmentDefinition(whereaboutsNad("job", "rail", "\"range\":\"10.7.0.0/28\""))
                .ipPool(poolWith(WHEREABOUTS_NS, "10.7.0.0-28", "10.7.0.0/28", a))
                .livePods(live);
    }
}
