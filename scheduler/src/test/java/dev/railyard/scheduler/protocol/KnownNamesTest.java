package dev.railyard.scheduler.protocol;

import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

import static org.assertj.core.api.Assertions.assertThat;

/** {@link KnownNames}: the cluster's own string for a name a request carries, or null; never another name. */
class KnownNamesTest {

    private static String find(KnownNames k, String name) {
        return k.find(name.toCharArray(), 0, name.length());
    }

    private static List<String> names(int n) {
        List<String> out = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            out.add(String.format(Locale.ROOT, "gpu-%05d", i));
        }
        return out;
    }

    @Test
    void everyNameOfAFiveThousandNodeClusterIsFoundAsTheClustersOwnString() {
        List<String> cluster = names(5000);
        KnownNames k = KnownNames.of(cluster);
        assertThat(k.size()).isEqualTo(5000);
        assertThat(k.source()).isSameAs(cluster);
        for (String n : cluster) {
            // the request's characters are a copy: the answer is the cluster's instance, not an equal string
            assertThat(find(k, new String(n.toCharArray()))).isSameAs(n);
        }
    }

    @Test
    void aNameInsideALargerBufferIsReadFromItsOffsetAndLengthOnly() {
        KnownNames k = KnownNames.of(List.of("gpu-a-017", "gpu-a-018"));
        char[] buffer = "[\"gpu-a-017\",\"gpu-a-018\"]".toCharArray();
        assertThat(k.find(buffer, 2, 9)).isEqualTo("gpu-a-017");
        assertThat(k.find(buffer, 14, 9)).isEqualTo("gpu-a-018");
        assertThat(k.find(buffer, 2, 8)).isNull(); // "gpu-a-01": a prefix is another name
        assertThat(k.find(buffer, 1, 10)).isNull(); // with the opening quote
    }

    @Test
    void unknownPrefixedSuffixedAndEmptyNamesAreNotFound() {
        KnownNames k = KnownNames.of(names(100));
        assertThat(find(k, "gpu-00100")).isNull();
        assertThat(find(k, "gpu-0000")).isNull();
        assertThat(find(k, "gpu-000000")).isNull();
        assertThat(find(k, "gpu-00001 ")).isNull();
        assertThat(find(k, "GPU-00001")).isNull();
        assertThat(find(k, "")).isNull();
    }

    @Test
    void namesWithTheSameHashCodeAreToldApartByTheirCharacters() {
        // found by a search over "gpu-" + six characters of [a-z0-9]: String.hashCode 1261929171 for both
        String a = "gpu-5359jz";
        String b = "gpu-3q3wjz";
        assertThat(a.hashCode()).isEqualTo(b.hashCode());
        assertThat(find(KnownNames.of(List.of(a)), b)).isNull();
        assertThat(find(KnownNames.of(List.of(b)), a)).isNull();
        KnownNames both = KnownNames.of(List.of(a, b));
        assertThat(find(both, a)).isSameAs(a);
        assertThat(find(both, b)).isSameAs(b);
    }

    @Test
    void namesThatAreNotValidSubdomainsAreNotHeldSoTheReaderChecksThemAsBefore() {
        String tooLong = "a".repeat(254); // DNS-1123 subdomains are at most 253 characters
        KnownNames k = KnownNames.of(List.of("gpu-1", "GPU-2", "gpu_3", "-gpu-4", tooLong));
        assertThat(k.size()).isEqualTo(1);
        assertThat(find(k, "gpu-1")).isEqualTo("gpu-1");
        assertThat(find(k, "GPU-2")).isNull();
        assertThat(find(k, "gpu_3")).isNull();
        assertThat(find(k, "-gpu-4")).isNull();
        assertThat(find(k, tooLong)).isNull();
    }

    @Test
    void noNamesFindNothing() {
        assertThat(find(KnownNames.NONE, "gpu-1")).isNull();
        assertThat(KnownNames.of(List.of())).isSameAs(KnownNames.NONE);
        assertThat(find(KnownNames.of(List.of("GPU")), "GPU")).isNull();
    }
    @Test
    void sequentialNamesDoNotFillLongRunsOfSlots() {
        // names that differ in their last characters have nearly consecutive hash codes; taken as they are (low bits
        // with a mask) 5,000 such names left runs of 119 to 270 occupied slots, which a lookup of an absent name
        // walks to the end. Spread over 16,384 slots (at most half full) the longest run stays short.
        for (String format : List.of("gpu-%05d", "node-%d", "gpu-a-%03d", "ip-10-0-%d-%d.ec2.internal")) {
            List<String> cluster = new ArrayList<>();
            for (int i = 0; i < 5000; i++) {
                cluster.add(format.startsWith("ip-") ? String.format(Locale.ROOT, format, i / 250, i % 250)
                        : String.format(Locale.ROOT, format, i));
            }
            KnownNames k = KnownNames.of(cluster);
            assertThat(k.longestRun()).as(format).isLessThanOrEqualTo(16); // 4 to 6 for these four
            for (String n : cluster) {
                assertThat(find(k, new String(n.toCharArray()))).isSameAs(n);
            }
        }
    }
}
