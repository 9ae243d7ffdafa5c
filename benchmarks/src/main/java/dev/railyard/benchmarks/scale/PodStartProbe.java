package dev.railyard.benchmarks.scale;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClient;

import java.util.Random;

/**
 * A GPU pod's start and end as Railyard sees them, unlike a status update (which changes nothing it reads): the
 * seed's worker shape with one GPU, one slot of each HCA and the four secondary networks, created in namespace
 * {@value ClusterLayout#PROD} already bound to a random node (as a bind leaves it), and force-deleted afterwards.
 * Each is a new pod key, a node's GPU use changed, and a bound pod that draws addresses from the four pools: the
 * cluster state's node record, its live pods and the pool ledger's drawers all change (docs/adr/0020, "pod changes").
 */
final class PodStartProbe {
    private final KubernetesClient client;
    private final int nodes;
    private final Random random = new Random(17);

    /** @param nodes the cluster's node count ({@link ClusterLayout#nodeName} indexes) */
    PodStartProbe(KubernetesClient client, int nodes) {
        this.client = client;
        this.nodes = nodes;
    }

    /**
     * Creates probe pod {@code s} bound to a random node.
     *
     * @return what deletes it
     */
    Runnable start(int s) {
        String name = "bench-pod-probe-" + s;
        Pod p = probePod(name, ClusterLayout.nodeName(random.nextInt(nodes)));
        ClusterPopulator.retry(() -> client.resource(p).create());
        return () -> ClusterPopulator.retry(() -> client.pods().inNamespace(ClusterLayout.PROD).withName(name)
                .withGracePeriod(0).delete());
    }

    /** The benchmark's kube-scheduler pod shape (the seed's worker) with one GPU, renamed and bound to {@code node}. */
    static Pod probePod(String name, String node) {
        Pod p = ScaleObjects.pendingKubePod();
        p.getMetadata().setName(name);
        p.getMetadata().setLabels(java.util.Map.of("app.kubernetes.io/name", "bench-probe"));
        p.getSpec().setNodeName(node);
        var resources = p.getSpec().getContainers().getFirst().getResources();
        resources.getRequests().put("nvidia.com/gpu", new io.fabric8.kubernetes.api.model.Quantity("1"));
        resources.getLimits().put("nvidia.com/gpu", new io.fabric8.kubernetes.api.model.Quantity("1"));
        return p;
    }
}
