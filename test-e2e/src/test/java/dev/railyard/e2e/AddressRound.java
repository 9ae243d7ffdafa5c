package dev.railyard.e2e;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.GenericKubernetesResourceBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.io.IOException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

/**
 * One round of the address race (issue 15): a fresh whereabouts network {@code race/<name>} whose IPPool has exactly
 * {@link #K} free addresses, and pods that each need one; afterwards the holders are counted from the API server.
 *
 * <p>The network: a macvlan NetworkAttachmentDefinition with whereabouts range {@code 10.<a>.<b>.0/28}: 14 usable
 * addresses (whereabouts skips the network and broadcast addresses, docs/formats/whereabouts.md), of which the
 * IPPool {@code kube-system/10.<a>.<b>.0-28} lists 4 as allocated (to pods that no longer exist: stale, still used
 * until whereabouts' reconciler runs), so {@code 14 - 4 = 10} are free. No CNI runs here, so a bound pod never gets
 * its address recorded and keeps counting (docs/adr/0005): every pod bound in the round holds one address, and so
 * does every pod with a live {@code railyard.dev/address-hold} that is not bound yet.
 *
 * <p>Pods: {@code <name>-<i>}, label {@code railyard.dev/race=<name>}, one {@code nvidia.com/gpu} (so kube-scheduler
 * would send them to the extender), annotation {@code k8s.v1.cni.cncf.io/networks: race/<name>}.
 */
final class AddressRound {
    static final String NAMESPACE = "race";
    static final int K = 10;
    static final String LABEL = "railyard.dev/race";
    static final String HOLD = "railyard.dev/address-hold";
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final ExecutorService CREATE = Executors.newFixedThreadPool(32);

    private final KubernetesClient client;
    final String name;
    final String pool;
    private final String range;

    /**
     * @param index distinct per round of the class (picks the range {@code 10.60+index/256.index%256.0/28})
     */
    AddressRound(KubernetesClient client, String name, int index) {
        this.client = client;
        this.name = name;
        String net = "10." + (60 + index / 256) + "." + (index % 256);
        this.range = net + ".0/28";
        this.pool = net + ".0-28";
    }

    /** Creates the network and its pool. */
    void createNetwork() {
        String config = "{\"cniVersion\":\"0.3.1\",\"name\":\"" + name + "\",\"type\":\"macvlan\",\"master\":\"lan2\","
                + "\"mode\":\"bridge\",\"ipam\":{\"type\":\"whereabouts\",\"range\":\"" + range + "\"}}";
        client.genericKubernetesResources("k8s.cni.cncf.io/v1", "NetworkAttachmentDefinition").inNamespace(NAMESPACE)
                .resource(new GenericKubernetesResourceBuilder().withApiVersion("k8s.cni.cncf.io/v1")
                        .withKind("NetworkAttachmentDefinition").withNewMetadata().withName(name)
                        .withNamespace(NAMESPACE).endMetadata()
                        .withAdditionalProperties(Map.of("spec", Map.of("config", config))).build()).create();
        Map<String, Object> allocations = new LinkedHashMap<>();
        for (int i = 1; i <= 4; i++) {
            allocations.put(Integer.toString(i), Map.of("id", "c" + i, "podref", NAMESPACE + "/gone-" + i,
                    "ifname", "net1"));
        }
        GenericKubernetesResource ipPool = new GenericKubernetesResourceBuilder()
                .withApiVersion("whereabouts.cni.cncf.io/v1alpha1").withKind("IPPool").withNewMetadata()
                .withName(pool).withNamespace("kube-system").endMetadata()
                .withAdditionalProperties(Map.of("spec", Map.of("range", range, "allocations", allocations))).build();
        client.genericKubernetesResources("whereabouts.cni.cncf.io/v1alpha1", "IPPool").inNamespace("kube-system")
                .resource(ipPool).create();
    }

    /**
     * Creates pods {@code <name>-<from>} … {@code <name>-<to - 1>} (32 at a time).
     *
     * @param scheduler their {@code spec.schedulerName}
     * @return the pods as the API server stored them (with UIDs)
     */
    List<Pod> createPods(int from, int to, String scheduler) throws Exception {
        List<Future<Pod>> created = new ArrayList<>();
        for (int i = from; i < to; i++) {
            Pod p = new PodBuilder().withNewMetadata().withName(name + "-" + i).withNamespace(NAMESPACE)
                    .addToLabels(LABEL, name)
                    .addToAnnotations("k8s.v1.cni.cncf.io/networks", NAMESPACE + "/" + name).endMetadata()
                    .withNewSpec().withSchedulerName(scheduler).addNewContainer().withName("main").withImage("busybox")
                    .withNewResources().addToRequests("nvidia.com/gpu", new Quantity("1"))
                    .addToLimits("nvidia.com/gpu", new Quantity("1")).endResources().endContainer().endSpec().build();
            created.add(CREATE.submit(() -> client.pods().inNamespace(NAMESPACE).resource(p).create()));
        }
        List<Pod> out = new ArrayList<>();
        for (Future<Pod> f : created) {
            out.add(f.get());
        }
        return out;
    }

    /**
     * Creates the pods of a Volcano gang: {@code <group>-0} … {@code <group>-<n-1>}, {@code schedulerName: volcano},
     * annotated with the PodGroup {@code group} ({@code scheduling.k8s.io/group-name}), each needing one address.
     */
    List<Pod> createGangPods(String group, int n) {
        List<Pod> out = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            Pod p = new PodBuilder().withNewMetadata().withName(group + "-" + i).withNamespace(NAMESPACE)
                    .addToLabels(LABEL, name)
                    .addToAnnotations("k8s.v1.cni.cncf.io/networks", NAMESPACE + "/" + name)
                    .addToAnnotations("scheduling.k8s.io/group-name", group).endMetadata()
                    .withNewSpec().withSchedulerName("volcano").addNewContainer().withName("main").withImage("busybox")
                    .withNewResources().addToRequests("nvidia.com/gpu", new Quantity("1"))
                    .addToLimits("nvidia.com/gpu", new Quantity("1")).endResources().endContainer().endSpec().build();
            out.add(client.pods().inNamespace(NAMESPACE).resource(p).create());
        }
        return out;
    }

    /** What the API server shows at the end of a round. */
    record Count(int bound, int held, List<String> holders) {
        int total() {
            return bound + held;
        }
    }

    /**
     * Counts from the API server: the round's pods bound to a node (each draws an address from the pool; none is
     * recorded here), and the pods not bound whose {@code railyard.dev/address-hold} names their own UID and has not
     * expired.
     */
    Count count() {
        int bound = 0;
        int held = 0;
        List<String> holders = new ArrayList<>();
        Instant now = Instant.now();
        for (Pod p : client.pods().inNamespace(NAMESPACE).withLabel(LABEL, name).list().getItems()) {
            String node = p.getSpec().getNodeName();
            if (node != null && !node.isEmpty()) {
                bound++;
                holders.add(p.getMetadata().getName() + "@" + node);
                continue;
            }
            String hold = p.getMetadata().getAnnotations() == null ? null
                    : p.getMetadata().getAnnotations().get(HOLD);
            if (hold != null && live(hold, p.getMetadata().getUid(), now)) {
                held++;
                holders.add(p.getMetadata().getName() + " (held)");
            }
        }
        return new Count(bound, held, holders);
    }

    private static boolean live(String hold, String uid, Instant now) {
        try {
            JsonNode n = JSON.readTree(hold);
            return uid.equals(n.path("uid").asText()) && Instant.parse(n.path("until").asText()).isAfter(now);
        } catch (IOException | RuntimeException e) {
            return false;
        }
    }

    /** The round's pods as the API server has them now. */
    List<Pod> pods() {
        return client.pods().inNamespace(NAMESPACE).withLabel(LABEL, name).list().getItems();
    }

    /** Deletes the round's pods (grace 0), its network and its pool. */
    void delete() {
        client.pods().inNamespace(NAMESPACE).withLabel(LABEL, name).withGracePeriod(0).delete();
        client.genericKubernetesResources("k8s.cni.cncf.io/v1", "NetworkAttachmentDefinition").inNamespace(NAMESPACE)
                .withName(name).delete();
        client.genericKubernetesResources("whereabouts.cni.cncf.io/v1alpha1", "IPPool").inNamespace("kube-system")
                .withName(pool).delete();
    }
}
