package dev.railyard.scheduler.protocol;

import dev.railyard.scheduler.protocol.kube.KubeExtender;
import dev.railyard.scheduler.protocol.volcano.VolcanoExtender;
import dev.railyard.scheduler.protocol.volcano.VolcanoSettings;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The protocol adapters against request bodies a real vc-scheduler v1.14.1 and kube-scheduler v1.35.4 sent, captured
 * by test-e2e's recording proxy (src/test/resources/wire/captured, see the README there). Expected values are read
 * off those files: the seed's {@code rdma-test} job (PodGroup {@code rdma-test-cdd8c61d-…}, task role {@code master},
 * 8 GPUs and one device of each {@code nvidia.com/mlx5_0..3}) on the e2e cluster's nodes.
 */
class CapturedWireContractTest {
    static final String PG = "rdma-test-cdd8c61d-5018-4951-9059-a76a0921f827";
    static final String MASTER_UID = "b2497789-4d13-4014-ad1d-a9864b9eaaa0";
    static final Map<String, Long> SEED_HCAS = Map.of("nvidia.com/mlx5_0", 1L, "nvidia.com/mlx5_1", 1L,
            "nvidia.com/mlx5_2", 1L, "nvidia.com/mlx5_3", 1L);

    final RecordingDecisions port = new RecordingDecisions();
    final List<String> binds = new ArrayList<>();

    VolcanoExtender volcano() {
        return new VolcanoExtender(port, VolcanoSettings.DEFAULTS, new SimpleMeterRegistry());
    }

    KubeExtender kube() {
        return new KubeExtender(port, (pod, node, ann) -> binds.add(pod + " -> " + node), 50, new SimpleMeterRegistry());
    }

    static byte[] captured(String path) {
        return WireResources.load("captured/" + path);
    }

    static String text(WireReply r) {
        assertThat(r.status()).isEqualTo(200);
        return r.bodyText();
    }

    /** The seed master pod as every Volcano task body carries it (predicate-v1.14.1.json "task"). */
    void assertSeedMaster(ExtenderPod pod) {
        assertThat(pod.ref()).isEqualTo(new PodRef("prod", "rdma-test-master-0", MASTER_UID));
        assertThat(pod.schedulerName()).isEqualTo("volcano");
        assertThat(pod.gang()).isEqualTo(new GangRef("prod", PG, GangRef.Convention.VOLCANO));
        assertThat(pod.annotations()).containsEntry("k8s.v1.cni.cncf.io/networks",
                "rdma-net-ipam-lan2,rdma-net-ipam-lan3,rdma-net-ipam-lan4,rdma-net-ipam-lan5");
        assertThat(pod.requests().gpus()).isEqualTo(8);
        assertThat(pod.requests().hcaDevices()).isEqualTo(SEED_HCAS);
    }

    @Test
    void volcanoPredicateFromVcScheduler() throws Exception {
        assertThat(text(volcano().predicate(captured("volcano/predicate-v1.14.1.json"))))
                .isEqualTo("{\"status\":\"\",\"code\":0}");
        assertThat(port.nodeLists).containsExactly(List.of("gpu-a2"));
        ExtenderPod pod = port.pods.getFirst();
        assertSeedMaster(pod);
        // Job = "<ns>/<group-name annotation>", Status 1 = Pending, no node yet (v1.14 TaskInfo, no DRA keys)
        assertThat(pod.volcanoTask()).isEqualTo(new VolcanoTask("prod/" + PG, "master", 1, ""));
    }

    @Test
    void volcanoPrioritizeFromVcSchedulerListsTheNineNodesThatPassedPredicate() throws Exception {
        String reply = text(volcano().prioritize(captured("volcano/prioritize-v1.14.1.json")));
        // order as vc-scheduler sent them; gpu-c1/gpu-c2 had failed predicate and gpu-n1 has no NodeTopology
        List<String> nodes = List.of("gpu-a2", "gpu-b2", "gpu-b4", "gpu-b3", "gpu-a3", "gpu-n1", "gpu-a4", "gpu-b1",
                "gpu-a1");
        assertThat(port.nodeLists).containsExactly(nodes);
        assertSeedMaster(port.pods.getFirst());
        // RecordingDecisions scores 50 everywhere; weight 1.0; nodeScore keys sorted as Go would not matter
        for (String n : nodes) {
            assertThat(reply).contains("\"" + n + "\":50");
        }
    }

    @Test
    void volcanoJobEnqueueableArrivesBeforeVcControllerManagerCreatedThePods() throws Exception {
        assertThat(text(volcano().jobEnqueueable(captured("volcano/jobEnqueueable-v1.14.1.json"))))
                .isEqualTo("{\"status\":1}");
        GangJob job = port.jobs.getFirst();
        assertThat(job.jobId()).isEqualTo("prod/" + PG);
        assertThat(job.podGroupUid()).isEqualTo("6339c8f2-6475-47a3-8836-cca4f0d40491");
        assertThat(job.namespace()).isEqualTo("prod");
        assertThat(job.podGroupName()).isEqualTo(PG);
        assertThat(job.queue()).isEqualTo("default");
        assertThat(job.minAvailable()).isEqualTo(1);
        assertThat(job.taskMinAvailable()).isEqualTo(Map.of("master", 1));
        // The real body has "Tasks":{}: vc-controller-manager creates the pods only once the PodGroup is Inqueue,
        // which is what jobEnqueueable decides (the composed v1.15 file has tasks; real enqueue calls do not).
        assertThat(job.tasks()).isEmpty();
    }

    @Test
    void volcanoJobReadyCarriesTheAllocatedTaskOnce() throws Exception {
        assertThat(text(volcano().jobReady(captured("volcano/jobReady-v1.14.1.json")))).isEqualTo("{\"status\":true}");
        GangJob job = port.jobs.getFirst();
        assertThat(job.jobId()).isEqualTo("prod/" + PG);
        // Tasks has one entry and TaskStatusIndex repeats it under status "2" (Allocated): counted once
        assertThat(job.tasks()).extracting(p -> p.ref().name()).containsExactly("rdma-test-master-0");
        assertSeedMaster(job.tasks().getFirst());
    }

    @Test
    void volcanoAllocateAndDeallocateFromVcScheduler() throws Exception {
        assertThat(text(volcano().allocateFunc(captured("volcano/allocateFunc-v1.14.1.json"))))
                .isEqualTo("{\"errorMessage\":\"\"}");
        ExtenderPod allocated = port.pods.getFirst();
        assertSeedMaster(allocated);
        assertThat(allocated.volcanoTask()).isEqualTo(new VolcanoTask("prod/" + PG, "master", VolcanoTask.ALLOCATED,
                "gpu-a1"));

        // A rolled-back tentative allocation of the 4-pod gang: the real body keeps NodeName but Status is already
        // back to 1 (Pending), not 2 as in the composed deallocateFunc-v1.15.json.
        assertThat(text(volcano().deallocateFunc(captured("volcano/deallocateFunc-v1.14.1.json"))))
                .isEqualTo("{\"errorMessage\":\"\"}");
        ExtenderPod released = port.pods.get(1);
        assertThat(released.ref()).isEqualTo(new PodRef("prod", "gang-4x8-worker-1",
                "f23ed75f-3c61-4554-9d9f-4e5e42462dfe"));
        assertThat(released.volcanoTask()).isEqualTo(new VolcanoTask(
                "prod/gang-4x8-6ee71b90-0875-4a25-a480-1c1d23d44331", "worker", 1, "gpu-n1"));
        assertThat(port.events).containsExactly("allocated prod/rdma-test-master-0 gpu-a1",
                "deallocated prod/gang-4x8-worker-1 gpu-n1");
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
            "onSessionOpen  | volcano/onSessionOpen-v1.14.1.json  | {}",
            "onSessionClose | volcano/onSessionClose-v1.14.1.json | {}",
            "queueOverused  | volcano/queueOverused-v1.14.1.json  | {\"overused\":false}",
    })
    void volcanoVerbsAnsweredWithoutReadingTheBody(String verb, String resource, String expected) throws Exception {
        assertThat(text(volcano().verbs().get(verb).handle(captured(resource)))).isEqualTo(expected);
        assertThat(port.pods).isEmpty();
    }

    @Test
    void kubeFilterFromKubeSchedulerWithNodeCache() throws Exception {
        String reply = text(kube().filter(captured("kube/filter-nodenames-v1.35.4.json")));
        List<String> nodes = List.of("gpu-b2", "gpu-c1", "gpu-c2", "gpu-a1", "gpu-a2", "gpu-b3", "gpu-b4", "gpu-n1",
                "gpu-a3", "gpu-a4", "gpu-b1");
        assertThat(port.nodeLists).containsExactly(nodes);
        assertThat(reply).startsWith("{\"Nodes\":null,\"NodeNames\":[\"gpu-b2\",\"gpu-c1\",");
        ExtenderPod pod = port.pods.getFirst();
        assertThat(pod.ref()).isEqualTo(new PodRef("prod", "rdma-test-master-0", "88d958ae-f3f5-4833-97f7-a002538b0ca2"));
        assertThat(pod.schedulerName()).isEqualTo("default-scheduler");
        assertThat(pod.volcanoTask()).isNull();
        assertThat(pod.gang()).isNull();
        assertThat(pod.requests().gpus()).isEqualTo(8);
        assertThat(pod.requests().hcaDevices()).isEqualTo(SEED_HCAS);
    }

    @Test
    void kubePrioritizeAndBindFromKubeScheduler() throws Exception {
        String reply = text(kube().prioritize(captured("kube/prioritize-nodenames-v1.35.4.json")));
        // 9 nodes: gpu-c1/gpu-c2 were filtered out by Railyard in that run; 50 -> 5 on kube-scheduler's 0-10 scale
        assertThat(port.nodeLists).containsExactly(List.of("gpu-b2", "gpu-a1", "gpu-a2", "gpu-b3", "gpu-b4",
                "gpu-n1", "gpu-a3", "gpu-a4", "gpu-b1"));
        assertThat(reply).startsWith("[{\"Host\":\"gpu-b2\",\"Score\":5},");

        assertThat(text(kube().bind(captured("kube/bind-v1.35.4.json")))).isEqualTo("{\"Error\":\"\"}");
        assertThat(binds).containsExactly("prod/rdma-test-master-0 -> gpu-a1");
    }
}
