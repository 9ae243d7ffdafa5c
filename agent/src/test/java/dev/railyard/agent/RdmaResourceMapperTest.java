package dev.railyard.agent;

import dev.railyard.topology.discovery.sysfs.SysfsFixtureMachines;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.List;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;

class RdmaResourceMapperTest {
    @TempDir
    Path root;

    private static final Set<String> GPU = Set.of("nvidia.com/gpu");

    @Test
    void perRailIfNamesSelectOneHcaEach() {
        // case-01 tree: mlx5_i carries netdev lan_i (vendor 0x15b3); config maps nvidia.com/mlx5_i to ifName lan_i.
        HostSnapshot host = new SysfsHostDiscovery(SysfsFixtureMachines.case01(root).root()).discover();
        RdmaSharedDevicePluginConfig config = RdmaSharedDevicePluginConfig.read(
                RdmaSharedDevicePluginConfigTest.resource("per-rail-rdma-shared-config.json"));
        List<RdmaResourceBinding> bindings = RdmaResourceMapper.map(config, host.hcaFacts(), List.of(), GPU);
        assertThat(bindings).hasSize(8);
        for (int i = 0; i < 8; i++) {
            assertThat(bindings.get(i)).isEqualTo(new RdmaResourceBinding("nvidia.com/mlx5_" + i,
                    List.of("mlx5_" + i), RdmaResourceBinding.BY_SELECTORS, 63));
        }
    }

    @Test
    void case35PoolCoversEveryInfinibandHcaHoweverManySlotsItAdvertises() {
        // case-35: "rdma/hca" advertises 8 slots (rdmaHcaMax) whatever the HCA count. On the case-03 machine
        // (two InfiniBand HCAs) the pool is backed by exactly mlx5_0 and mlx5_1, not by 8 NICs.
        HostSnapshot ib = new SysfsHostDiscovery(SysfsFixtureMachines.case03(root.resolve("ib")).root()).discover();
        RdmaSharedDevicePluginConfig config = RdmaSharedDevicePluginConfig.read(
                RdmaSharedDevicePluginConfigTest.resource("case-35-rdma-shared-config.json"));
        assertThat(RdmaResourceMapper.map(config, ib.hcaFacts(), List.of(), GPU)).containsExactly(
                new RdmaResourceBinding("rdma/hca", List.of("mlx5_0", "mlx5_1"), RdmaResourceBinding.BY_SELECTORS, 8));

        // On the case-01 machine every port is Ethernet (RoCE): linkTypes [infiniband] selects nothing, so the
        // plugin would report zero devices.
        HostSnapshot roce = new SysfsHostDiscovery(SysfsFixtureMachines.case01(root.resolve("roce")).root()).discover();
        assertThat(RdmaResourceMapper.map(config, roce.hcaFacts(), List.of(), GPU)).containsExactly(
                new RdmaResourceBinding("rdma/hca", List.of(), RdmaResourceBinding.BY_SELECTORS, 8));
    }

    @Test
    void hexSelectorsIgnoreCaseAndPrefixAndAllListsMustMatch() {
        HcaPciFacts h = new HcaPciFacts("mlx5_0", "0000:1a:00.0", "15b3", "1021", "mlx5_core", List.of("lan2"),
                List.of("ether"));
        assertThat(RdmaResourceMapper.selects(new RdmaSharedDevicePluginConfig.Selectors(List.of("0x15B3"),
                List.of("1021"), List.of("mlx5_core"), List.of("lan2"), List.of("ether")), h)).isTrue();
        // AND across lists: a matching vendor does not rescue a wrong ifName
        assertThat(RdmaResourceMapper.selects(new RdmaSharedDevicePluginConfig.Selectors(List.of("15b3"),
                null, null, List.of("lan3"), null), h)).isFalse();
        // OR within a list
        assertThat(RdmaResourceMapper.selects(new RdmaSharedDevicePluginConfig.Selectors(null, null, null,
                List.of("lan3", "lan2"), null), h)).isTrue();
        // software devices have no PCI function and are never selected
        HcaPciFacts siw = new HcaPciFacts("siw0", null, null, null, null, List.of("eth0"), List.of("ether"));
        assertThat(RdmaResourceMapper.selects(new RdmaSharedDevicePluginConfig.Selectors(null, null, null, null,
                null), siw)).isFalse();
    }

    @Test
    void withoutConfigOnlyResourcesNamedLikeAnHcaAreMappedAndSaySo() {
        HostSnapshot host = new SysfsHostDiscovery(SysfsFixtureMachines.case07(root).root()).discover();
        List<RdmaResourceBinding> bindings = RdmaResourceMapper.map(null, host.hcaFacts(),
                List.of("nvidia.com/mlx5_2", "nvidia.com/gpu", "rdma/rdma_shared_device_a", "nvidia.com/mlx5_9"), GPU);
        assertThat(bindings).containsExactly(new RdmaResourceBinding("nvidia.com/mlx5_2", List.of("mlx5_2"),
                RdmaResourceBinding.BY_RESOURCE_NAME, null));
    }
}
