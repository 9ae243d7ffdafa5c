package dev.railyard.benchmarks.scale;

import dev.railyard.api.multus.NetworkAttachmentDefinition;
import dev.railyard.api.whereabouts.IPAllocation;
import dev.railyard.api.whereabouts.IPPool;
import dev.railyard.api.whereabouts.IPPoolSpec;
import dev.railyard.api.whereabouts.NodeSlicePool;
import dev.railyard.api.whereabouts.OverlappingRangeIPReservation;
import dev.railyard.api.whereabouts.OverlappingRangeIPReservationSpec;
import dev.railyard.e2e.SeedCluster;
import dev.railyard.scheduler.ipam.IpPoolLedger;
import dev.railyard.scheduler.ipam.IpamSnapshot;
import dev.railyard.scheduler.ipam.PodNetworksRequest;
import dev.railyard.scheduler.ipam.PodPlacement;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Locale;

/**
 * The pool ledger alone on the node-slice networks of {@link ClusterScaleBenchmark}'s N-node cluster (the same
 * NetworkAttachmentDefinitions, NodeSlicePools and per-node IPPools, 85 % of the nodes holding one bound pod on all
 * four networks, and one OverlappingRangeIPReservation per allocation, as whereabouts writes them while
 * {@code enable_overlapping_ranges} is on, its default; {@code -Dreservations=false} leaves them out), in process:
 * CPU of the calling thread for a new pool snapshot, the first check on the changed node after it, the whole-network
 * check a gang plan makes (no node: every slice added up), and the per-node checks of a kube filter over all N names,
 * first and repeated. Round 0 starts from nothing; each later round is one address change, as whereabouts makes it
 * when a pod starts: one node's IPPool of the first network written anew with one more allocation, and its
 * reservation created; every other object stays the same instance, as the informers hand them over. Five rounds,
 * with {@code /proc/loadavg} beside them.
 *
 * <pre>
 * java -Xmx3g -cp benchmarks/target/benchmarks.jar dev.railyard.benchmarks.scale.NodeSliceLedgerCost 20000
 * </pre>
 */
public final class NodeSliceLedgerCost {
    private static final ThreadMXBean THREADS = ManagementFactory.getThreadMXBean();

    private NodeSliceLedgerCost() {
    }

    /** @param args node counts (default 20000) */
    public static void main(String[] args) {
        for (String a : args.length == 0 ? new String[]{"20000"} : args) {
            run(Integer.parseInt(a));
        }
    }

    private static void run(int nodes) {
        ScaleNetworks net = new ScaleNetworks(true, nodes);
        PodNetworksRequest all = PodNetworksRequest.ofAnnotation(ClusterLayout.PROD,
                String.join(",", ScaleObjects.NETWORKS));
        List<ScaleNetworks.Holder> holders = new ArrayList<>();
        for (int i = 0; i < nodes * 85 / 100; i++) {
            holders.add(new ScaleNetworks.Holder("p" + i, i, 1));
        }
        KubernetesSerialization ser = new KubernetesSerialization();
        List<NetworkAttachmentDefinition> nads = new ArrayList<>();
        try (KubernetesClient client = new KubernetesClientBuilder().build()) {
            for (HasMetadata h : net.networks(client)) {
                if (h.getKind().equals("NetworkAttachmentDefinition")) {
                    nads.add(ser.convertValue(h, NetworkAttachmentDefinition.class));
                }
            }
        }
        List<IPPool> pools = new ArrayList<>(net.pools(holders));
        boolean withReservations = Boolean.parseBoolean(System.getProperty("reservations", "true"));
        List<OverlappingRangeIPReservation> reservations = new ArrayList<>();
        if (withReservations) {
            reservations.addAll(net.reservations(holders));
        }
        // made once: the informers hand over the same NodeSlicePool objects until whereabouts' controller writes them
        List<NodeSlicePool> slicePools = net.slicePools();
        IpPoolLedger ledger = new IpPoolLedger(Clock.systemUTC());
        System.out.printf(Locale.ROOT, "== %,d nodes, %,d node IPPools, %,d bound pods, %,d reservations (load %s)%n",
                nodes, pools.size(), holders.size(), reservations.size(), ScaleReport.load());
        for (int round = 0; round < 5; round++) {
            int changed = 7 + round * (holders.size() / 5); // a node with a bound pod, another each round
            if (round > 0) {
                // whereabouts hands the changed node's next address out on the first network: a new IPPool object
                // with one more allocation, and its reservation
                int k = indexOf(pools, ScaleObjects.NETWORKS.get(0) + "-" + ClusterLayout.nodeName(changed) + "-");
                IPPool before = pools.get(k);
                Map<String, IPAllocation> a = new LinkedHashMap<>(before.getSpec().allocations());
                String offset = Integer.toString(2 + round);
                a.put(offset, new IPAllocation("%064x".formatted(round), ClusterLayout.PROD + "/new-" + round,
                        "net1"));
                IPPool after = new IPPool();
                after.setMetadata(before.getMetadata());
                after.setSpec(new IPPoolSpec(before.getSpec().range(), a));
                pools.set(k, after);
                if (withReservations) {
                    reservations.add(reservation(ScaleObjects.NETWORKS.get(0), before.getSpec().range(),
                            Integer.parseInt(offset), ClusterLayout.PROD + "/new-" + round));
                }
            }
            IpamSnapshot.Builder b = IpamSnapshot.builder(Instant.now());
            nads.forEach(b::networkAttachmentDefinition);
            slicePools.forEach(b::nodeSlicePool);
            pools.forEach(b::ipPool);
            reservations.forEach(b::overlappingRangeIPReservation);
            for (ScaleNetworks.Holder h : holders) {
                b.livePod(ClusterLayout.PROD + "/" + h.pod());
                b.boundPod(new PodPlacement(h.pod(), all, ClusterLayout.nodeName(h.node())));
            }
            IpamSnapshot snapshot = b.build();
            long c0 = cpu();
            ledger.update(snapshot);
            long c1 = cpu();
            ledger.checkPod(all, "prod/probe", ClusterLayout.nodeName(changed));
            long c2 = cpu();
            ledger.check(all, 1, null);
            long c3 = cpu();
            for (int n = 0; n < nodes; n++) {
                ledger.checkPod(all, "prod/kube-pod", ClusterLayout.nodeName(n));
            }
            long c4 = cpu();
            for (int n = 0; n < nodes; n++) {
                ledger.checkPod(all, "prod/kube-pod", ClusterLayout.nodeName(n));
            }
            long c5 = cpu();
            System.out.printf(Locale.ROOT, "round %d%s: new snapshot %.1f ms, first node check %.1f ms, "
                            + "whole-network check %.1f ms, %,d node checks %.1f ms then %.1f ms (CPU; load %s)%n",
                    round, round == 0 ? " (from nothing)" : " (one address change)", ms(c1 - c0), ms(c2 - c1),
                    ms(c3 - c2), nodes, ms(c4 - c3), ms(c5 - c4), ScaleReport.load());
        }
    }

    private static int indexOf(List<IPPool> pools, String prefix) {
        for (int i = 0; i < pools.size(); i++) {
            if (pools.get(i).getMetadata().getName().startsWith(prefix)) {
                return i;
            }
        }
        throw new IllegalStateException("no IPPool named " + prefix + "*");
    }

    /** A reservation {@code <network_name>-<address>} of the address {@code offset} above the slice's network. */
    private static OverlappingRangeIPReservation reservation(String network, String slice, int offset, String podref) {
        String[] o = slice.split("[./]");
        int ip = (Integer.parseInt(o[0]) << 24 | Integer.parseInt(o[1]) << 16 | Integer.parseInt(o[2]) << 8
                | Integer.parseInt(o[3])) + offset;
        String text = (ip >>> 24) + "." + ((ip >>> 16) & 0xff) + "." + ((ip >>> 8) & 0xff) + "." + (ip & 0xff);
        OverlappingRangeIPReservation r = new OverlappingRangeIPReservation();
        r.setMetadata(new ObjectMetaBuilder().withName(network + "-" + text)
                .withNamespace(SeedCluster.WHEREABOUTS_NAMESPACE).build());
        r.setSpec(new OverlappingRangeIPReservationSpec(null, podref, "net1"));
        return r;
    }

    private static long cpu() {
        return THREADS.getCurrentThreadCpuTime();
    }

    private static double ms(long nanos) {
        return nanos / 1e6;
    }
}
