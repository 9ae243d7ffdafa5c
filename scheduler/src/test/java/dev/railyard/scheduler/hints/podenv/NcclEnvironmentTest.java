package dev.railyard.scheduler.hints.podenv;

import dev.railyard.api.hints.PlacementHint;
import dev.railyard.api.hints.PlacementHint.GpuHint;
import dev.railyard.api.topology.PcieDistance;
import dev.railyard.scheduler.hints.SeedNode;
import dev.railyard.scheduler.hints.SeedNode.Row;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

import static dev.railyard.scheduler.hints.SeedNode.ZERO;
import static dev.railyard.scheduler.hints.SeedNode.v4;
import static org.assertj.core.api.Assertions.assertThat;

class NcclEnvironmentTest {
    @TempDir
    Path root;

    private NcclEnvironment.Result run(PlacementHint hint, AllocatedGpus.Resolution gpus, PodAddresses addresses) {
        Path sys = root.resolve("sys");
        return NcclEnvironment.compute(hint, gpus, (hca, port) -> GidTable.read(sys, hca, port), addresses);
    }

    private static AllocatedGpus.Resolution uuids(int... gpus) {
        StringBuilder sb = new StringBuilder();
        for (int g : gpus) {
            sb.append(sb.isEmpty() ? "" : ",").append(SeedNode.uuid(g));
        }
        // none given: NVIDIA_VISIBLE_DEVICES unset (an empty value would mean "no GPU", as the toolkit documents)
        return AllocatedGpus.resolve(sb.isEmpty() ? null : sb.toString(), null, Path.of("/nonexistent-root"));
    }

    // ---- case-25: one HCA shared by macvlan pods, the pod's GID index depends on the pod ----

    /**
     * The GID table of mlx5_4 port 1 as each pod of multus-cni#1100 sees it. The artifact (show_gids inside each
     * pod) lists pod 1's 172.20.1.1 at 4 (v1) / 5 (v2) and pod 2's 172.20.1.2 at 6 (v1) / 7 (v2), ndev net1. The
     * PF's own entries 0..3 are not in the artifact; they are filled with the usual shape (link-local v1/v2, then an
     * IPv4 v1/v2, case-27's layout) and, like the other pod's entries, have unreadable types in the pod's view.
     */
    private void case25Table(boolean pod1) throws IOException {
        SeedNode.writePort(root.resolve("sys"), "mlx5_4", 1, "Ethernet", List.of(
                new Row(0, "fe80:0000:0000:0000:0000:00ff:fe00:0001", null, null),
                new Row(1, "fe80:0000:0000:0000:0000:00ff:fe00:0001", null, null),
                new Row(2, v4(172, 20, 0, 1), null, null),
                new Row(3, v4(172, 20, 0, 1), null, null),
                new Row(4, v4(172, 20, 1, 1), pod1 ? "IB/RoCE v1" : null, pod1 ? "net1" : null),
                new Row(5, v4(172, 20, 1, 1), pod1 ? "RoCE v2" : null, pod1 ? "net1" : null),
                new Row(6, v4(172, 20, 1, 2), pod1 ? null : "IB/RoCE v1", pod1 ? null : "net1"),
                new Row(7, v4(172, 20, 1, 2), pod1 ? null : "RoCE v2", pod1 ? null : "net1"),
                new Row(8, ZERO, null, null)));
    }

    /** One GPU on mlx5_4 through net1; the artifact gives no prefix length, /24 is assumed. */
    private static PlacementHint case25Hint() {
        GpuHint g = new GpuHint(0, "GPU-25000000-0000-4000-8000-000000000000", null, "mlx5_4", 1, "ens1f0", 0,
                PcieDistance.PIX, "default/macvlan-roce", "net1");
        return new PlacementHint(1, "node-a", "default/alg-test", 2, 0, List.of(), List.of(g),
                new PlacementHint.NcclSettings("=mlx5_4:1", "=net1", "172.20.1.0/24", "AF_INET", null), List.of(g));
    }

    @Test
    void case25Pod1PicksIndex5TheRoceV2EntryOfItsOwnAddress() throws IOException {
        case25Table(true);
        var r = run(case25Hint(), uuids(), PodAddresses.parseIpAddr(
                "2: net1@if9    inet 172.20.1.1/24 brd 172.20.1.255 scope global net1", "ip"));
        // multus#1100: pod 1's RoCE v2 GID (172.20.1.1, net1) is index 5
        assertThat(r.exports()).containsEntry("NCCL_IB_HCA", "=mlx5_4:1").containsEntry("NCCL_IB_GID_INDEX", "5")
                .containsEntry("NCCL_IB_ADDR_RANGE", "172.20.1.0/24");
    }

    @Test
    void case25Pod2OnTheSameHcaGetsIndex7() throws IOException {
        case25Table(false);
        var r = run(case25Hint(), uuids(), PodAddresses.parseIpAddr(
                "2: net1@if9    inet 172.20.1.2/24 brd 172.20.1.255 scope global net1", "ip"));
        // multus#1100: pod 2's RoCE v2 GID (172.20.1.2) is index 7, so one job-wide index cannot be right
        assertThat(r.exports()).containsEntry("NCCL_IB_GID_INDEX", "7");
        assertThat(r.unset()).isEmpty();
    }

    // ---- NVIDIA_VISIBLE_DEVICES values the container toolkit documents ----

    @Test
    void voidMeansTheContainerHasNoGpuNotThePlannedOnes() {
        // toolkit: void = runc behaviour, no GPU exposed; was: "cannot tell ..., assuming the planned GPUs [0]"
        var r = run(case25Hint(), AllocatedGpus.resolve("void", null, root), PodAddresses.parseIpAddr(
                "2: net1@if9    inet 172.20.1.1/24 brd 172.20.1.255 scope global net1", "ip"));
        assertThat(r.exports()).doesNotContainKeys("NCCL_IB_HCA", "NCCL_IB_GID_INDEX");
        assertThat(r.notes()).contains("this container has no GPUs (NVIDIA_VISIBLE_DEVICES=void: the NVIDIA "
                + "container runtime exposes no GPU); nothing to pair with HCAs");
    }

    @Test
    void allWithoutProcEntriesTakesEveryGpuOfTheRailMap() throws IOException {
        // seed node rail map: GPU i on rail i / 2 (mlx5_0..3); plan GPUs 0,1; NVIDIA_VISIBLE_DEVICES=all and no
        // /proc entries: the container has all 8, so every HCA of the map is used
        Path sys = root.resolve("sys");
        for (int rail = 0; rail < 4; rail++) {
            SeedNode.writePort(sys, "mlx5_" + rail, 1, "InfiniBand", List.of(
                    new Row(0, "fe80:0000:0000:0000:0000:00ff:fe00:000" + rail, null, null)));
        }
        var r = run(SeedNode.hint(List.of(0, 1), "=mlx5_0:1", "192.168.4.0/22"),
                AllocatedGpus.resolve("all", null, root), SeedNode.podAddresses());
        assertThat(r.exports()).containsEntry("NCCL_IB_HCA", "=mlx5_0:1,mlx5_1:1,mlx5_2:1,mlx5_3:1");
        assertThat(r.notes()).contains("NVIDIA_VISIBLE_DEVICES=all gives this container every GPU of the node "
                + "[0, 1, 2, 3, 4, 5, 6, 7] but the plan said [0, 1]; HCAs taken from the node rail map in the hint");
    }

    // ---- case-27: v1/v2 and link-local/IPv4 entries of one bonded port ----

    @Test
    void case27PicksTheRoceV2Ipv4EntryNotLinkLocalNorV1() throws IOException {
        // nccl#769 ibv_devinfo: [0] fe80 v1, [1] fe80 v2, [2] 198.51.100.6 v1, [3] 198.51.100.6 v2 (host view: all
        // types readable). Index 1 (link-local v2) times out across L3; 3 is the routed IPv4 RoCE v2 entry.
        SeedNode.writePort(root.resolve("sys"), "mlx5_bond_0", 1, "Ethernet", List.of(
                new Row(0, "fe80:0000:0000:0000:0000:00ff:fe00:0001", "IB/RoCE v1", "bond0"),
                new Row(1, "fe80:0000:0000:0000:0000:00ff:fe00:0001", "RoCE v2", "bond0"),
                new Row(2, "0000:0000:0000:0000:0000:ffff:c633:6406", "IB/RoCE v1", "bond0"),
                new Row(3, "0000:0000:0000:0000:0000:ffff:c633:6406", "RoCE v2", "bond0")));
        GpuHint g = new GpuHint(0, null, null, "mlx5_bond_0", 1, "bond0", 0, PcieDistance.PXB, null, "bond0");
        PlacementHint hint = new PlacementHint(1, "node-a", "default/job", 2, 0, List.of(), List.of(g),
                new PlacementHint.NcclSettings("=mlx5_bond_0:1", null, null, "AF_INET", null), List.of(g));
        var r = run(hint, AllocatedGpus.resolve(null, null, root), PodAddresses.parseIpAddr(
                "4: bond0    inet 198.51.100.6/24 brd 198.51.100.255 scope global bond0", "ip"));
        assertThat(r.exports()).containsEntry("NCCL_IB_HCA", "=mlx5_bond_0:1").containsEntry("NCCL_IB_GID_INDEX", "3")
                // no range in the hint: the interface's own subnet
                .containsEntry("NCCL_IB_ADDR_RANGE", "198.51.100.0/24")
                .doesNotContainKey("NCCL_NET_GDR_LEVEL"); // PXB is within NCCL's default GDR level
        // nothing said which GPUs the process has: the plan is assumed, and said so
        assertThat(r.notes()).anyMatch(n -> n.contains("assuming the planned GPUs [0]"));
    }

    // ---- case-26-like: sparse tables on the four seed rails ----

    /**
     * Seed node, four rails. Tables are sparse the way a busy shared port is: entries of deleted pods are all
     * zeros, other pods' entries have unreadable types (EINVAL), some have no types file at all, and the pod's own
     * v1/v2 pair sits at a different index on each HCA: mlx5_0 → 8/9, mlx5_1 → 4/5, mlx5_2 → 6/7, mlx5_3 → 4/5.
     */
    private void sparseSeedTables() throws IOException {
        Path sys = root.resolve("sys");
        int[] own = {8, 4, 6, 4};
        for (int rail = 0; rail < 4; rail++) {
            int third = 4 * (rail + 1); // 192.168.{4,8,12,16}.x
            List<Row> rows = new java.util.ArrayList<>();
            rows.add(new Row(0, "fe80:0000:0000:0000:0000:00ff:fe00:000" + rail, null, null));
            rows.add(new Row(1, "fe80:0000:0000:0000:0000:00ff:fe00:000" + rail, null, null));
            for (int i = 2; i < 12; i++) {
                if (i == own[rail]) {
                    rows.add(new Row(i, v4(192, 168, third, 12), "IB/RoCE v1", "net" + (rail + 1)));
                } else if (i == own[rail] + 1) {
                    rows.add(new Row(i, v4(192, 168, third, 12), "RoCE v2", "net" + (rail + 1)));
                } else if (i % 3 == 0) {
                    rows.add(new Row(i, ZERO, null, null)); // a deleted pod's slot
                } else {
                    rows.add(new Row(i, v4(192, 168, third, 20 + i), null, null)); // another pod, EINVAL
                }
            }
            SeedNode.writePort(sys, "mlx5_" + rail, 1, "Ethernet", rows);
        }
        // a types file missing altogether for one foreign entry of mlx5_1
        java.nio.file.Files.delete(sys.resolve("class/infiniband/mlx5_1/ports/1/gid_attrs/types/7"));
    }

    @Test
    void sparseTablesAllFourRailsIndicesDifferSoGidIndexIsLeftUnset() throws IOException {
        sparseSeedTables();
        PlacementHint hint = SeedNode.hint(List.of(0, 1, 2, 3, 4, 5, 6, 7), "=mlx5_0:1,mlx5_1:1,mlx5_2:1,mlx5_3:1",
                "192.168.0.0/19");
        var r = run(hint, uuids(0, 1, 2, 3, 4, 5, 6, 7), SeedNode.podAddresses());
        assertThat(r.exports()).containsExactly(
                Map.entry("NCCL_IB_HCA", "=mlx5_0:1,mlx5_1:1,mlx5_2:1,mlx5_3:1"),
                Map.entry("NCCL_IB_ADDR_FAMILY", "AF_INET"),
                // 192.168.0.0/19 spans 192.168.0.0-192.168.31.255: holds .4.12, .8.12, .12.12, .16.12
                Map.entry("NCCL_IB_ADDR_RANGE", "192.168.0.0/19"),
                Map.entry("NCCL_SOCKET_IFNAME", "=eth0"));
        assertThat(r.unset()).containsExactly("NCCL_IB_GID_INDEX");
        assertThat(r.notes()).anyMatch(n -> n.contains("mlx5_0:1 -> 9, mlx5_1:1 -> 5, mlx5_2:1 -> 7, mlx5_3:1 -> 5"));
    }

    @Test
    void sparseTablesTwoGpusOnOneRailGetThatRailsIndex() throws IOException {
        sparseSeedTables();
        var r = run(SeedNode.hint(List.of(0, 1), "=mlx5_0:1", "192.168.4.0/22"), uuids(0, 1),
                SeedNode.podAddresses());
        // GPU0 and GPU1 share mlx5_0, whose RoCE v2 entry for 192.168.4.12 (net1) is index 9
        assertThat(r.exports()).containsEntry("NCCL_IB_HCA", "=mlx5_0:1").containsEntry("NCCL_IB_GID_INDEX", "9")
                .containsEntry("NCCL_IB_ADDR_RANGE", "192.168.4.0/22");
        assertThat(r.notes()).noneMatch(n -> n.contains("re-paired"));
    }

    // ---- GPUs other than planned ----

    @Test
    void gpusDifferentFromThePlanAreRePairedFromTheRailMap() throws IOException {
        sparseSeedTables();
        // planned GPU0,1 (mlx5_0); the device plugin gave GPU4,5, whose own HCA is mlx5_2 (lan4, pod net3)
        var r = run(SeedNode.hint(List.of(0, 1), "=mlx5_0:1", "192.168.4.0/22"), uuids(4, 5),
                SeedNode.podAddresses());
        assertThat(r.exports()).containsEntry("NCCL_IB_HCA", "=mlx5_2:1")
                .containsEntry("NCCL_IB_GID_INDEX", "7") // mlx5_2's RoCE v2 entry of 192.168.12.12
                // the plan's 192.168.4.0/22 does not hold 192.168.12.12: net3's own /22
                .containsEntry("NCCL_IB_ADDR_RANGE", "192.168.12.0/22");
        assertThat(r.notes()).anyMatch(n -> n.contains("GPUs [4, 5] but the plan said [0, 1]"))
                .anyMatch(n -> n.contains("does not hold every address"));
    }

    @Test
    void gpusStraddlingTwoRailsGetBothHcasAndACoveringRange() throws IOException {
        sparseSeedTables();
        // GPU1 → mlx5_0 (index 9), GPU2 → mlx5_1 (index 5): indices differ
        var r = run(SeedNode.hint(List.of(0, 1), "=mlx5_0:1", "192.168.4.0/22"), uuids(1, 2),
                SeedNode.podAddresses());
        assertThat(r.exports()).containsEntry("NCCL_IB_HCA", "=mlx5_0:1,mlx5_1:1")
                .doesNotContainKey("NCCL_IB_GID_INDEX")
                // 192.168.4.0/22 and 192.168.8.0/22 first differ in bit 20 (4 = 0000 0100, 8 = 0000 1000)
                .containsEntry("NCCL_IB_ADDR_RANGE", "192.168.0.0/20");
        assertThat(r.unset()).containsExactly("NCCL_IB_GID_INDEX");
    }

    @Test
    void gpuIndicesAndBusIdsMatchTheRailMapToo() throws IOException {
        sparseSeedTables();
        var byIndex = AllocatedGpus.resolve("6,7", null, Path.of("/nonexistent-root"));
        var r = run(SeedNode.hint(List.of(0, 1), "=mlx5_0:1", "192.168.0.0/19"), byIndex, SeedNode.podAddresses());
        assertThat(r.exports()).containsEntry("NCCL_IB_HCA", "=mlx5_3:1").containsEntry("NCCL_IB_GID_INDEX", "5");
    }

    @Test
    void withoutARailMapAnUnplannedGpuCannotBeRePairedAndIsReported() throws IOException {
        sparseSeedTables();
        PlacementHint full = SeedNode.hint(List.of(0, 1), "=mlx5_0:1", "192.168.4.0/22");
        PlacementHint noMap = new PlacementHint(full.version(), full.node(), full.gang(), full.gangSize(),
                full.rank(), full.fabric(), full.gpus(), full.nccl());
        var r = run(noMap, uuids(1, 2), SeedNode.podAddresses());
        // GPU1 is in the plan (mlx5_0); GPU2 is not, and there is no rail map
        assertThat(r.exports()).containsEntry("NCCL_IB_HCA", "=mlx5_0:1");
        assertThat(r.notes()).anyMatch(n -> n.contains(SeedNode.uuid(2)) && n.contains("no node rail map"));
    }

    // ---- nothing matches ----

    @Test
    void anHcaWithoutThePodsRoceV2EntryIsLeftOutWithTheReason() throws IOException {
        sparseSeedTables();
        // the pod's v2 entry on mlx5_0 became unreadable: only the v1 one (index 8) holds 192.168.4.12
        Path types = root.resolve("sys/class/infiniband/mlx5_0/ports/1/gid_attrs/types/9");
        java.nio.file.Files.delete(types);
        java.nio.file.Files.createDirectories(types);
        var r = run(SeedNode.hint(List.of(0, 1, 2, 3), "=mlx5_0:1,mlx5_1:1", "192.168.0.0/20"),
                uuids(0, 1, 2, 3), SeedNode.podAddresses());
        assertThat(r.exports()).containsEntry("NCCL_IB_HCA", "=mlx5_1:1").containsEntry("NCCL_IB_GID_INDEX", "5");
        assertThat(r.notes()).anyMatch(n -> n.startsWith("mlx5_0:1: no RoCE v2 GID holds the pod's address "
                + "192.168.4.12 (net1)") && n.contains("[8] 192.168.4.12 IB/RoCE v1 net1"))
                .anyMatch(n -> n.contains("GPU 0's own HCA mlx5_0:1 is not usable"));
    }

    @Test
    void noUsableHcaExportsNoIbSettingsAtAll() throws IOException {
        sparseSeedTables();
        // the pod has only eth0: no address of it is in any GID table
        var r = run(SeedNode.hint(List.of(0, 1), "=mlx5_0:1", "192.168.4.0/22"), uuids(0, 1),
                PodAddresses.parseIpAddr("3: eth0@if12    inet 10.244.1.5/24 brd 10.244.1.255 scope global eth0",
                        "ip"));
        assertThat(r.exports()).containsExactly(Map.entry("NCCL_SOCKET_IFNAME", "=eth0"));
        assertThat(r.notes()).anyMatch(n -> n.contains("pod interface net1, which has no IPv4 address here"))
                .anyMatch(n -> n.contains("the pod has no interface on this HCA's netdev"))
                .anyMatch(n -> n.contains("exporting no NCCL_IB_* settings"));
    }

    @Test
    void aMissingGidDirectoryIsReportedNotThrown() {
        var r = run(SeedNode.hint(List.of(0, 1), "=mlx5_0:1", "192.168.4.0/22"), uuids(0, 1),
                SeedNode.podAddresses());
        assertThat(r.exports()).doesNotContainKey("NCCL_IB_HCA");
        assertThat(r.notes()).anyMatch(n -> n.startsWith("mlx5_0:1: cannot read its GID table"));
    }

    // ---- other rules ----

    @Test
    void infinibandPortsNeedNoGidAndSuppressTheSharedIndex() throws IOException {
        sparseSeedTables();
        SeedNode.writePort(root.resolve("sys"), "mlx5_1", 1, "InfiniBand", List.of(
                new Row(0, "fe80:0000:0000:0000:0000:00ff:fe00:0009", "IB/RoCE v1", null)));
        var r = run(SeedNode.hint(List.of(1, 2), "=mlx5_0:1,mlx5_1:1", "192.168.4.0/22"), uuids(1, 2),
                SeedNode.podAddresses());
        // mlx5_1 is IB now: kept; index 9 is mlx5_0's alone and must not be applied to the IB port
        assertThat(r.exports()).containsEntry("NCCL_IB_HCA", "=mlx5_0:1,mlx5_1:1").doesNotContainKey("NCCL_IB_GID_INDEX");
        assertThat(r.notes()).anyMatch(n -> n.contains("InfiniBand and RoCE ports are mixed"));
    }

    @Test
    void pairsFartherThanPxbSetTheGdrLevel() throws IOException {
        sparseSeedTables();
        GpuHint node = new GpuHint(0, SeedNode.uuid(0), null, "mlx5_0", 1, "lan2", 0, PcieDistance.NODE,
                null, "net1");
        GpuHint sys = new GpuHint(1, SeedNode.uuid(1), null, "mlx5_1", 1, "lan3", 1, PcieDistance.SYS, null, "net2");
        PlacementHint base = SeedNode.hint(List.of(0), "=mlx5_0:1", "192.168.0.0/19");
        PlacementHint onlyNode = new PlacementHint(1, "n", "g", 1, 0, List.of(), List.of(node), base.nccl(),
                List.of(node, sys));
        // NODE → PHB (NCCL has no NODE class)
        assertThat(run(onlyNode, uuids(0), SeedNode.podAddresses()).exports())
                .containsEntry("NCCL_NET_GDR_LEVEL", "PHB");
        // with the SYS pair in use too → SYS
        assertThat(run(onlyNode, uuids(0, 1), SeedNode.podAddresses()).exports())
                .containsEntry("NCCL_NET_GDR_LEVEL", "SYS");
    }

    @Test
    void valuesWithShellCharactersAreNotExported() throws IOException {
        sparseSeedTables();
        PlacementHint base = SeedNode.hint(List.of(0, 1), "=mlx5_0:1", "192.168.4.0/22");
        PlacementHint evil = new PlacementHint(1, base.node(), base.gang(), 1, 0, List.of(), base.gpus(),
                new PlacementHint.NcclSettings("x", "eth0'; rm -rf / #", null, "AF_INET", null), base.nodeGpus());
        var r = run(evil, uuids(0, 1), SeedNode.podAddresses());
        assertThat(r.exports()).doesNotContainKey("NCCL_SOCKET_IFNAME").containsEntry("NCCL_IB_HCA", "=mlx5_0:1");
        assertThat(r.notes()).anyMatch(n -> n.startsWith("not exporting NCCL_SOCKET_IFNAME"));
    }

    @Test
    void anHcaNameThatIsAPathIsRefusedBeforeAnyFileIsRead() {
        GpuHint bad = new GpuHint(0, SeedNode.uuid(0), null, "../../../etc", 1, null, 0, PcieDistance.PIX, null,
                null);
        PlacementHint hint = new PlacementHint(1, "n", "g", 1, 0, List.of(), List.of(bad),
                new PlacementHint.NcclSettings(null, null, null, null, null), List.of(bad));
        var r = NcclEnvironment.compute(hint, uuids(0), (hca, port) -> {
            throw new AssertionError("must not read " + hca);
        }, SeedNode.podAddresses());
        assertThat(r.exports()).isEmpty();
        assertThat(r.notes()).anyMatch(n -> n.contains("not a valid RDMA device"));
    }
}
