package dev.railyard.scheduler.protocol;

import com.fasterxml.jackson.core.JsonParser;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

class WireJsonTest {
    private static void trailing(String body, String message) throws Exception {
        JsonParser p = WireJson.openObject(body.getBytes(StandardCharsets.UTF_8), "volcano predicate");
        p.skipChildren();
        assertThatThrownBy(() -> WireJson.expectEnd(p, "volcano predicate")).isInstanceOf(WireFormatException.class)
                .hasMessage(message);
    }

    @Test
    void somethingAfterTheRequestObjectIsSaidInWords() throws Exception {
        // was: "volcano predicate: unexpected an object after the request object at line 1, column 9"
        trailing("{\"task\":null} {\"b\":2}", "volcano predicate: an object follows the request object at line 1, "
                + "column 15; expected the end of the body");
        trailing("{}\n[1]", "volcano predicate: an array follows the request object at line 2, column 1; expected "
                + "the end of the body");
        trailing("{} null", "volcano predicate: null follows the request object at line 1, column 4; expected the "
                + "end of the body");
    }

    @Test
    void aBodyInUtf16OrUtf32IsRefusedAsNotUtf8() {
        // Jackson auto-detects these encodings (offsets then -1); Go's encoding/json and RFC 8259 §8.1 read UTF-8 only
        for (var cs : new java.nio.charset.Charset[]{StandardCharsets.UTF_16LE, StandardCharsets.UTF_16BE,
                StandardCharsets.UTF_16, java.nio.charset.Charset.forName("UTF-32LE")}) {
            byte[] body = "{\"Pod\":{}}".getBytes(cs);
            assertThatThrownBy(() -> WireJson.openObject(body, "kube filter"))
                    .isInstanceOf(WireFormatException.class)
                    .hasMessage("kube filter: request body is not UTF-8 (a NUL byte or FE/FF byte at its start: UTF-16"
                            + " or UTF-32?); JSON between systems is UTF-8 (RFC 8259 §8.1)");
        }
    }
}
