package dev.railyard.agent;

import dev.railyard.topology.InputException;
import org.junit.jupiter.api.Test;

import java.net.URISyntaxException;
import java.nio.file.Path;
import java.util.List;
import java.util.Objects;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class RdmaSharedDevicePluginConfigTest {
    static Path resource(String name) {
        try {
            return Path.of(Objects.requireNonNull(RdmaSharedDevicePluginConfigTest.class.getResource("/agent/" + name))
                    .toURI());
        } catch (URISyntaxException e) {
            throw new IllegalStateException(e);
        }
    }

    @Test
    void case35ConfigIsOnePoolOfEightSlotsOverInfinibandLinks() {
        // case-35 artifact (#44): resourceName "hca", rdmaHcaMax 8, selectors.linkTypes [infiniband], no prefix.
        RdmaSharedDevicePluginConfig config = RdmaSharedDevicePluginConfig.read(resource("case-35-rdma-shared-config.json"));
        assertThat(config.periodicUpdateInterval()).isEqualTo(300);
        assertThat(config.configList()).singleElement().satisfies(pool -> {
            assertThat(pool.extendedResourceName()).isEqualTo("rdma/hca"); // plugin default prefix "rdma"
            assertThat(pool.rdmaHcaMax()).isEqualTo(8);
            assertThat(pool.selectors().linkTypes()).containsExactly("infiniband");
            assertThat(pool.selectors().ifNames()).isEmpty();
        });
    }

    @Test
    void deprecatedDevicesListIsReadAsIfNames() {
        RdmaSharedDevicePluginConfig config = RdmaSharedDevicePluginConfig.parse(
                "{\"configList\":[{\"resourceName\":\"rdma_shared_device_a\",\"rdmaHcaMax\":63,"
                        + "\"devices\":[\"ibs10\",\"ibs11\"]}]}", "config.json");
        assertThat(config.periodicUpdateInterval()).isNull();
        assertThat(config.configList().getFirst().selectors().ifNames()).containsExactly("ibs10", "ibs11");
    }

    @Test
    void badResourceNameIsNamedWithItsEntry() {
        assertThatThrownBy(() -> RdmaSharedDevicePluginConfig.parse(
                "{\"configList\":[{\"resourceName\":\"mlx5-0\",\"rdmaHcaMax\":1,\"selectors\":{}}]}", "config.json"))
                .isInstanceOf(InputException.class)
                .hasMessage("config.json: configList[0]: resourceName 'mlx5-0' must match ^[a-zA-Z0-9_]+$");
    }

    @Test
    void selectorsAndDevicesTogetherAreRefused() {
        assertThatThrownBy(() -> RdmaSharedDevicePluginConfig.parse(
                "{\"configList\":[{\"resourceName\":\"a\",\"rdmaHcaMax\":1,\"selectors\":{},\"devices\":[\"x\"]}]}",
                "config.json"))
                .hasMessage("config.json: configList[0] (a): exactly one of \"selectors\" and \"devices\" must be given");
    }

    @Test
    void missingRdmaHcaMaxAndDuplicateNamesAreRefused() {
        assertThatThrownBy(() -> RdmaSharedDevicePluginConfig.parse(
                "{\"configList\":[{\"resourceName\":\"a\",\"selectors\":{}}]}", "c.json"))
                .hasMessage("c.json: configList[0] (a): rdmaHcaMax must be a number >= 0, got null");
        assertThatThrownBy(() -> RdmaSharedDevicePluginConfig.parse(
                "{\"configList\":[{\"resourceName\":\"a\",\"rdmaHcaMax\":1,\"selectors\":{}},"
                        + "{\"resourceName\":\"a\",\"rdmaHcaMax\":1,\"selectors\":{}}]}", "c.json"))
                .hasMessage("c.json: configList[1]: resourceName 'a' appears twice");
    }

    @Test
    void sriovStyleResourceListGetsAHint() {
        assertThatThrownBy(() -> RdmaSharedDevicePluginConfig.parse("{\"resourceList\":[]}", "c.json"))
                .hasMessage("c.json: \"configList\" is missing or not a list (\"resourceList\" belongs to the SR-IOV "
                        + "device plugin)");
    }

    @Test
    void malformedJsonNamesLineAndColumn() {
        assertThatThrownBy(() -> RdmaSharedDevicePluginConfig.parse("{\n  \"configList\": [\n    {,}\n]}", "c.json"))
                .isInstanceOf(InputException.class)
                .hasMessageStartingWith("c.json: line 3, column 6: not valid JSON");
    }

    @Test
    void listsOfNonStringsAreRefused() {
        assertThatThrownBy(() -> RdmaSharedDevicePluginConfig.parse(
                "{\"configList\":[{\"resourceName\":\"a\",\"rdmaHcaMax\":1,\"selectors\":{\"vendors\":[5555]}}]}",
                "c.json"))
                .hasMessage("c.json: configList[0].selectors: vendors must be a list of strings, got [5555]");
        assertThat(List.of()).isEmpty();
    }
}
