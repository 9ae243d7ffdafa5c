package dev.railyard.scheduler.protocol.volcano;

import dev.railyard.scheduler.protocol.WireFormatException;
import dev.railyard.scheduler.protocol.WireJson;
import dev.railyard.scheduler.protocol.WireResources;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The raw NodeInfo scan must agree with the full Jackson parse, and step aside whenever it is unsure. */
class NodeNameScanTest {

    static byte[] utf8(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    @ParameterizedTest
    @CsvSource({"volcano/predicate-v1.15.json, node", "volcano/predicate-v1.6.json, node",
            "volcano/predicate-v1.16-alpha.json, node", "volcano/prioritize-v1.15.json, nodes"})
    void fastPathAgreesWithTheFullParse(String resource, String key) throws Exception {
        byte[] body = WireResources.load(resource);
        var fast = VolcanoRequestReader.readTaskRequest(body, "t", key, true);
        var full = VolcanoRequestReader.readTaskRequest(body, "t", key, false);
        assertThat(fast).isEqualTo(full);
        // the scan itself took the names (the resources are in Go's order: task first, node list last)
        String text = new String(body, StandardCharsets.UTF_8);
        int at = text.indexOf("\"" + key + "\":") + key.length() + 3;
        assertThat(NodeNameScan.scanLastValue(body, at, key.equals("nodes"))).isEqualTo(full.nodes());
    }

    @ParameterizedTest
    @ValueSource(strings = {
            "[{\"Name\":\"gpu\\u002da\"}]}",                 // escaped name: Jackson decodes it
            "[{\"Node\":{\"metadata\":{\"name\":\"n\"}}}]}",   // no Name: Jackson falls back to Node.metadata.name
            "[{\"Name\":\"a\",\"X\":{\"y\":[1,2}]}]}",          // mismatched bracket inside a skipped value
            "[{\"Name\":\"a\",\"X\":\"unterminated}]}",
            "[{\"Name\":\"a\"}],\"more\":1}",                  // keys after the node list
            "[{\"Name\":\"a\"}]}x",                            // trailing garbage
            "[{\"Name\":\"a\"},]}",
            "[{\"Name\":7}]}",
    })
    void unusualShapesReturnNullForTheFullParse(String nodesValueAndRest) {
        assertThat(NodeNameScan.scanLastValue(utf8(nodesValueAndRest), 0, true)).isNull();
    }

    @Test
    void plainShapesAreScanned() {
        assertThat(NodeNameScan.scanLastValue(utf8("[ {\"Name\" : \"a\", \"Tasks\":{\"u\":{\"Pod\":{\"s\":\"x\\\"y]}\"}}},"
                + "\"n\":null,\"b\":true,\"f\":-1.5e3} , {\"Name\":\"b\"} ] } \n"), 0, true)).containsExactly("a", "b");
        assertThat(NodeNameScan.scanLastValue(utf8("{\"Name\":\"gpu-a-017\",\"Idle\":{\"MilliCPU\":1}}}"), 0, false))
                .containsExactly("gpu-a-017");
        assertThat(NodeNameScan.scanLastValue(utf8("[]}"), 0, true)).isEmpty();
    }

    @Test
    void longStringsWithManyEscapesAreSkippedWordWise() {
        // 100,000 escaped quotes, falling at every offset modulo 8 (5-byte period), then the closing quote; escaping
        // that closing quote must leave the string unterminated and send the body to the full parse
        String escaped = "ab\\\"c".repeat(100_000);
        String body = "[{\"Name\":\"a\",\"Annotations\":{\"k\":\"" + escaped + "\"},\"Z\":\"" + "x".repeat(13) + "\"}]}";
        assertThat(NodeNameScan.scanLastValue(utf8(body), 0, true)).containsExactly("a");
        assertThat(NodeNameScan.scanLastValue(utf8(body.replace("\"},\"Z\"", "\\\"},\"Z\"")), 0, true)).isNull();
    }

    @Test
    void tooDeepInsideASkippedValueFallsBackAndIsRefused() {
        int depth = WireJson.MAX_NESTING_DEPTH;
        String deep = "[".repeat(depth) + "]".repeat(depth);
        String body = "{\"task\":{\"Pod\":{\"metadata\":{\"name\":\"p\",\"namespace\":\"n\"}}},\"nodes\":[{\"Name\":\"a\",\"X\":" + deep + "}]}";
        assertThat(NodeNameScan.scanLastValue(utf8(body), body.indexOf("[{"), true)).isNull();
        assertThatThrownBy(() -> VolcanoRequestReader.readTaskRequest(utf8(body), "volcano prioritize", "nodes"))
                .isInstanceOf(WireFormatException.class)
                .extracting(e -> ((WireFormatException) e).kind()).isEqualTo(WireFormatException.Kind.TOO_DEEP);
    }

    @Test
    void escapedNameAndNodeFirstOrderStillWork() throws Exception {
        String pod = "{\"Pod\":{\"metadata\":{\"name\":\"p\",\"namespace\":\"n\"}}}";
        assertThat(VolcanoRequestReader.readTaskRequest(utf8("{\"task\":" + pod + ",\"node\":{\"Name\":\"gpu\\u002da\"}}"),
                "t", "node").nodes()).containsExactly("gpu-a");
        assertThat(VolcanoRequestReader.readTaskRequest(utf8("{\"node\":{\"Name\":\"b\"},\"task\":" + pod + "}"),
                "t", "node").nodes()).containsExactly("b");
    }
}
