package dev.railyard.scheduler.input;

import io.fabric8.kubernetes.api.model.Quantity;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

import java.math.BigDecimal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Bounded quantity parsing (docs/hostile-input.md): Kubernetes' grammar (k8s.io/apimachinery v0.35.4
 * pkg/api/resource/quantity.go) with amounts from 1n to 2^63-1 base units, decided on the text before any
 * arithmetic.
 */
class QuantitiesTest {

    @ParameterizedTest
    @CsvSource({
            // text, base-unit amount worked out by hand from the suffix tables in quantity.go / suffix.go
            "8, 8", "0, 0", "-0, 0", "+5, 5", "500m, 0.5", "1500m, 1.5", "1.5, 1.5", "1., 1", ".5, 0.5",
            "1Ki, 1024", "1.5Gi, 1610612736", "960Gi, 1030792151040", "64Mi, 67108864", "1k, 1000", "2M, 2000000",
            "1E, 1000000000000000000", "1e3, 1000", "1E3, 1000", "1e+3, 1000", "1e-3, 0.001", "5e-0, 5",
            "1n, 0.000000001", "1u, 0.000001", "100n, 0.0000001", "0.0000000011, 0.000000002",
            "9223372036854775807, 9223372036854775807", "7Ei, 8070450532247928832", "0e999999999999, 0",
            "000000000000000000000000000001, 1", "2147483649, 2147483649", "4294967304, 4294967304",
    })
    void kubernetesQuantities(String text, String amount) throws Exception {
        assertThat(Quantities.parse(text)).isEqualByComparingTo(new BigDecimal(amount));
    }

    @ParameterizedTest
    @ValueSource(strings = {"1e999999999", "1e9999999", "999999999999999999999999999999", "9223372036854775808",
            "8Ei", "10E", "1e19", "0.00000000000000000001e40", "1e2147483648", "1e4294967296"})
    void amountsAboveTwoToTheSixtyThreeAreRefusedAsTooLarge(String text) {
        assertThatThrownBy(() -> Quantities.parse(text)).isInstanceOf(Quantities.QuantityException.class)
                .hasMessageContaining("is above 2^63-1 (9223372036854775807), the largest Kubernetes quantity");
    }

    @ParameterizedTest
    @ValueSource(strings = {"1e-999999999", "1e-10", "0.0000000001", "0.1n", "1e-9999999999999"})
    void nonZeroAmountsBelowOneNanoAreRefusedAsTooSmall(String text) {
        // Kubernetes would store these as 1n (rounded up), so a scheduler never sends this text for a real pod
        assertThatThrownBy(() -> Quantities.parse(text)).isInstanceOf(Quantities.QuantityException.class)
                .hasMessageContaining("is below 1n (1e-9)");
    }

    @ParameterizedTest
    @ValueSource(strings = {"", "lots", "1K", "1ki", "1 Gi", "1e", "1e+", "e3", ".", "-", "1..5", "1e3.5", "0x10",
            "１", "1Gi ", "NaN", "Infinity", "1mi", "1E3E3"})
    void textThatIsNotAQuantityIsRefused(String text) {
        assertThatThrownBy(() -> Quantities.parse(text)).isInstanceOf(Quantities.QuantityException.class)
                .hasMessageMatching("(empty quantity|\".*\" is not a Kubernetes quantity)");
    }

    @Test
    void negativeAndOverlongTextAreRefusedWithTheirOwnReason() {
        assertThatThrownBy(() -> Quantities.parse("-1")).hasMessage("quantity \"-1\" is negative");
        String longText = "1" + "0".repeat(70);
        assertThatThrownBy(() -> Quantities.parse(longText))
                .hasMessageStartingWith("quantity of 71 characters is longer than 64");
        assertThatThrownBy(() -> Quantities.parse("1\n2")).hasMessage("\"1\\n2\" is not a Kubernetes quantity");
    }

    @Test
    void deviceCountsAreCappedAtTheIntRangeWithoutTruncation() throws Exception {
        assertThat(Quantities.devices(new BigDecimal("2147483647"))).isEqualTo(2147483647L);
        assertThat(Quantities.devices(new BigDecimal("0.5"))).isEqualTo(1L);
        // 2^32 + 8 was judged as 8 GPUs by an (int) cast; 2^31 + 1 as a negative count
        for (String n : new String[]{"4294967304", "2147483649", "2147483648"}) {
            assertThatThrownBy(() -> Quantities.devices(new BigDecimal(n)))
                    .hasMessage(n + " devices is more than 2147483647, the most Railyard counts for one pod");
        }
    }

    /**
     * On quantities well inside the bounds with at most nine decimal places, the amount is the one fabric8's
     * {@link Quantity} computes (the library the parser replaced for its unbounded arithmetic).
     */
    @Property(tries = 2000)
    void agreesWithFabric8InsideTheBounds(@ForAll("quantities") String text) throws Exception {
        BigDecimal expected = Quantity.getAmountInBytes(new Quantity(text));
        assertThat(Quantities.parse(text)).isEqualByComparingTo(expected);
    }

    @Provide
    Arbitrary<String> quantities() {
        Arbitrary<String> mantissa = Combinators.combine(Arbitraries.longs().between(0, 99_999),
                        Arbitraries.integers().between(0, 3))
                .as((m, places) -> places == 0 ? Long.toString(m)
                        : new BigDecimal(m).movePointLeft(places).toPlainString());
        Arbitrary<String> suffix = Arbitraries.of("", "m", "k", "M", "G", "T", "Ki", "Mi", "Gi", "Ti", "e2", "e-2",
                "E6", "e0");
        return Combinators.combine(mantissa, suffix).as(String::concat);
    }
}
