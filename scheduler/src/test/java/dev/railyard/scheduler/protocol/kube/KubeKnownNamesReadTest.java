package dev.railyard.scheduler.protocol.kube;

import dev.railyard.scheduler.protocol.KnownNames;
import dev.railyard.scheduler.protocol.WireFormatException;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

/**
 * {@link KubeRequestReader} with the cluster's node names ({@link KnownNames}): the same names in the same order as
 * without them, the cluster's own strings where it knows the name, and the same refusals.
 */
class KubeKnownNamesReadTest {
    private static final String POD = "{\"metadata\":{\"name\":\"p\",\"namespace\":\"ml\",\"uid\":\"u\"},"
            + "\"spec\":{\"containers\":[{\"name\":\"c\"}]}}";

    private static byte[] body(String names) {
        return ("{\"Pod\":" + POD + ",\"Nodes\":null,\"NodeNames\":" + names + "}")
                .getBytes(StandardCharsets.UTF_8);
    }

    @Test
    void knownNamesAreTheClustersStringsAndUnknownOnesAreReadAsBefore() throws Exception {
        List<String> cluster = List.of(new String("gpu-a-017"), new String("gpu-a-018"));
        byte[] body = body("[\"gpu-a-018\",\"gpu-x-001\",\"gpu-a-017\"]");

        var plain = KubeRequestReader.readArgs(body, "kube filter");
        var known = KubeRequestReader.readArgs(body, "kube filter", KnownNames.of(cluster));

        assertThat(known.nodeNames()).isEqualTo(plain.nodeNames())
                .containsExactly("gpu-a-018", "gpu-x-001", "gpu-a-017");
        assertThat(known.nodeNames().get(0)).isSameAs(cluster.get(1));
        assertThat(known.nodeNames().get(2)).isSameAs(cluster.get(0));
        assertThat(known.cacheMode()).isTrue();
    }

    @Test
    void anEscapedKnownNameIsFoundByItsCharactersAsJsonReadsThem() throws Exception {
        // "gpu-a-017" with its 'a' written as \u0061: the same string once read
        List<String> cluster = List.of("gpu-a-017");
        var known = KubeRequestReader.readArgs(body("[\"gpu-\\u0061-017\"]"), "kube filter",
                KnownNames.of(cluster));
        assertThat(known.nodeNames().getFirst()).isSameAs(cluster.getFirst());
    }

    @Test
    void anInvalidNameIsRefusedWithTheSameReasonWhateverTheClusterHolds() {
        byte[] body = body("[\"gpu-a-017\",\"GPU_B\"]");
        // the table holds only valid subdomains, so an invalid name reaches the check even if a node bore it
        KnownNames cluster = KnownNames.of(List.of("gpu-a-017", "GPU_B"));
        WireFormatException plain = catchThrowableOfType(WireFormatException.class,
                () -> KubeRequestReader.readArgs(body, "kube filter"));
        WireFormatException known = catchThrowableOfType(WireFormatException.class,
                () -> KubeRequestReader.readArgs(body, "kube filter", cluster));
        assertThat(plain).isNotNull();
        assertThat(known).isNotNull();
        assertThat(known.getMessage()).isEqualTo(plain.getMessage()).contains("NodeNames[1]");
    }
}
