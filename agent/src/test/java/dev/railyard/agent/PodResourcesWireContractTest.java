package dev.railyard.agent;

import dev.railyard.agent.podresources.PodResourcesListerRpc;
import dev.railyard.agent.podresources.v1.ClaimResource;
import dev.railyard.agent.podresources.v1.ContainerDevices;
import dev.railyard.agent.podresources.v1.DynamicResource;
import dev.railyard.agent.podresources.v1.GetPodResourcesRequest;
import dev.railyard.agent.podresources.v1.NUMANode;
import dev.railyard.agent.podresources.v1.PodResources;
import dev.railyard.agent.podresources.v1.TopologyInfo;
import org.junit.jupiter.api.Test;

import java.util.HexFormat;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The generated messages must put every field on the wire under upstream's field number
 * (kubernetes/kubelet pkg/apis/podresources/v1/api.proto); expected bytes are worked out by hand from the
 * protobuf encoding rules: key = (field number << 3) | wire type, wire type 2 for strings/messages/packed,
 * 0 for varints.
 */
class PodResourcesWireContractTest {
    private static String hex(com.google.protobuf.MessageLite m) {
        return HexFormat.of().formatHex(m.toByteArray());
    }

    @Test
    void containerDevicesUsesFieldsOneTwoThree() {
        ContainerDevices d = ContainerDevices.newBuilder().setResourceName("a").addDeviceIds("b")
                .setTopology(TopologyInfo.newBuilder().addNodes(NUMANode.newBuilder().setID(1))).build();
        // resource_name=1: 0a 01 'a'(61); device_ids=2: 12 01 'b'(62); topology=3: 1a 04 { nodes=1: 0a 02 { ID=1: 08 01 } }
        assertThat(hex(d)).isEqualTo("0a0161" + "120162" + "1a04" + "0a02" + "0801");
    }

    @Test
    void podResourcesPodLevelCpuIdsAndMemoryAreFieldsFourAndFive() {
        PodResources p = PodResources.newBuilder().setName("n").setNamespace("s").addCpuIds(3).build();
        // name=1: 0a 01 6e; namespace=2: 12 01 73; cpu_ids=4 packed: 22 01 03
        assertThat(hex(p)).isEqualTo("0a016e" + "120173" + "220103");
    }

    @Test
    void dynamicResourceStartsAtFieldTwoAndClaimResourceShareIdIsFive() {
        DynamicResource r = DynamicResource.newBuilder().setClaimName("c")
                .addClaimResources(ClaimResource.newBuilder().setShareId("x")).build();
        // claim_name=2: 12 01 63; claim_resources=4: 22 03 { share_id=5: 2a 01 78 }
        assertThat(hex(r)).isEqualTo("120163" + "2203" + "2a0178");
    }

    @Test
    void getRequestCarriesPodNameThenNamespace() {
        GetPodResourcesRequest g = GetPodResourcesRequest.newBuilder().setPodName("p").setPodNamespace("q").build();
        assertThat(hex(g)).isEqualTo("0a0170" + "120171");
    }

    @Test
    void methodNamesAreUpstreams() {
        assertThat(PodResourcesListerRpc.LIST.getFullMethodName()).isEqualTo("v1.PodResourcesLister/List");
        assertThat(PodResourcesListerRpc.GET_ALLOCATABLE_RESOURCES.getFullMethodName())
                .isEqualTo("v1.PodResourcesLister/GetAllocatableResources");
        assertThat(PodResourcesListerRpc.GET.getFullMethodName()).isEqualTo("v1.PodResourcesLister/Get");
    }
}
