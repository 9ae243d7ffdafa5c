package dev.railyard.scheduler.input;

import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import org.junit.jupiter.api.Test;

import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The name checks against the formats as apimachinery writes them (k8s.io/apimachinery v0.35
 * {@code pkg/util/validation/validation.go}: {@code dns1123LabelFmt}, {@code dns1123SubdomainFmt}), which
 * {@link ObjectNames} keeps as {@link ObjectNames#LABEL} and {@link ObjectNames#SUBDOMAIN}.
 */
class ObjectNamesTest {
    private static final Pattern LABEL = Pattern.compile(ObjectNames.LABEL);
    private static final Pattern SUBDOMAIN = Pattern.compile(ObjectNames.SUBDOMAIN);

    @Test
    void namesAsKubernetesAdmitsThem() {
        assertThat(ObjectNames.subdomainProblem("gpu-00001")).isEmpty();
        assertThat(ObjectNames.subdomainProblem("node-1.rack-2.example.com")).isEmpty();
        assertThat(ObjectNames.subdomainProblem("0")).isEmpty();
        for (String bad : new String[]{"-a", "a-", "a..b", ".a", "a.", "A", "a_b", "a b", "a.-b", "a<b>&c"}) {
            assertThat(ObjectNames.subdomainProblem(bad)).as(bad).contains("is not a DNS-1123 subdomain (lower-case "
                    + "letters, digits, '-' and '.', starting and ending with a letter or digit)");
        }
        assertThat(ObjectNames.labelProblem("team-a")).isEmpty();
        assertThat(ObjectNames.labelProblem("team.a")).isPresent();
        assertThat(ObjectNames.subdomainProblem("a".repeat(254))).contains("is 254 characters long, more than 253");
    }

    /** Every string over the characters that matter answers as the regular expression does. */
    @Property(tries = 5000)
    void theScanAgreesWithTheFormats(@ForAll("names") String name) {
        assertThat(ObjectNames.subdomainProblem(name).isEmpty()).as(name)
                .isEqualTo(SUBDOMAIN.matcher(name).matches());
        assertThat(ObjectNames.labelProblem(name).isEmpty()).as(name).isEqualTo(LABEL.matcher(name).matches());
    }

    @Provide
    Arbitrary<String> names() {
        return Arbitraries.strings().withChars("ab09-.A_ é").ofMinLength(0).ofMaxLength(12);
    }
}
