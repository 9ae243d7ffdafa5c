package dev.railyard.scheduler.cluster;

import dev.railyard.api.volcano.PodGroup;
import dev.railyard.scheduler.engine.BoundMember;
import dev.railyard.scheduler.engine.GangRequest;
import dev.railyard.scheduler.engine.PlacementPolicy;
import dev.railyard.scheduler.engine.PodRequest;
import dev.railyard.scheduler.engine.RailVector;
import dev.railyard.scheduler.engine.SecondaryNetwork;
import dev.railyard.scheduler.ipam.IpPoolLedger;
import dev.railyard.scheduler.ipam.IpamSnapshot;
import dev.railyard.topology.fabric.FabricModel;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import org.junit.jupiter.api.Test;

import java.math.BigDecimal;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import static dev.railyard.scheduler.cluster.ClusterFixtures.nad;
import static dev.railyard.scheduler.cluster.ClusterFixtures.node;
import static dev.railyard.scheduler.cluster.ClusterFixtures.object;
import static dev.railyard.scheduler.cluster.ClusterFixtures.objects;
import static dev.railyard.scheduler.cluster.ClusterFixtures.pod;
import static dev.railyard.scheduler.cluster.ClusterFixtures.podGroup;
import static org.assertj.core.api.Assertions.assertThat;

/** The assembled engine view: fabric, networks, PodGroups, pods; and the ledger's snapshot from the same objects. */
class ClusterViewTest {

    private static GenericKubernetesResource hyperNode(String name, Object tier, List<Map<String, Object>> members) {
        return object(WatchedKind.HYPER_NODE, null, name, null, null, Map.of("spec", Map.of("tier", tier,
                "members", members)));
    }

    private static Map<String, Object> nodeMember(String key, String value) {
        return Map.of("type", "Node", "selector", key.equals("exact") ? Map.of("exactMatch", Map.of("name", value))
                : Map.of("regexMatch", Map.of("pattern", value)));
    }

    private static IpPoolLedger ledger(ClusterObjects o) {
        IpPoolLedger l = new IpPoolLedger(Clock.fixed(Instant.parse("2026-09-01T00:00:00Z"), ZoneOffset.UTC),
                Duration.ofMinutes(5), null);
        l.update(IpamSnapshotConverter.convert(o).value());
        return l;
    }

    @Test
    void fabricComesFromHyperNodesAndAnUnreadableOneIsSkipped() {
        List<GenericKubernetesResource> all = new ArrayList<>(List.of(node("node-a", null, Map.of()),
                node("node-b", null, Map.of()), node("node-c1", null, Map.of())));
        all.add(hyperNode("leaf-1", 1, List.of(nodeMember("exact", "node-a"), nodeMember("exact", "node-b"))));
        all.add(hyperNode("leaf-2", 1, List.of(nodeMember("regex", "^node-c"))));
        all.add(hyperNode("spine", 2, List.of(Map.of("type", "HyperNode", "selector",
                Map.of("exactMatch", Map.of("name", "leaf-1"))), Map.of("type", "HyperNode", "selector",
                Map.of("exactMatch", Map.of("name", "leaf-2"))))));
        all.add(hyperNode("broken", "two", List.of(nodeMember("exact", "node-a"))));
        ClusterObjects o = objects(all);

        ClusterView v = ClusterView.of(o, null, null);

        FabricModel f = v.snapshot().fabric();
        assertThat(f.source()).isEqualTo(FabricModel.Source.HYPERNODES);
        // a and b share leaf-1 (tier 1); a and c1 meet at the spine (tier 2)
        assertThat(f.commonTier("node-a", "node-b", 0)).isEqualTo(1);
        assertThat(f.commonTier("node-a", "node-c1", 0)).isEqualTo(2);
        assertThat(v.warnings()).contains("HyperNode broken: spec.tier 'two' is not a whole number; skipped");
    }

    @Test
    void withoutHyperNodesTheFabricComesFromNodeLabels() {
        Map<String, String> leaf1 = Map.of("network.topology.nvidia.com/leaf", "l1",
                "network.topology.nvidia.com/spine", "s1");
        Map<String, String> leaf2 = Map.of("network.topology.nvidia.com/leaf", "l2",
                "network.topology.nvidia.com/spine", "s1");
        ClusterObjects o = objects(List.of(node("node-a", leaf1, Map.of()), node("node-b", leaf1, Map.of()),
                node("node-c", leaf2, Map.of())));

        FabricModel f = ClusterView.of(o, null, null).snapshot().fabric();

        assertThat(f.source()).isEqualTo(FabricModel.Source.LABELS);
        assertThat(f.commonTier("node-a", "node-b", 0)).isEqualTo(1);
        assertThat(f.commonTier("node-a", "node-c", 0)).isEqualTo(2);
    }

    @Test
    void networksTakeMasterRangeAndPoolFromTheLedgerAndWithoutItFromTheCniConfig() {
        ClusterObjects o = objects(List.of(nad("prod", "rdma-net-ipam-lan2", "lan2", "192.168.4.0/22")));

        // whereabouts' pool name: the canonical CIDR with '/' replaced by '-'
        assertThat(ClusterView.of(o, ledger(o), null).snapshot().network("prod/rdma-net-ipam-lan2"))
                .isEqualTo(new SecondaryNetwork("prod", "rdma-net-ipam-lan2", "lan2", "192.168.4.0/22",
                        "192.168.4.0-22"));
        assertThat(ClusterView.of(o, null, null).snapshot().network("prod/rdma-net-ipam-lan2"))
                .isEqualTo(new SecondaryNetwork("prod", "rdma-net-ipam-lan2", "lan2", null, null));
    }

    @Test
    void podGroupsAndTheirPodsInRankOrderBadObjectsSkippedWithAWarning() {
        Map<String, Object> nt = Map.of("mode", "soft", "highestTierAllowed", 2);
        GenericKubernetesResource pg = object(WatchedKind.POD_GROUP, "prod", "train-uid", null,
                Map.of("railyard.dev/rail-alignment", "required"), Map.of("spec", Map.of("minMember", 3,
                        "networkTopology", nt)));
        GenericKubernetesResource badPg = object(WatchedKind.POD_GROUP, "prod", "odd", null, null,
                Map.of("spec", Map.of("minMember", 1, "networkTopology", Map.of("mode", "strict"))));
        List<GenericKubernetesResource> all = new ArrayList<>(List.of(pg, badPg));
        // created out of order: worker-1, master-0, worker-0 (task-spec, then task-index, orders them)
        for (String[] p : new String[][]{{"worker", "1"}, {"master", "0"}, {"worker", "0"}}) {
            Map<String, String> ann = new LinkedHashMap<>();
            ann.put("scheduling.k8s.io/group-name", "train-uid");
            ann.put("volcano.sh/task-spec", p[0]);
            ann.put("volcano.sh/task-index", p[1]);
            all.add(pod("prod", "train-" + p[0] + "-" + p[1], null, ann, Map.of("nvidia.com/gpu", "8")));
        }
        all.add(pod("prod", "broken", null, null, Map.of("nvidia.com/gpu", "eight")));
        ClusterObjects o = objects(all);

        ClusterView v = ClusterView.of(o, null, null);

        PodGroup g = v.podGroup("prod/train-uid");
        assertThat(g.minMember()).isEqualTo(3);
        assertThat(g.networkTopology()).isEqualTo(new PodGroup.NetworkTopology(PodGroup.NetworkTopologyMode.SOFT, 2,
                null));
        assertThat(g.annotations()).containsEntry("railyard.dev/rail-alignment", "required");
        assertThat(v.members(g)).extracting(PodView::name)
                .containsExactly("train-master-0", "train-worker-0", "train-worker-1");
        assertThat(v.podGroupOf(v.pod("prod/train-worker-1"))).isSameAs(g);
        assertThat(v.podGroup("prod/odd")).isNull();
        assertThat(v.warnings()).contains(
                "PodGroup prod/odd: spec.networkTopology.mode: networkTopology.mode 'strict' is neither hard nor soft; "
                        + "skipped",
                "Pod prod/broken: containers[main].resources.requests.nvidia.com/gpu: 'eight' is not a quantity; "
                        + "skipped");
        // the gang: every member's request, the rail hint from the PodGroup
        var gang = v.gang("train", g, v.members(g), null);
        assertThat(gang.pods()).extracting(r -> r.gpus()).containsExactly(8, 8, 8);
        assertThat(gang.policy().sources()).contains("railyard.dev/rail-alignment=required (PodGroup)");
    }

    @Test
    void effectiveRequestsFollowKubernetesRuleForInitContainersSidecarsAndOverhead() {
        // apps: cpu 1 + 2 = 3, gpu 2; sidecar cpu 1 (restartPolicy Always); plain init cpu 4;
        // max(3 + 1, 4 + sidecars declared before it = 0) = 4, plus overhead 0.5 = 4.5;
        // mlx5_0 only as a limit: the API server defaults the request to it
        Map<String, Object> spec = Map.of(
                "containers", List.of(
                        Map.of("name", "a", "resources", Map.of("requests", Map.of("cpu", "1", "nvidia.com/gpu", "2"),
                                "limits", Map.of("nvidia.com/gpu", "2", "nvidia.com/mlx5_0", "1"))),
                        Map.of("name", "b", "resources", Map.of("requests", Map.of("cpu", "2000m")))),
                "initContainers", List.of(
                        Map.of("name", "setup", "resources", Map.of("requests", Map.of("cpu", "4"))),
                        Map.of("name", "proxy", "restartPolicy", "Always",
                                "resources", Map.of("requests", Map.of("cpu", "1")))),
                "overhead", Map.of("cpu", "500m"));
        PodView p = PodView.of(object(WatchedKind.POD, "prod", "p", null, null, Map.of("spec", spec)));

        assertThat(p.requests().get("cpu")).isEqualByComparingTo(new BigDecimal("4.5"));
        assertThat(p.gpus()).isEqualTo(2);
        assertThat(p.devices("nvidia.com/mlx5_0")).isEqualTo(1);
        assertThat(p.node()).isNull();
    }

    @Test
    void theLedgerSnapshotSkipsMisshapenPoolsAndCountsEveryPodAsLive() {
        GenericKubernetesResource badPool = object(WatchedKind.IP_POOL, "kube-system", "10.0.0.0-24", null, null,
                Map.of("spec", Map.of("range", "10.0.0.0/24", "allocations", "none")));
        GenericKubernetesResource goodPool = ClusterFixtures.ipPool("kube-system", "10.0.1.0-24", "10.0.1.0/24",
                List.of("prod/a"));
        ClusterObjects o = objects(List.of(badPool, goodPool, pod("prod", "a", "node-a", null, Map.of()),
                pod("prod", "b", null, null, Map.of())));

        Converted<IpamSnapshot> c = IpamSnapshotConverter.convert(o);

        assertThat(c.value().ipPools()).extracting(p -> p.getMetadata().getName()).containsExactly("10.0.1.0-24");
        assertThat(c.value().ipPools().get(0).getSpec().allocations().get("1").podref()).isEqualTo("prod/a");
        assertThat(c.value().livePods()).containsExactlyInAnyOrder("prod/a", "prod/b");
        assertThat(c.warnings()).singleElement().satisfies(w -> assertThat(w)
                .startsWith("IPPool kube-system/10.0.0.0-24: cannot be read as IPPool (")
                .endsWith("); left out of the pool counts"));
    }

    /** A seed-shape hint (GPU g on mlx5_(g/2), rail g/2) for {@code gpus} on {@code node}, naming {@code gang}. */
    private static String hint(String gang, String node, int rank, int... gpus) {
        return ClusterFixtures.seedHint(gang, node, 4, rank, gpus);
    }

    @Test
    void boundMembersTakeRailsAndRanksFromTheirHintsAndTheRestCountsByNode() {
        Map<String, Object> four = Map.of("nvidia.com/gpu", "4");
        String group = "scheduling.k8s.io/group-name";
        GenericKubernetesResource done = pod("prod", "g-5", "n", Map.of(group, "g"), four);
        done.setAdditionalProperty("status", Map.of("phase", "Succeeded"));
        ClusterView view = ClusterView.of(objects(List.of(node("n", null, Map.of()), podGroup("prod", "g", 6, null),
                pod("prod", "g-0", "n", Map.of(group, "g", "railyard.dev/placement",
                        hint("prod/g", "n", 0, 0, 1, 2, 3)), four),
                // the gang key Railyard wrote before it was fixed: the rank still counts
                pod("prod", "g-1", "n", Map.of(group, "g", "railyard.dev/placement",
                        hint("prod/prod/g", "n", 1, 4, 5, 6, 7)), four),
                // a hint of another gang (a one-pod plan): rails count, the rank does not
                pod("prod", "g-2", "n", Map.of(group, "g", "railyard.dev/placement",
                        hint("prod/x", "n", 0, 0, 1, 2, 3)), four),
                // two GPUs hinted for four requested: counted by node only
                pod("prod", "g-3", "n", Map.of(group, "g", "railyard.dev/placement", hint("prod/g", "n", 3, 0, 1)),
                        four),
                pod("prod", "g-4", null, Map.of(group, "g"), four), done)), null, FabricModel.empty());
        PodGroup pg = view.podGroup("prod/g");

        List<BoundMember> bound = view.boundMembers("prod/g", view.members(pg), null);

        // g-4 is pending and g-5 finished: neither is a bound member
        assertThat(bound).extracting(b -> b.pod().name()).containsExactly("g-0", "g-1", "g-2", "g-3");
        assertThat(bound).extracting(BoundMember::rank).containsExactly(0, 1, null, null);
        assertThat(bound).extracting(b -> String.valueOf(b.rails())).containsExactly("{0×2,1×2}", "{2×2,3×2}",
                "{0×2,1×2}", "null");
        assertThat(bound).extracting(BoundMember::hinted)
                .containsExactly(true, true, true, false);
        assertThat(view.unusableHint(view.pod("prod/g-3")))
                .isEqualTo("with a hint naming 2 GPUs for a pod requesting 4");
        assertThat(view.boundMembers("prod/g", view.members(pg), "prod/g-0")).extracting(b -> b.pod().name())
                .containsExactly("g-1", "g-2", "g-3");
    }

    /**
     * A member of PodGroup {@code group}, bound to node n, requesting {@code gpus.length} GPUs, hinted on those GPUs
     * of the seed shape (rail g/2) with {@code railChoice} (JSON, or null for none); with {@code gpus} null, bound
     * without a hint.
     */
    private static GenericKubernetesResource member(String group, String name, String railChoice, int... gpus) {
        Map<String, String> a = new LinkedHashMap<>();
        a.put("scheduling.k8s.io/group-name", group);
        if (gpus.length > 0) {
            String h = hint("prod/" + group, "n", 0, gpus);
            a.put("railyard.dev/placement", railChoice == null ? h
                    : h.substring(0, h.length() - 1) + ",\"railChoice\":" + railChoice + "}");
        }
        return pod("prod", name, "n", a, Map.of("nvidia.com/gpu", Integer.toString(gpus.length == 0 ? 4
                : gpus.length)));
    }

    /**
     * The gang's rail set per shape as its bound members' hints give it, the one rule the planner and the off-plan
     * hints share ({@link GangRequest#boundRailSets} over {@link ClusterView#boundMembers}). Moved from
     * OffPlanHintsTest (h-hints' {@code OffPlanHints.commonRails}), same cases and expected values.
     */
    @Test
    void theMembersRailSetIsTheMostCommonAmongAlignedMembersOfTheSameGpuCount() {
        RailVector rails01 = new RailVector(new int[]{2, 2});
        RailVector rails23 = new RailVector(new int[]{0, 0, 2, 2});
        String gangRails = "{\"source\":\"gang-rails\",\"gangRails\":\"0,0,1,1\",\"reason\":\"x\"}";
        String leftGangRails = "{\"source\":\"node-best\",\"gangRails\":\"0,0,1,1\",\"reason\":\"x\"}";
        String noneKnown = "{\"source\":\"node-best\",\"reason\":\"x\"}";
        List<GenericKubernetesResource> all = new ArrayList<>(List.of(node("n", null, Map.of()),
                podGroup("prod", "g", 10, null), podGroup("prod", "t", 2, null), podGroup("prod", "f", 2, null),
                // GPUs 4..7: rails 2,2,3,3; GPUs 0..3: rails 0,0,1,1 (seed shape)
                member("g", "g-0", null, 4, 5, 6, 7),
                member("g", "g-1", null, 0, 1, 2, 3),
                member("g", "g-2", gangRails, 0, 1, 2, 3),
                // a member that could not keep the gang's known rail set is not aligned: not counted
                member("g", "g-3", leftGangRails, 4, 5, 6, 7),
                member("g", "g-4", leftGangRails, 4, 5, 6, 7),
                // another shape (2 GPUs on rail 3): not counted for 4-GPU pods
                member("g", "g-5", null, 6, 7), member("g", "g-6", null, 6, 7), member("g", "g-7", null, 6, 7),
                // bound without a hint: counted by its node only
                member("g", "g-8", null),
                pod("prod", "g-9", null, Map.of("scheduling.k8s.io/group-name", "g"), Map.of("nvidia.com/gpu", "4")),
                // ties: the first seen (rank order)
                member("t", "t-0", null, 4, 5, 6, 7), member("t", "t-1", null, 0, 1, 2, 3),
                // node-best with no rail set known then (the first of its shape): its rails are the gang's
                member("f", "f-0", noneKnown, 4, 5, 6, 7)));
        ClusterView view = ClusterView.of(objects(all), null, FabricModel.empty());
        PodRequest four = view.request(view.pod("prod/g-9"));
        PodRequest two = new PodRequest("prod", "two", 2, four.rdmaResources(), four.networks(), false);
        PodRequest eight = new PodRequest("prod", "eight", 8, four.rdmaResources(), four.networks(), false);

        GangRequest g = gang(view, "g", four);
        assertThat(g.bound()).extracting(BoundMember::aligned)
                .containsExactly(true, true, true, false, false, true, true, true, false);
        assertThat(g.boundRailSets(four)).containsExactly(Map.entry(rails01, 2), Map.entry(rails23, 1));
        assertThat(g.boundRailSets(four).keySet().iterator().next()).isEqualTo(rails01);
        assertThat(g.boundRailSets(two)).containsExactly(Map.entry(new RailVector(new int[]{0, 0, 0, 2}), 3));
        assertThat(g.boundRailSets(eight)).isEmpty();
        assertThat(gang(view, "t", four).boundRailSets(four).keySet()).containsExactly(rails23, rails01);
        assertThat(gang(view, "f", four).boundRailSets(four)).containsExactly(Map.entry(rails23, 1));
    }

    @Test
    void aHintNamingANegativeRailCountsByNodeOnly() {
        // a hand-edited or damaged hint: no rail vector can be made from it (h-hints' commonRails skipped such a hint)
        String h = hint("prod/g", "n", 0, 0, 1, 2, 3).replace("\"gpu\":2,\"hca\":\"mlx5_1\",\"port\":1,\"rail\":1",
                "\"gpu\":2,\"hca\":\"mlx5_1\",\"port\":1,\"rail\":-1");
        ClusterView view = ClusterView.of(objects(List.of(node("n", null, Map.of()), podGroup("prod", "g", 2, null),
                pod("prod", "g-0", "n", Map.of("scheduling.k8s.io/group-name", "g", "railyard.dev/placement", h),
                        Map.of("nvidia.com/gpu", "4")))), null, FabricModel.empty());

        assertThat(view.unusableHint(view.pod("prod/g-0"))).isEqualTo("with a hint naming rail -1 for GPU 2");
        assertThat(view.boundMembers("prod/g", view.members(view.podGroup("prod/g")), null))
                .extracting(BoundMember::hinted).containsExactly(false);
    }

    private static GangRequest gang(ClusterView view, String group, PodRequest pending) {
        PodGroup pg = view.podGroup("prod/" + group);
        return new GangRequest("prod", group, List.of(pending), PlacementPolicy.defaults(),
                view.boundMembers("prod/" + group, view.members(pg), null));
    }

    @Test
    void coschedulingPodGroupsAreGangsOfTheirLabelledPodsAndVolcanosAnnotationWins() {
        // a Volcano PodGroup and a coscheduling PodGroup share the name prod/cg (different API groups)
        GenericKubernetesResource cosched = ClusterFixtures.coschedulingGroup("prod", "cg", 2,
                Map.of("railyard.dev/rail-alignment", "required"));
        GenericKubernetesResource unset = object(WatchedKind.COSCHEDULING_POD_GROUP, "prod", "no-min", null, null,
                Map.of("spec", Map.of("scheduleTimeoutSeconds", 60, "minResources", Map.of("nvidia.com/gpu", "8"))));
        GenericKubernetesResource bad = object(WatchedKind.COSCHEDULING_POD_GROUP, "prod", "bad", null, null,
                Map.of("spec", Map.of("minMember", "two")));
        GenericKubernetesResource volcano = podGroup("prod", "cg", 1, null);
        Map<String, Object> gpus = Map.of("nvidia.com/gpu", "4");
        List<GenericKubernetesResource> all = new ArrayList<>(List.of(cosched, unset, bad, volcano));
        all.add(pod("prod", "cg-1", null, Map.of("scheduling.x-k8s.io/pod-group", "cg"), null, gpus));
        all.add(pod("prod", "cg-0", null, Map.of("pod-group.scheduling.sigs.k8s.io", "cg"), null, gpus));
        // both conventions on one pod: Volcano's annotation names its gang (protocol.GangRef orders them so)
        all.add(pod("prod", "both", null, Map.of("scheduling.x-k8s.io/pod-group", "cg"),
                Map.of("scheduling.k8s.io/group-name", "cg"), gpus));
        // same label in another namespace: not a member (upstream lists pods by label in the PodGroup's namespace)
        all.add(pod("dev", "cg-9", null, Map.of("scheduling.x-k8s.io/pod-group", "cg"), null, gpus));

        ClusterView v = ClusterView.of(objects(all), null, null);

        PodGroup g = v.coschedulingGroup("prod/cg");
        assertThat(g.convention()).isEqualTo(PodGroup.Convention.COSCHEDULING);
        assertThat(g.minMember()).isEqualTo(2);
        assertThat(g.networkTopology()).isNull();
        assertThat(v.members(g)).extracting(PodView::name).containsExactly("cg-0", "cg-1");
        assertThat(v.podGroupOf(v.pod("prod/cg-1"))).isSameAs(g);
        assertThat(v.podGroupOf(v.pod("prod/cg-0"))).isSameAs(g);
        assertThat(v.podGroupOf(v.pod("dev/cg-9"))).isNull();
        PodGroup vg = v.podGroup("prod/cg");
        assertThat(vg.convention()).isEqualTo(PodGroup.Convention.VOLCANO);
        assertThat(v.podGroupOf(v.pod("prod/both"))).isSameAs(vg);
        assertThat(v.members(vg)).extracting(PodView::name).containsExactly("both");
        // minMember is an omitempty int32 upstream: unset reads as 0; the other spec fields are not Railyard's
        assertThat(v.coschedulingGroup("prod/no-min").minMember()).isZero();
        assertThat(v.coschedulingGroup("prod/bad")).isNull();
        assertThat(v.warnings()).contains("PodGroup prod/bad (scheduling.x-k8s.io/v1alpha1): spec.minMember 'two' "
                + "is not a whole number; skipped");
        // the gang's policy reads the PodGroup's railyard.dev/ hints as for a Volcano PodGroup
        var gang = v.gang("cg", g, v.members(g), null);
        assertThat(gang.policy().railAlignment()).isEqualTo(dev.railyard.api.hints.AffinityPolicy.REQUIRED);
        assertThat(gang.policy().sources()).contains("railyard.dev/rail-alignment=required (PodGroup)");
    }
}
