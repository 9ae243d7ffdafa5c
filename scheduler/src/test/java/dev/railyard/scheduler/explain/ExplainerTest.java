package dev.railyard.scheduler.explain;

import dev.railyard.scheduler.cluster.ClusterFixtures;
import dev.railyard.scheduler.cluster.ClusterObjects;
import dev.railyard.topology.InputException;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.OwnerReferenceBuilder;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import static dev.railyard.scheduler.cluster.ClusterFixtures.nad;
import static dev.railyard.scheduler.cluster.ClusterFixtures.node;
import static dev.railyard.scheduler.cluster.ClusterFixtures.objects;
import static dev.railyard.scheduler.cluster.ClusterFixtures.pod;
import static dev.railyard.scheduler.cluster.ClusterFixtures.seedShape;
import static dev.railyard.scheduler.cluster.ClusterFixtures.topology;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The explain logic on small hand-written clusters of seed-shaped nodes (8 GPUs; GPUs 2k, 2k+1 PIX to mlx5_k, which
 * is rail k on netdev lan(k+2)).
 */
class ExplainerTest {
    @TempDir
    Path tmp;

    private final Explainer explainer = new Explainer();

    private List<VolcanoJobTemplate.Job> jobs(String yaml) throws IOException {
        Path f = tmp.resolve("job.yaml");
        Files.writeString(f, yaml);
        return VolcanoJobTemplate.read(f);
    }

    /** A seed-shaped node whose agent reports these GPUs held. */
    private static List<GenericKubernetesResource> busyNode(String name, List<Integer> busy) {
        return List.of(node(name, null, Map.of()), topology(name, seedShape(), Map.of("allocatedGpus", busy)));
    }

    @Test
    void aRailSetThatCannotBeMetNamesTheRailsAndTheNodesThatLackThem() throws IOException {
        // n-a has GPUs 0,1 free (rail 0 only); n-b has GPUs 2,3 free (rail 1 only). Two pods of 2 GPUs with rail
        // alignment required need one rail set for both: {0×2} fits one pod (n-a), {1×2} one pod (n-b).
        List<GenericKubernetesResource> all = new ArrayList<>();
        all.addAll(busyNode("n-a", List.of(2, 3, 4, 5, 6, 7)));
        all.addAll(busyNode("n-b", List.of(0, 1, 4, 5, 6, 7)));
        List<VolcanoJobTemplate.Job> job = jobs("""
                apiVersion: batch.volcano.sh/v1alpha1
                kind: Job
                metadata:
                  name: ring
                  namespace: prod
                  annotations: {railyard.dev/rail-alignment: required}
                spec:
                  minAvailable: 2
                  tasks:
                  - name: worker
                    replicas: 2
                    template:
                      spec:
                        containers:
                        - name: main
                          resources: {requests: {nvidia.com/gpu: 2}}
                """);

        Explanation e = explainer.explain(objects(all), ExplainRequest.whatIf(job), Explainer.Context.service());

        Explanation.Gang g = e.gangs().get(0);
        assertThat(g.status()).isEqualTo(Explanation.Gang.UNSCHEDULABLE);
        assertThat(e.allPlaced()).isFalse();
        assertThat(g.reasons()).extracting(Explanation.ReasonEntry::code).containsExactly("NO_COMMON_RAIL_SET");
        // both vectors fit one pod; ties go to the lower rail sequence, {0×2}
        assertThat(g.reasons().get(0).detail()).contains("the most available, {0×2}, fits 1 of them");
        assertThat(g.reasonGroups()).containsExactly(new Explanation.ReasonGroup("RAIL_SET_UNAVAILABLE",
                "rail set {0×2} unavailable", 1, List.of("n-b")));
        assertThat(g.summary()).endsWith("1/2 nodes available: 1 rail set {0×2} unavailable");
        assertThat(g.placements()).isEmpty();
        String table = ExplanationTable.render(e, true);
        assertThat(table).contains("rail set {0×2} unavailable (1): n-b");
        assertThat(table).contains("  n-a: fits (2 GPUs free)");
        assertThat(table).contains("  n-b: rail set {0×2} unavailable: qualifying free GPUs per rail [0, 2, 0, 0]");
    }

    /** n-a (seed shape) and a /29 network whose 6 addresses are all allocated, the 6th to a pod that is gone. */
    private static List<GenericKubernetesResource> dryPool() {
        List<GenericKubernetesResource> all = new ArrayList<>(busyNode("n-a", List.of()));
        all.add(nad("prod", "net-a", "lan2", "10.10.0.0/29"));
        List<String> refs = new ArrayList<>();
        for (int i = 1; i <= 5; i++) {
            refs.add("prod/live-" + i);
            all.add(pod("prod", "live-" + i, null, null, Map.of()));
        }
        refs.add("prod/gone-0");
        all.add(ClusterFixtures.ipPool("kube-system", "10.10.0.0-29", "10.10.0.0/29", refs));
        return all;
    }

    @Test
    void aDryPoolNamesThePoolItsNetworkTheCountsAndTheStaleHolder() throws IOException {
        List<VolcanoJobTemplate.Job> job = jobs("""
                apiVersion: batch.volcano.sh/v1alpha1
                kind: Job
                metadata: {name: probe, namespace: prod}
                spec:
                  tasks:
                  - name: main
                    template:
                      metadata:
                        annotations: {k8s.v1.cni.cncf.io/networks: net-a}
                      spec:
                        containers:
                        - name: main
                          resources: {limits: {nvidia.com/gpu: 1}}
                """);

        Explanation e = explainer.explain(objects(dryPool()), ExplainRequest.whatIf(job), Explainer.Context.service());

        Explanation.Gang g = e.gangs().get(0);
        assertThat(g.status()).isEqualTo(Explanation.Gang.UNSCHEDULABLE);
        assertThat(g.reasons()).singleElement().satisfies(r -> {
            assertThat(r.code()).isEqualTo("POOL_EXHAUSTED");
            assertThat(r.summary()).isEqualTo("pool 10.10.0.0-29 exhausted");
            assertThat(r.detail()).contains("network prod/net-a").contains("0 of 6 free");
        });
        // 10.10.0.0/29: .1-.6 usable; offsets 1..6 allocated; offset 6 = 10.10.0.6 held by prod/gone-0 (no pod)
        assertThat(g.pools()).singleElement().satisfies(l -> {
            assertThat(l.network()).isEqualTo("prod/net-a");
            assertThat(l.master()).isEqualTo("lan2");
            assertThat(l.pool()).isEqualTo("10.10.0.0-29");
            assertThat(l.poolNamespace()).isEqualTo("kube-system");
            assertThat(l.status()).isEqualTo("pool_exhausted");
            assertThat(List.of(l.usable(), l.allocated(), l.stale(), l.free(), l.needed()))
                    .containsExactly(6L, 6L, 1L, 0L, 1L);
            assertThat(l.staleHolders()).containsExactly(new Explanation.StaleHolder("10.10.0.6", "prod/gone-0",
                    "net1"));
        });
        String table = ExplanationTable.render(e, false);
        assertThat(table).contains("prod/net-a  lan2    10.10.0.0-29  kube-system  6       6          0         0"
                + "          1      0     1       pool_exhausted");
        assertThat(table).contains("stale in 10.10.0.0-29: 10.10.0.6 (prod/gone-0 net1)");
        assertThat(table).contains("nodes: not examined (the gang was refused before any node)");
    }

    @Test
    void poolsListsEveryNetworkAndIpPoolsNoNetworkUses() {
        List<GenericKubernetesResource> all = new ArrayList<>(dryPool());
        all.add(ClusterFixtures.ipPool("kube-system", "10.99.0.0-24", "10.99.0.0/24", List.of("prod/old-0")));

        Explanation e = explainer.explain(objects(all), ExplainRequest.pools(), Explainer.Context.service());

        assertThat(e.gangs()).isEmpty();
        assertThat(e.pools()).hasSize(2);
        Explanation.PoolLine a = e.pools().get(0);
        assertThat(a.network()).isEqualTo("prod/net-a");
        assertThat(a.status()).isEqualTo("ok");
        assertThat(List.of(a.usable(), a.allocated(), a.reservedElsewhere(), a.inFlight(), a.stale(), a.free()))
                .containsExactly(6L, 6L, 0L, 0L, 1L, 0L);
        Explanation.PoolLine orphan = e.pools().get(1);
        assertThat(orphan.network()).isNull();
        assertThat(orphan.pool()).isEqualTo("10.99.0.0-24");
        assertThat(orphan.status()).isEqualTo("unused");
        assertThat(orphan.staleHolders()).containsExactly(new Explanation.StaleHolder("10.99.0.1", "prod/old-0",
                "net1"));
        assertThat(ExplanationTable.render(e, false)).contains("(none)")
                .contains("stale in 10.99.0.0-24: 10.99.0.1 (prod/old-0 net1)");
    }

    /** PodGroup prod/train-uid of Volcano Job train: worker-0 bound on n-a with a hint for GPUs 0,1; worker-1 pending. */
    private static ClusterObjects training() {
        List<GenericKubernetesResource> all = new ArrayList<>(busyNode("n-a", List.of()));
        GenericKubernetesResource cordoned = node("n-b", null, Map.of());
        cordoned.setAdditionalProperty("spec", Map.of("unschedulable", true));
        all.add(cordoned);
        all.add(topology("n-b", seedShape(), null));
        GenericKubernetesResource pg = ClusterFixtures.podGroup("prod", "train-uid", 2, null);
        pg.getMetadata().setOwnerReferences(List.of(new OwnerReferenceBuilder().withApiVersion(
                "batch.volcano.sh/v1alpha1").withKind("Job").withName("train").withUid("uid").build()));
        all.add(pg);
        String hint = "{\"version\":1,\"node\":\"n-a\",\"gang\":\"prod/train\",\"gangSize\":2,\"rank\":0,\"gpus\":["
                + "{\"gpu\":0,\"hca\":\"mlx5_0\",\"port\":1,\"rail\":0,\"distance\":\"PIX\"},"
                + "{\"gpu\":1,\"hca\":\"mlx5_0\",\"port\":1,\"rail\":0,\"distance\":\"PIX\"}]}";
        all.add(pod("prod", "train-worker-0", "n-a", Map.of("scheduling.k8s.io/group-name", "train-uid",
                "volcano.sh/task-spec", "worker", "volcano.sh/task-index", "0", "railyard.dev/placement", hint),
                Map.of("nvidia.com/gpu", "2")));
        all.add(pod("prod", "train-worker-1", null, Map.of("scheduling.k8s.io/group-name", "train-uid",
                "volcano.sh/task-spec", "worker", "volcano.sh/task-index", "1"), Map.of("nvidia.com/gpu", "2")));
        return objects(all);
    }

    @Test
    void aJobByNameReportsBoundPodsWhereTheyAreAndPlansThePendingOnes() {
        Explanation e = explainer.explain(training(), ExplainRequest.job("prod", "train"),
                Explainer.Context.service());

        Explanation.Gang g = e.gangs().get(0);
        assertThat(g.gang()).isEqualTo("prod/train-uid");
        assertThat(g.kind()).isEqualTo("PodGroup");
        assertThat(g.minMember()).isEqualTo(2);
        assertThat(g.status()).isEqualTo(Explanation.Gang.SCHEDULABLE);
        assertThat(g.placements()).extracting(Explanation.Placement::pod, Explanation.Placement::source)
                .containsExactly(org.assertj.core.groups.Tuple.tuple("train-worker-1", "plan"),
                        org.assertj.core.groups.Tuple.tuple("train-worker-0", "bound"));
        Explanation.Placement bound = g.placements().get(1);
        assertThat(bound.gpus()).containsExactly(new Explanation.GpuEntry(0, "mlx5_0", 0, "PIX"),
                new Explanation.GpuEntry(1, "mlx5_0", 0, "PIX"));
        assertThat(bound.railSet()).isEqualTo("{0×2}");
        // n-b is cordoned, so worker-1 goes to n-a, on two free GPUs of one PCIe pair (not 0,1, held by worker-0)
        Explanation.Placement planned = g.placements().get(0);
        assertThat(planned.node()).isEqualTo("n-a");
        assertThat(planned.gpus()).hasSize(2).allSatisfy(x -> assertThat(x.distance()).isEqualTo("PIX"));
        assertThat(planned.gpus()).extracting(Explanation.GpuEntry::gpu).doesNotContain(0, 1);
        assertThat(planned.hcas()).hasSize(1);
        assertThat(g.notices()).contains("1 of 2 pods are already bound and stay where they are; the plan places the "
                + "other 1");
        assertThat(g.nodes()).filteredOn(n -> n.node().equals("n-b")).singleElement()
                .satisfies(n -> assertThat(n.reasons()).extracting(Explanation.ReasonEntry::code)
                        .containsExactly("NODE_UNSCHEDULABLE"));
        assertThat(g.nodes()).filteredOn(n -> n.node().equals("n-a")).singleElement()
                .satisfies(n -> assertThat(n.gpuAccounting()).isEqualTo("placement hint: 1 pod"));
    }

    @Test
    void aCoschedulingPodGroupIsExplainedAsAGangOfItsLabelledPods() {
        // n-a and n-b have GPUs 0..3 held (rails 0, 1): each can take one 4-GPU pod on GPUs 4..7 (rails 2, 3).
        // PodGroup prod/cgang (scheduling.x-k8s.io, minMember 2, rail alignment required) with pods cg-0 and cg-1
        // named by the label scheduling.x-k8s.io/pod-group: one pod per node, both on rails 2 and 3.
        List<GenericKubernetesResource> all = new ArrayList<>(busyNode("n-a", List.of(0, 1, 2, 3)));
        all.addAll(busyNode("n-b", List.of(0, 1, 2, 3)));
        all.add(ClusterFixtures.coschedulingGroup("prod", "cgang", 2, Map.of("railyard.dev/rail-alignment",
                "required")));
        all.add(ClusterFixtures.coschedulingGroup("prod", "empty", 2, null));
        for (String p : List.of("cg-0", "cg-1")) {
            all.add(pod("prod", p, null, Map.of("scheduling.x-k8s.io/pod-group", "cgang"), null,
                    Map.of("nvidia.com/gpu", "4")));
        }

        Explanation e = explainer.explain(objects(all), ExplainRequest.job("prod", "cgang"),
                Explainer.Context.service());

        Explanation.Gang g = e.gangs().get(0);
        assertThat(g.gang()).isEqualTo("prod/cgang");
        assertThat(g.kind()).isEqualTo("PodGroup");
        assertThat(g.minMember()).isEqualTo(2);
        assertThat(g.status()).isEqualTo(Explanation.Gang.SCHEDULABLE);
        assertThat(g.placements()).extracting(Explanation.Placement::pod, Explanation.Placement::node)
                .containsExactly(org.assertj.core.groups.Tuple.tuple("cg-0", "n-a"),
                        org.assertj.core.groups.Tuple.tuple("cg-1", "n-b"));
        assertThat(g.placements()).allSatisfy(p -> assertThat(p.gpus()).containsExactly(
                new Explanation.GpuEntry(4, "mlx5_2", 2, "PIX"), new Explanation.GpuEntry(5, "mlx5_2", 2, "PIX"),
                new Explanation.GpuEntry(6, "mlx5_3", 3, "PIX"), new Explanation.GpuEntry(7, "mlx5_3", 3, "PIX")));
        assertThat(g.policySources()).contains("railyard.dev/rail-alignment=required (PodGroup)");

        // explain pod finds the same gang through the pod's label
        Explanation.Gang byPod = explainer.explain(objects(all), ExplainRequest.pod("prod", "cg-1"),
                Explainer.Context.service()).gangs().get(0);
        assertThat(byPod.podGroup()).isEqualTo("prod/cgang");
        assertThat(byPod.kind()).isEqualTo("PodGroup");

        assertThatThrownBy(() -> explainer.explain(objects(all), ExplainRequest.job("prod", "empty"),
                Explainer.Context.service())).isInstanceOf(InputException.class)
                .hasMessage("coscheduling PodGroup prod/empty has no pods (no pod in prod carries the label "
                        + "scheduling.x-k8s.io/pod-group=empty)");
        assertThatThrownBy(() -> explainer.explain(objects(all), ExplainRequest.job("prod", "other"),
                Explainer.Context.service())).isInstanceOf(InputException.class)
                .hasMessage("no PodGroup or Volcano Job prod/other in the service's cache (PodGroups in prod: "
                        + "cgang, empty)");
    }

    @Test
    void aPodIsExplainedWhereItIsOrWithItsOwnFilterVerdicts() {
        Explanation bound = explainer.explain(training(), ExplainRequest.pod("prod", "train-worker-0"),
                Explainer.Context.service());
        assertThat(bound.gangs().get(0).status()).isEqualTo(Explanation.Gang.PLACED);
        assertThat(bound.gangs().get(0).summary()).isEqualTo("bound to n-a");
        assertThat(bound.gangs().get(0).placements()).singleElement()
                .satisfies(p -> assertThat(p.source()).isEqualTo("bound"));

        Explanation pending = explainer.explain(training(), ExplainRequest.pod("prod", "train-worker-1"),
                Explainer.Context.service());
        Explanation.Gang g = pending.gangs().get(0);
        assertThat(g.status()).isEqualTo(Explanation.Gang.SCHEDULABLE);
        assertThat(g.summary()).isEqualTo("1/2 nodes available: 1 node unschedulable");
        assertThat(pending.allPlaced()).isTrue();

        assertThatThrownBy(() -> explainer.explain(training(), ExplainRequest.pod("prod", "nope"),
                Explainer.Context.service())).isInstanceOf(InputException.class)
                .hasMessage("no pod prod/nope in the cluster objects");
    }

    @Test
    void anUnknownJobIsBadInputAndAPodGroupWithoutPodsUsesItsVolcanoJob() throws IOException {
        assertThatThrownBy(() -> explainer.explain(training(), ExplainRequest.job("prod", "other"),
                Explainer.Context.service())).isInstanceOf(InputException.class)
                .hasMessage("no PodGroup or Volcano Job prod/other in the service's cache (PodGroups in prod: "
                        + "train-uid)");

        // a PodGroup Volcano has not created pods for yet; its Job is known to the caller
        List<GenericKubernetesResource> all = new ArrayList<>(busyNode("n-a", List.of()));
        all.add(ClusterFixtures.podGroup("prod", "wait-uid", 1, null));
        List<VolcanoJobTemplate.Job> job = jobs("""
                apiVersion: batch.volcano.sh/v1alpha1
                kind: Job
                metadata: {name: wait, namespace: prod, uid: uid}
                spec:
                  tasks:
                  - name: main
                    template:
                      spec:
                        containers:
                        - name: main
                          resources: {requests: {nvidia.com/gpu: 8}}
                """);
        Explainer.Context ctx = new Explainer.Context("snapshot", "dir", null, List.of(), List.of(),
                key -> key.equals("prod/wait-uid") ? null : key.equals("prod/wait") ? job.get(0) : null);

        Explanation e = explainer.explain(objects(all), ExplainRequest.job("prod", "wait"), ctx);

        // the Job's PodGroup name is <job>-<uid>, the one in the cluster
        assertThat(job.get(0).podGroup().name()).isEqualTo("wait-uid");
        Explanation.Gang g = e.gangs().get(0);
        assertThat(g.kind()).isEqualTo("VolcanoJob");
        assertThat(g.status()).isEqualTo(Explanation.Gang.SCHEDULABLE);
        assertThat(g.placements()).singleElement().satisfies(p -> {
            assertThat(p.pod()).isEqualTo("wait-main-0");
            assertThat(p.node()).isEqualTo("n-a");
            assertThat(p.gpus()).hasSize(8);
        });
    }

    @Test
    void theJsonFormReadsBackEqualAndStartsWithTheSchemaVersion() throws IOException {
        Explanation e = explainer.explain(objects(dryPool()), ExplainRequest.pools(), Explainer.Context.service());

        String json = ExplanationJson.write(e);

        assertThat(json).startsWith("{\n  \"schemaVersion\" : 1,\n  \"command\" : \"pools\",");
        assertThat(ExplanationJson.read(json)).isEqualTo(e);
        assertThat(e.source().kind()).isEqualTo("cluster");
        assertThat(e.source().fabric()).isEqualTo("no fabric data");
    }

    @Test
    void aMalformedJobFileNamesTheFileDocumentAndField() throws IOException {
        Path f = tmp.resolve("bad.yaml");
        Files.writeString(f, """
                apiVersion: batch.volcano.sh/v1alpha1
                kind: Job
                metadata: {name: ok, namespace: prod}
                spec:
                  tasks: [{name: main, template: {spec: {containers: [{name: c}]}}}]
                ---
                apiVersion: batch.volcano.sh/v1alpha1
                kind: Job
                metadata: {name: broken, namespace: prod}
                spec:
                  tasks:
                  - name: main
                    replicas: two
                    template: {spec: {containers: [{name: c}]}}
                """);
        assertThatThrownBy(() -> VolcanoJobTemplate.read(f)).isInstanceOf(InputException.class)
                .hasMessage(f + " document 2 (Job prod/broken): spec.tasks[0].replicas 'two' is not a whole number ≥ 0");

        // int32 as Volcano's Job CRD types replicas (config/crd/bases/batch.volcano.sh_jobs.yaml, v1.10)
        for (String[] c : new String[][]{
                {"99999999999", "spec.tasks[0].replicas 99999999999 exceeds int32 (max 2147483647)"},
                {"2147483648", "spec.tasks[0].replicas 2147483648 exceeds int32 (max 2147483647)"},
                {"\"4\"", "spec.tasks[0].replicas \"4\" is a string; write it unquoted (the Volcano Job CRD types it as "
                        + "an integer, and the API server refuses a string)"}}) {
            Files.writeString(f, """
                    apiVersion: batch.volcano.sh/v1alpha1
                    kind: Job
                    metadata: {name: broken, namespace: prod}
                    spec:
                      tasks:
                      - name: main
                        replicas: %s
                        template: {spec: {containers: [{name: c}]}}
                    """.formatted(c[0]));
            assertThatThrownBy(() -> VolcanoJobTemplate.read(f)).isInstanceOf(InputException.class)
                    .hasMessage(f + " document 1 (Job prod/broken): " + c[1]);
        }

        Files.writeString(f, "apiVersion: v1\nkind: Pod\nmetadata: {name: p}\n");
        assertThatThrownBy(() -> VolcanoJobTemplate.read(f)).isInstanceOf(InputException.class)
                .hasMessage(f + " document 1: Pod v1 is not a Volcano Job (apiVersion batch.volcano.sh/v1alpha1, "
                        + "kind Job)");
    }

    @Test
    void aTaskWhoseGpuRequestDiffersFromItsLimitIsRefusedAsTheApiServerWould() throws IOException {
        // Kubernetes validation: an extended resource cannot be overcommitted, so its request must equal its limit
        // (docs/formats/volcano-job.md §4); explain used to read the request alone and say "would be placed"
        Path f = tmp.resolve("overcommit.yaml");
        Files.writeString(f, """
                apiVersion: batch.volcano.sh/v1alpha1
                kind: Job
                metadata: {name: j, namespace: prod}
                spec:
                  tasks:
                  - name: main
                    template:
                      spec:
                        containers:
                        - name: c
                          resources:
                            requests: {nvidia.com/gpu: 8}
                            limits: {nvidia.com/gpu: 2}
                """);
        assertThatThrownBy(() -> VolcanoJobTemplate.read(f)).isInstanceOf(InputException.class)
                .hasMessage(f + " document 1 (Job prod/j): task main: containers[c].resources: nvidia.com/gpu "
                        + "requests 8 but limits 2: Kubernetes requires an extended resource's request to equal its "
                        + "limit");

        // equal amounts written differently (8 and "8.0") are the same quantity: accepted
        Files.writeString(f, Files.readString(f).replace("limits: {nvidia.com/gpu: 2}", "limits: {nvidia.com/gpu: \"8.0\"}"));
        assertThat(VolcanoJobTemplate.read(f)).hasSize(1);
    }
}
