package dev.railyard.benchmarks.scale;

import io.fabric8.kubernetes.api.model.ListOptionsBuilder;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeList;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodList;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Builds the load's {@link ClusterPopulator.Populated} from a cluster already in the API server (one restored from a
 * {@link PopulatedCache} snapshot): every Node and Pod is listed (pages of 2,000) and the Volcano NodeInfo / TaskInfo
 * bodies are written around the objects exactly as the API server returns them, as {@link ClusterPopulator} does
 * when it creates them. Node order and the free nodes come from the {@link ClusterLayout}, which is deterministic.
 */
final class ClusterReader {
    private static final long PAGE = 2_000;

    private final KubernetesClient client;
    private final KubernetesSerialization ser;
    private final ClusterLayout layout;

    ClusterReader(KubernetesClient client, ClusterLayout layout) {
        this.client = client;
        this.ser = client.getKubernetesSerialization();
        this.layout = layout;
    }

    /**
     * @param steps   population steps recorded when the cluster was created (seconds)
     * @param objects objects created, by kind, as recorded then
     * @throws IllegalStateException when a node or pending pod of the layout is not in the API server
     */
    ClusterPopulator.Populated read(Map<String, Double> steps, Map<String, Integer> objects) {
        int n = layout.nodes();
        Map<String, Node> nodes = new HashMap<>();
        String cont = null;
        do {
            NodeList page = client.nodes().list(new ListOptionsBuilder().withLimit(PAGE).withContinue(cont).build());
            page.getItems().forEach(node -> nodes.put(node.getMetadata().getName(), node));
            cont = page.getMetadata().getContinue();
        } while (cont != null && !cont.isEmpty());
        Map<String, List<Pod>> podsByNode = new HashMap<>();
        Map<String, Pod> pending = new HashMap<>();
        List<String> bound = new ArrayList<>();
        cont = null;
        do {
            PodList page = client.pods().inAnyNamespace()
                    .list(new ListOptionsBuilder().withLimit(PAGE).withContinue(cont).build());
            for (Pod p : page.getItems()) {
                String node = p.getSpec().getNodeName();
                if (node == null || node.isEmpty()) {
                    pending.put(p.getMetadata().getName(), p);
                } else {
                    podsByNode.computeIfAbsent(node, k -> new ArrayList<>()).add(p);
                    bound.add(p.getMetadata().getNamespace() + "/" + p.getMetadata().getName());
                }
            }
            cont = page.getMetadata().getContinue();
        } while (cont != null && !cont.isEmpty());

        List<String> names = new ArrayList<>();
        List<Integer> free = new ArrayList<>();
        byte[][] nodeInfos = new byte[n][];
        ClusterLayout.Occupancy[] occ = layout.occupancy();
        for (int i = 0; i < n; i++) {
            String name = ClusterLayout.nodeName(i);
            Node node = nodes.get(name);
            if (node == null) {
                throw new IllegalStateException("node " + name + " of the layout is not in the API server");
            }
            names.add(name);
            if (occ[i] == ClusterLayout.Occupancy.FREE) {
                free.add(i);
            }
            List<Pod> pods = podsByNode.getOrDefault(name, List.of());
            List<byte[]> tasks = new ArrayList<>();
            for (Pod p : pods) {
                String job = p.getMetadata().getAnnotations() == null ? null
                        : p.getMetadata().getAnnotations().get("scheduling.k8s.io/group-name");
                tasks.add(VolcanoWire.taskInfo(ser.asJson(p), p, job == null ? "" : ClusterLayout.PROD + "/" + job,
                        job == null ? "" : "worker", VolcanoWire.RUNNING));
            }
            nodeInfos[i] = VolcanoWire.nodeInfo(ser.asJson(node), node, tasks, pods);
        }
        List<byte[]> gangTasks = new ArrayList<>();
        for (String name : layout.gangPods()) {
            Pod p = pending.get(name);
            if (p == null) {
                throw new IllegalStateException("pending gang pod " + name + " is not in the API server");
            }
            gangTasks.add(VolcanoWire.taskInfo(ser.asJson(p), p, ClusterLayout.PROD + "/" + ClusterLayout.GANG,
                    "worker", VolcanoWire.PENDING));
        }
        Pod kube = pending.get(ClusterLayout.KUBE_POD);
        if (kube == null) {
            throw new IllegalStateException("pending pod " + ClusterLayout.KUBE_POD + " is not in the API server");
        }
        return new ClusterPopulator.Populated(names, nodeInfos, List.copyOf(gangTasks), ser.asJson(kube),
                List.copyOf(bound), free, steps, objects);
    }
}
