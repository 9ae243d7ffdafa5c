package dev.railyard.scheduler.server;

import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.util.Random;

import static org.assertj.core.api.Assertions.assertThat;

/** The word-at-a-time quote count behind {@link Listener#inlineSized} equals a byte-by-byte count. */
class InlineQuoteCountTest {
    private static int byByte(byte[] b) {
        int n = 0;
        for (byte x : b) {
            if (x == '"') {
                n++;
            }
        }
        return n;
    }

    @Property(tries = 300)
    void countsEveryQuoteOfAnyBody(@ForAll @IntRange(min = 0, max = 20_000) int length, @ForAll long seed) {
        Random r = new Random(seed);
        byte[] b = new byte[length];
        // bytes next to 0x22 (0x21, 0x23, 0xA2) and 0x00/0xFF are where a carry or borrow would miscount
        byte[] alphabet = {'"', '"', 0x21, 0x23, (byte) 0xA2, 0x00, (byte) 0xFF, 'a', '\\', 0x7F};
        for (int i = 0; i < length; i++) {
            b[i] = alphabet[r.nextInt(alphabet.length)];
        }
        assertThat(Listener.quotes(b, Integer.MAX_VALUE)).isEqualTo(byByte(b));
    }

    @Test
    void theInlineBoundIsExactAtTheLimit() {
        int limit = Listener.MAX_INLINE_QUOTES;
        // quotes spread in a longer body, so the count (not the length shortcut) decides
        byte[] atLimit = ("\"a".repeat(limit) + "b".repeat(13)).getBytes(StandardCharsets.US_ASCII);
        byte[] over = ("\"a".repeat(limit) + "b\"").getBytes(StandardCharsets.US_ASCII);
        assertThat(Listener.inlineSized(atLimit)).isTrue();
        assertThat(Listener.inlineSized(over)).isFalse();
        assertThat(Listener.inlineSized(new byte[limit])).isTrue();
    }
}
