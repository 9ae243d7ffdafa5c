package dev.railyard.agent;

import dev.railyard.api.topology.GpuHcaPair;
import dev.railyard.api.topology.Locality;
import dev.railyard.api.topology.NodeTopology;
import dev.railyard.api.topology.NodeTopologyConditions;
import dev.railyard.api.topology.PcieDistance;
import dev.railyard.topology.discovery.sysfs.SysfsFixtureMachines;
import io.fabric8.kubernetes.api.model.Condition;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.EnableKubernetesMockClient;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The node agent on a Grace node (a GB200 tray as sysfs shows it, {@code SysfsMachineShapes.gb200Tray}): it
 * publishes the rail map paired by NUMA node, and a {@code LocalityKnown} condition that says so; on a tree whose
 * firmware gives no NUMA node it publishes no rail map and says the source cannot tell.
 */
@EnableKubernetesMockClient(crud = true)
class GraceAgentTest {
    KubernetesMockServer server;
    KubernetesClient client;

    @TempDir
    Path dir;

    @Test
    void publishesTheGraceTrayPairedByNumaNode() throws Exception {
        SysfsFixtureMachines.Machine tray = SysfsFixtureMachines.gb200Tray(dir.resolve("host"));
        try (AgentRig rig = new AgentRig(tray, dir.resolve("smi"), null, new NodeTopologyPublisher(client))) {
            assertThat(rig.agent.refreshOnce().published()).isTrue();
            NodeTopology stored = stored();

            // GraceSysfsTest works the pairs out: GPU i -> mlx5_i, each on its own socket's root ports (P2C)
            assertThat(stored.getSpec().pairs()).containsExactly(
                    new GpuHcaPair(0, "mlx5_0", PcieDistance.P2C, 0), new GpuHcaPair(1, "mlx5_1", PcieDistance.P2C, 1),
                    new GpuHcaPair(2, "mlx5_2", PcieDistance.P2C, 2), new GpuHcaPair(3, "mlx5_3", PcieDistance.P2C, 3));
            assertThat(stored.getSpec().locality().basis()).isEqualTo(Locality.Basis.NUMA);
            Condition locality = condition(stored);
            assertThat(locality.getStatus()).isEqualTo("True");
            assertThat(locality.getReason()).isEqualTo(NodeTopologyConditions.REASON_PAIRED_BY_NUMA);
            assertThat(locality.getMessage()).contains("NVLink-C2C");
        }
    }

    @Test
    void publishesNoRailMapWhenSysfsCannotTell() throws Exception {
        SysfsFixtureMachines.Machine tray = SysfsFixtureMachines.gb200Tray(dir.resolve("host"));
        try (var files = Files.walk(tray.root().resolve("sys/devices"))) {
            for (Path p : files.filter(f -> f.getFileName().toString().equals("numa_node")).toList()) {
                Files.writeString(p, "-1");
            }
        }
        try (AgentRig rig = new AgentRig(tray, dir.resolve("smi"), null, new NodeTopologyPublisher(client))) {
            rig.agent.refreshOnce();
            NodeTopology stored = stored();

            assertThat(stored.getSpec().pairs()).isEmpty();
            Condition locality = condition(stored);
            assertThat(locality.getStatus()).isEqualTo("False");
            assertThat(locality.getReason()).isEqualTo(NodeTopologyConditions.REASON_SOURCE_CANNOT_TELL);
            assertThat(locality.getMessage()).startsWith("every GPU-HCA distance is SYS");
            // Ready stays True: the node was read; it is the source that cannot tell GPU-HCA locality
            assertThat(stored.getStatus().conditions()).filteredOn(c -> c.getType().equals("Ready"))
                    .singleElement().extracting(Condition::getStatus).isEqualTo("True");
        }
    }

    private NodeTopology stored() {
        return client.resources(NodeTopology.class).withName("node-a").get();
    }

    private static Condition condition(NodeTopology stored) {
        return stored.getStatus().conditions().stream()
                .filter(c -> NodeTopologyConditions.LOCALITY_KNOWN.equals(c.getType())).findFirst().orElseThrow();
    }
}
