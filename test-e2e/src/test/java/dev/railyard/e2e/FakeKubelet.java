package dev.railyard.e2e;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeAddress;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import io.fabric8.kubernetes.client.informers.ResourceEventHandler;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Plays the kubelet for nodes labelled {@link GpuNodes#FAKE_NODE_LABEL}: a pod bound to such a node
 * ({@code spec.nodeName} set, phase Pending, not deleting) is reported Running and Ready through the
 * {@code pods/status} subresource, as kubelet would once its containers start; a pod on such a node with a
 * {@code deletionTimestamp} is deleted with grace period 0, as kubelet does after its containers stop. Pod and host
 * IPs are only strings (pod IPs {@code 10.251.<node>.<n>}); nothing runs and no traffic goes anywhere.
 *
 * <p>This replaces kwok's pod-ready and pod-delete stages (kwok's pod-complete stage, which would finish Volcano
 * job pods at once, is deliberately not mirrored: GPU pods stay Running). Nodes need no heartbeat because no
 * node-lifecycle controller runs.
 */
public final class FakeKubelet implements AutoCloseable {

    private static final ObjectMapper JSON = new ObjectMapper();

    private final KubernetesClient client;
    private final ExecutorService writer = Executors.newSingleThreadExecutor(r -> {
        Thread t = new Thread(r, "fake-kubelet");
        t.setDaemon(true);
        return t;
    });
    private final Map<String, String> hostIps = new ConcurrentHashMap<>();
    private final Map<String, Integer> nodeIndex = new ConcurrentHashMap<>();
    private final Map<String, AtomicInteger> podCounters = new ConcurrentHashMap<>();
    private final AtomicInteger errors = new AtomicInteger();
    private SharedIndexInformer<Node> nodes;
    private SharedIndexInformer<Pod> pods;

    /** Creates a fake kubelet that acts through {@code client}; call {@link #start()}. */
    public FakeKubelet(KubernetesClient client) {
        this.client = client;
    }

    /** Starts watching fake nodes and all pods; returns when both informers have synced. */
    public FakeKubelet start() {
        nodes = client.nodes().withLabel(GpuNodes.FAKE_NODE_LABEL, "true").inform(new ResourceEventHandler<>() {
            @Override
            public void onAdd(Node n) {
                remember(n);
            }

            @Override
            public void onUpdate(Node old, Node n) {
                remember(n);
            }

            @Override
            public void onDelete(Node n, boolean unknown) {
                hostIps.remove(n.getMetadata().getName());
            }
        });
        pods = client.pods().inAnyNamespace().inform(new ResourceEventHandler<>() {
            @Override
            public void onAdd(Pod p) {
                writer.execute(() -> reconcile(p));
            }

            @Override
            public void onUpdate(Pod old, Pod p) {
                writer.execute(() -> reconcile(p));
            }

            @Override
            public void onDelete(Pod p, boolean unknown) {
                // nothing left to do
            }
        });
        return this;
    }

    /** Number of status writes or deletions that failed with something other than a conflict or a 404. */
    public int errors() {
        return errors.get();
    }

    private void remember(Node n) {
        String name = n.getMetadata().getName();
        String ip = n.getStatus() == null ? null : n.getStatus().getAddresses().stream()
                .filter(a -> "InternalIP".equals(a.getType())).map(NodeAddress::getAddress).findFirst().orElse(null);
        if (ip != null) {
            hostIps.put(name, ip);
            nodeIndex.computeIfAbsent(name, k -> nodeIndex.size() + 1);
        }
    }

    private void reconcile(Pod p) {
        String node = p.getSpec().getNodeName();
        if (node == null || !hostIps.containsKey(node)) {
            return;
        }
        String ns = p.getMetadata().getNamespace();
        String name = p.getMetadata().getName();
        try {
            if (p.getMetadata().getDeletionTimestamp() != null) {
                client.pods().inNamespace(ns).withName(name).withGracePeriod(0).delete();
            } else if (p.getStatus() == null || p.getStatus().getPhase() == null
                    || "Pending".equals(p.getStatus().getPhase())) {
                client.pods().inNamespace(ns).withName(name).subresource("status")
                        .patch(PatchContext.of(PatchType.STRATEGIC_MERGE), runningStatus(p, node));
            }
        } catch (KubernetesClientException e) {
            if (e.getCode() != 404 && e.getCode() != 409) {
                errors.incrementAndGet();
                System.err.println("[fake-kubelet] " + ns + "/" + name + " on " + node + ": " + e.getMessage());
            }
        }
    }

    private String runningStatus(Pod p, String node) {
        String now = Instant.now().toString();
        int n = podCounters.computeIfAbsent(node, k -> new AtomicInteger()).incrementAndGet();
        String podIp = "10.251." + nodeIndex.getOrDefault(node, 0) + "." + (n % 250 + 1);
        String hostIp = hostIps.get(node);
        List<Map<String, Object>> conditions = List.of("PodScheduled", "Initialized", "ContainersReady", "Ready")
                .stream().map(t -> Map.<String, Object>of("type", t, "status", "True", "lastTransitionTime", now))
                .toList();
        List<Map<String, Object>> containers = p.getSpec().getContainers().stream()
                .map(c -> containerStatus(c, now)).toList();
        Map<String, Object> status = new LinkedHashMap<>();
        status.put("phase", "Running");
        status.put("hostIP", hostIp);
        status.put("hostIPs", List.of(Map.of("ip", hostIp)));
        status.put("podIP", podIp);
        status.put("podIPs", List.of(Map.of("ip", podIp)));
        status.put("startTime", now);
        status.put("conditions", conditions);
        status.put("containerStatuses", containers);
        try {
            return JSON.writeValueAsString(Map.of("status", status));
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("cannot serialise pod status", e);
        }
    }

    private static Map<String, Object> containerStatus(Container c, String now) {
        Map<String, Object> s = new LinkedHashMap<>();
        s.put("name", c.getName());
        s.put("image", c.getImage());
        s.put("imageID", "fake://" + c.getImage());
        s.put("containerID", "fake://" + c.getName());
        s.put("ready", true);
        s.put("started", true);
        s.put("restartCount", 0);
        s.put("state", Map.of("running", Map.of("startedAt", now)));
        return s;
    }

    @Override
    public void close() {
        if (pods != null) {
            pods.close();
        }
        if (nodes != null) {
            nodes.close();
        }
        writer.shutdownNow();
    }
}
