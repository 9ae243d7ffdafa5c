package dev.railyard.benchmarks.scale;

import dev.railyard.api.multus.NetworkAttachmentDefinition;
import dev.railyard.api.whereabouts.IPPool;
import dev.railyard.scheduler.ipam.IpPoolLedger;
import dev.railyard.scheduler.ipam.IpamSnapshot;
import dev.railyard.scheduler.ipam.PodNetworksRequest;
import dev.railyard.scheduler.ipam.PodPlacement;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * The pool ledger alone on the node-slice networks of {@link ClusterScaleBenchmark}'s N-node cluster (the same
 * NetworkAttachmentDefinitions, NodeSlicePools and per-node IPPools, 85 % of the nodes holding one bound pod on all
 * four networks), in process: CPU of the calling thread for a new pool snapshot (what an IPPool write costs), the
 * first check on one node after it, the whole-network check a gang plan makes (no node: every slice added up), and
 * the per-node checks of a kube filter over all N names, first and repeated. Five rounds, each on a new snapshot of
 * the same objects, with {@code /proc/loadavg} beside them.
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
        List<IPPool> pools = net.pools(holders);
        IpPoolLedger ledger = new IpPoolLedger(Clock.systemUTC());
        System.out.printf(Locale.ROOT, "== %,d nodes, %,d node IPPools, %,d bound pods (load %s)%n", nodes,
                pools.size(), holders.size(), ScaleReport.load());
        for (int round = 0; round < 5; round++) {
            IpamSnapshot.Builder b = IpamSnapshot.builder(Instant.now());
            nads.forEach(b::networkAttachmentDefinition);
            net.slicePools().forEach(b::nodeSlicePool);
            pools.forEach(b::ipPool);
            for (ScaleNetworks.Holder h : holders) {
                b.livePod(ClusterLayout.PROD + "/" + h.pod());
                b.boundPod(new PodPlacement(h.pod(), all, ClusterLayout.nodeName(h.node())));
            }
            IpamSnapshot snapshot = b.build();
            long c0 = cpu();
            ledger.update(snapshot);
            long c1 = cpu();
            ledger.checkPod(all, "prod/probe", ClusterLayout.nodeName(7));
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
            System.out.printf(Locale.ROOT, "round %d: new snapshot %.1f ms, first node check %.1f ms, whole-network "
                            + "check %.1f ms, %,d node checks %.1f ms then %.1f ms (CPU; load %s)%n", round,
                    ms(c1 - c0), ms(c2 - c1), ms(c3 - c2), nodes, ms(c4 - c3), ms(c5 - c4), ScaleReport.load());
        }
    }

    private static long cpu() {
        return THREADS.getCurrentThreadCpuTime();
    }

    private static double ms(long nanos) {
        return nanos / 1e6;
    }
}
