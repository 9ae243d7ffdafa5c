package dev.railyard.scheduler.engine;

import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import org.junit.jupiter.api.Test;

import java.util.Locale;

import static org.assertj.core.api.Assertions.assertThat;

/** The proximity reason's mean, written from integers, is the formatter's {@code %.1f}. */
class ProximityScoreTest {
    @Test
    void halvesRoundUpAsTheFormatterRoundsThem() {
        // java.util.Formatter rounds %.1f half up on the decimal value: 0.25 → "0.3", 0.15 → "0.2", 2.05 → "2.1"
        assertThat(String.format(Locale.ROOT, "%.1f", 0.25)).isEqualTo("0.3");
        assertThat(ProximityScore.oneDecimal(1, 4)).isEqualTo("0.3");
        assertThat(ProximityScore.oneDecimal(3, 20)).isEqualTo("0.2");
        assertThat(ProximityScore.oneDecimal(41, 20)).isEqualTo("2.1");
        assertThat(ProximityScore.oneDecimal(0, 63)).isEqualTo("0.0");
        assertThat(ProximityScore.oneDecimal(5 * 63, 63)).isEqualTo("5.0");
        assertThat(ProximityScore.oneDecimal(2, 3)).isEqualTo("0.7");    // 0.666…
    }

    @Property(tries = 10_000)
    void sameAsTheFormatter(@ForAll @IntRange(min = 1, max = 1_000_000) int count,
                            @ForAll @IntRange(min = 0, max = 9) int hopsPerMember,
                            @ForAll @IntRange(min = 0, max = 1_000_000) int part) {
        // a sum of per-member hops: between 0 and 9·count (hops are 0, 1, 3, 5 … up to a few tiers)
        long sum = (long) hopsPerMember * count + part % (count + 1);
        assertThat(ProximityScore.oneDecimal(sum, count))
                .isEqualTo(String.format(Locale.ROOT, "%.1f", (double) sum / count));
    }
}
