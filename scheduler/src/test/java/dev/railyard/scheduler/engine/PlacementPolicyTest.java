package dev.railyard.scheduler.engine;

import dev.railyard.api.hints.FabricScope;
import dev.railyard.topology.InputException;
import dev.railyard.topology.fabric.FabricModel;
import org.junit.jupiter.api.Test;

import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The hint values the README's job-author table allows, and the words for the others. */
class PlacementPolicyTest {
    private static PlacementPolicy resolve(Map<String, String> podAnnotations) {
        return PlacementPolicy.resolve(null, null, podAnnotations, FabricModel.empty());
    }

    @Test
    void fabricScopePolicyIsRequiredOrPreferredAsTheReadmeSays() {
        assertThat(resolve(Map.of("railyard.dev/fabric-scope", "leaf", "railyard.dev/fabric-scope-policy",
                "preferred")).scope()).isEqualTo(new FabricScope(1, false));
        assertThat(resolve(Map.of("railyard.dev/fabric-scope", "leaf")).scope()).isEqualTo(new FabricScope(1, true));
        // was: accepted, and read as preferred (a silent wrong answer); the error text listed ignore as valid
        assertThatThrownBy(() -> resolve(Map.of("railyard.dev/fabric-scope", "leaf",
                "railyard.dev/fabric-scope-policy", "ignore"))).isInstanceOf(InputException.class)
                .hasMessage("annotation railyard.dev/fabric-scope-policy: 'ignore' is not required or preferred (for "
                        + "no fabric limit, set railyard.dev/fabric-scope: any)");
        assertThatThrownBy(() -> resolve(Map.of("railyard.dev/fabric-scope-policy", "soft")))
                .isInstanceOf(InputException.class)
                .hasMessage("annotation railyard.dev/fabric-scope-policy: 'soft' is not required or preferred");
    }

    @Test
    void aTierNumberTooLargeIsSaidSo() {
        // was: "'99999999999' is not node, leaf, spine, core, any or a tier number"
        assertThatThrownBy(() -> resolve(Map.of("railyard.dev/fabric-scope", "99999999999")))
                .isInstanceOf(InputException.class)
                .hasMessage("annotation railyard.dev/fabric-scope: '99999999999': tier number too large (max "
                        + "2147483646; 'any' for no limit)");
        assertThat(resolve(Map.of("railyard.dev/fabric-scope", "2147483646")).scope().maxTier())
                .isEqualTo(2147483646);
        assertThat(resolve(Map.of("railyard.dev/fabric-scope", "2")).scope()).isEqualTo(new FabricScope(2, true));
        assertThatThrownBy(() -> resolve(Map.of("railyard.dev/fabric-scope", "-1")))
                .isInstanceOf(InputException.class)
                .hasMessage("annotation railyard.dev/fabric-scope: '-1' is not node, leaf, spine, core, any or a "
                        + "tier number");
    }
}
