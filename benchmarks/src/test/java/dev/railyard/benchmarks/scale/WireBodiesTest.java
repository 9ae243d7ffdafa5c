package dev.railyard.benchmarks.scale;

import dev.railyard.scheduler.protocol.AllocationVerdict;
import dev.railyard.scheduler.protocol.ExtenderPod;
import dev.railyard.scheduler.protocol.GangJob;
import dev.railyard.scheduler.protocol.GangReadiness;
import dev.railyard.scheduler.protocol.GangRef;
import dev.railyard.scheduler.protocol.GangVerdict;
import dev.railyard.scheduler.protocol.NeutralPlacementDecisions;
import dev.railyard.scheduler.engine.NodeScore;
import dev.railyard.scheduler.engine.NodeVerdict;
import dev.railyard.scheduler.protocol.PlacementDecisions;
import dev.railyard.scheduler.protocol.PodRef;
import dev.railyard.scheduler.protocol.VerbHandler;
import dev.railyard.scheduler.protocol.VolcanoTask;
import dev.railyard.scheduler.protocol.kube.Binder;
import dev.railyard.scheduler.protocol.kube.KubeExtender;
import dev.railyard.scheduler.protocol.volcano.VolcanoExtender;
import dev.railyard.scheduler.protocol.volcano.VolcanoSettings;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The benchmark's bodies are read by Railyard's own Volcano and kube-scheduler adapters as the pods and nodes they
 * were built from (so the benchmark's decisions are about objects that exist in the cluster, not neutral guesses).
 * Expected values are the objects' own fields; TaskInfo Job {@code namespace/podgroup} and Status 1 = Pending are
 * Volcano's (pkg/scheduler/api/job_info.go, types.go, v1.14).
 */
class WireBodiesTest {
    private final KubernetesSerialization ser = new KubernetesSerialization();
    private final Recording recording = new Recording();

    @Test
    void predicateCarriesTheGangTaskAndTheNodeByName() throws Exception {
        ClusterPopulator.Populated cluster = cluster(3);
        byte[] body = join(new DecisionLoad(java.net.URI.create("http://127.0.0.1:1"), cluster, new byte[0])
                .predicate(1, 2));

        handle(volcano(), "predicate", body);

        assertThat(recording.nodes).containsExactly("gpu-00002");
        ExtenderPod task = recording.pod;
        assertThat(task.ref()).isEqualTo(new PodRef("prod", "bench-gang-worker-1", "uid-1"));
        assertThat(task.gang()).isEqualTo(new GangRef("prod", "bench-gang", GangRef.Convention.VOLCANO));
        assertThat(task.volcanoTask()).isEqualTo(new VolcanoTask("prod/bench-gang", "worker", 1, ""));
        assertThat(task.requests().gpus()).isEqualTo(8);
    }

    @Test
    void prioritizeNamesTheFreeNodesItCarries() throws Exception {
        ClusterPopulator.Populated cluster = cluster(6);
        DecisionLoad load = new DecisionLoad(java.net.URI.create("http://127.0.0.1:1"), cluster, new byte[0]);

        handle(volcano(), "prioritize", join(load.prioritize(0, new SplittableRandom(3), 100)));

        // the cluster's free nodes are 1, 3 and 5 (see cluster()); fewer than 100, so all of them, each once
        assertThat(recording.nodes).containsExactlyInAnyOrder("gpu-00001", "gpu-00003", "gpu-00005");
        assertThat(recording.pod.ref().name()).isEqualTo("bench-gang-worker-0");
    }

    @Test
    void kubeFilterCarriesThePendingPodAndEveryNodeName() throws Exception {
        Pod kube = ScaleObjects.pendingKubePod();
        kube.getMetadata().setUid("uid-kube");
        byte[] body = VolcanoWire.kubeFilter(ser.asJson(kube), List.of("gpu-00000", "gpu-00001", "gpu-00002"));

        handle(new KubeExtender(recording, Binder.unwired(), 50, new SimpleMeterRegistry()).verbs(), "filter", body);

        assertThat(recording.nodes).containsExactly("gpu-00000", "gpu-00001", "gpu-00002");
        assertThat(recording.pod.ref()).isEqualTo(new PodRef("prod", "bench-kube-0", "uid-kube"));
        assertThat(recording.pod.gang()).isNull();
        assertThat(recording.pod.requests().gpus()).isEqualTo(8);
    }

    /** {@code nodes} nodes, odd ones free; each node carries one daemon pod; a 4-task pending gang. */
    private ClusterPopulator.Populated cluster(int nodes) {
        ScaleObjects objects = new ScaleObjects(ser, ScaleNetworks.of(nodes, 0));
        byte[][] infos = new byte[nodes][];
        List<String> names = new ArrayList<>();
        List<Integer> free = new ArrayList<>();
        for (int i = 0; i < nodes; i++) {
            Node n = objects.node(i);
            Pod d = ScaleObjects.daemonPod(i, 0);
            d.getMetadata().setUid("daemon-" + i);
            infos[i] = VolcanoWire.nodeInfo(ser.asJson(n), n,
                    List.of(VolcanoWire.taskInfo(ser.asJson(d), d, "", "", VolcanoWire.RUNNING)), List.of(d));
            names.add(n.getMetadata().getName());
            if (i % 2 == 1) {
                free.add(i);
            }
        }
        List<byte[]> tasks = new ArrayList<>();
        for (int k = 0; k < 4; k++) {
            Pod p = ScaleObjects.pendingGangPod("bench-gang-worker-" + k);
            p.getMetadata().setUid("uid-" + k);
            tasks.add(VolcanoWire.taskInfo(ser.asJson(p), p, "prod/bench-gang", "worker", VolcanoWire.PENDING));
        }
        return new ClusterPopulator.Populated(names, infos, tasks, "{}", List.of(), free, Map.of(), Map.of());
    }

    private Map<String, VerbHandler> volcano() {
        return new VolcanoExtender(recording, VolcanoSettings.DEFAULTS, new SimpleMeterRegistry()).verbs();
    }

    private static void handle(Map<String, VerbHandler> verbs, String verb, byte[] body) throws Exception {
        var reply = verbs.get(verb).handle(body);
        assertThat(reply.status()).as(reply.bodyText()).isEqualTo(200);
    }

    private static byte[] join(byte[][] parts) throws Exception {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        for (byte[] p : parts) {
            out.write(p);
        }
        return out.toByteArray();
    }

    /** Records the pod and node names of the last filter or score call; answers neutrally. */
    private static final class Recording implements PlacementDecisions {
        private final NeutralPlacementDecisions neutral = new NeutralPlacementDecisions(50, "test");
        ExtenderPod pod;
        List<String> nodes;

        @Override
        public List<NodeVerdict> filter(ExtenderPod pod, List<String> nodeNames) {
            this.pod = pod;
            this.nodes = nodeNames;
            return neutral.filter(pod, nodeNames);
        }

        @Override
        public List<NodeScore> score(ExtenderPod pod, List<String> nodeNames) {
            this.pod = pod;
            this.nodes = nodeNames;
            return neutral.score(pod, nodeNames);
        }

        @Override
        public GangVerdict enqueueable(GangJob job) {
            return neutral.enqueueable(job);
        }

        @Override
        public GangReadiness jobReady(GangJob job) {
            return neutral.jobReady(job);
        }

        @Override
        public AllocationVerdict allocated(ExtenderPod pod, String nodeName) {
            return neutral.allocated(pod, nodeName);
        }

        @Override
        public void deallocated(ExtenderPod pod, String nodeName) {
            neutral.deallocated(pod, nodeName);
        }

        @Override
        public Map<String, String> bindHints(PodRef ref, String nodeName) {
            return neutral.bindHints(ref, nodeName);
        }
    }
}
