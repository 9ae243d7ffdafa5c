package dev.railyard.scheduler.hints;

import dev.railyard.topology.InputException;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.entry;

/**
 * Inputs are what kubelet's {@code FormatMap} writes: {@code fmt.Sprintf("%v=%q\n", key, value)} over sorted keys,
 * the last newline trimmed. The quoted forms below are Go's {@code strconv.Quote} output for the values named in
 * each comment.
 */
class DownwardApiAnnotationsTest {

    @Test
    void jsonValueWithQuotesAndAFlatKey() {
        // strconv.Quote(`{"version":1,"node":"gpu-a1"}`) escapes each " as \"
        String file = "railyard.dev/nccl-ib-hca=\"=mlx5_0:1,mlx5_1:1\"\n"
                + "railyard.dev/placement=\"{\\\"version\\\":1,\\\"node\\\":\\\"gpu-a1\\\"}\"";
        assertThat(DownwardApiAnnotations.parse(file, "annotations")).containsExactly(
                entry("railyard.dev/nccl-ib-hca", "=mlx5_0:1,mlx5_1:1"),
                entry("railyard.dev/placement", "{\"version\":1,\"node\":\"gpu-a1\"}"));
    }

    @Test
    void goEscapes() {
        // strconv.Quote("a\nb\tc\\d") = "a\nb\tc\\d"; Quote("\x01") = "\x01"; Quote("é") = "é" (printable, kept);
        // Quote("\u200b") = "\u200b" (format character, not printable); Quote("\U0001F600") keeps the emoji
        // (printable) but an escaped form must decode too
        String file = "a=\"a\\nb\\tc\\\\d\"\nb=\"\\x01\"\nc=\"é\"\nd=\"\\u200b\"\ne=\"\\U0001F600\"\nf=\"\\101\\x42\"";
        assertThat(DownwardApiAnnotations.parse(file, "f")).containsExactly(entry("a", "a\nb\tc\\d"),
                entry("b", "\u0001"), entry("c", "é"), entry("d", "\u200b"), entry("e", "\uD83D\uDE00"),
                entry("f", "AB"));
    }

    @Test
    void escapedUtf8BytesFormOneCharacter() {
        // \xc3\xa9 are the two UTF-8 bytes of é; strconv.Quote writes them literally, Unquote accepts both
        assertThat(DownwardApiAnnotations.parse("k=\"\\xc3\\xa9\"", "f")).containsExactly(entry("k", "é"));
    }

    @Test
    void badLinesNameFileLineAndColumn() {
        assertThatThrownBy(() -> DownwardApiAnnotations.parse("a=\"ok\"\nb=notquoted", "/etc/railyard/annotations"))
                .isInstanceOf(InputException.class)
                .hasMessage("/etc/railyard/annotations:2:3: expected '\"' after '='");
        assertThatThrownBy(() -> DownwardApiAnnotations.parse("a=\"open", "f"))
                .hasMessage("f:1:8: unterminated quoted value");
        assertThatThrownBy(() -> DownwardApiAnnotations.parse("a=\"x\\qy\"", "f"))
                .hasMessage("f:1:5: unknown escape \\q");
        assertThatThrownBy(() -> DownwardApiAnnotations.parse("just text", "f"))
                .hasMessage("f:1:1: expected key=\"value\" (a downward-API annotations file), got 'just text'");
    }
}
