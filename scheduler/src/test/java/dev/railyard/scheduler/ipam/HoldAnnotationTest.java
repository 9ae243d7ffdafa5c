package dev.railyard.scheduler.ipam;

import org.junit.jupiter.api.Test;

import java.time.Instant;

import static org.assertj.core.api.Assertions.assertThat;

/** The {@code railyard.dev/address-hold} value: what Railyard writes it reads back; anything else is no hold. */
class HoldAnnotationTest {
    private static final HoldAnnotation.Value V = new HoldAnnotation.Value("6f1c-uid", "gpu-a1", HoldOrigin.ALLOCATE,
            Instant.parse("2026-12-01T17:40:00.123456789Z"), Instant.parse("2026-12-01T17:45:00.123456789Z"));

    @Test
    void writtenAsOneSmallJsonObjectAndReadBackExactly() {
        String text = HoldAnnotation.write(V);
        assertThat(text).isEqualTo("{\"uid\":\"6f1c-uid\",\"node\":\"gpu-a1\",\"by\":\"volcano allocateFunc\","
                + "\"since\":\"2026-12-01T17:40:00.123456789Z\",\"until\":\"2026-12-01T17:45:00.123456789Z\"}");
        assertThat(HoldAnnotation.read(text)).isEqualTo(V);
    }

    @Test
    void aValueRailyardDidNotWriteIsNoHold() {
        assertThat(HoldAnnotation.read(null)).isNull();
        assertThat(HoldAnnotation.read("")).isNull();
        assertThat(HoldAnnotation.read("yes")).isNull();
        assertThat(HoldAnnotation.read("[]")).isNull();
        assertThat(HoldAnnotation.read("{\"uid\":\"u\",\"by\":\"someone\",\"since\":\"2026-12-01T17:40:00Z\","
                + "\"until\":\"2026-12-01T17:45:00Z\"}")).as("unknown by").isNull();
        assertThat(HoldAnnotation.read("{\"uid\":\"u\",\"by\":\"bound, address not recorded yet\",\"since\":"
                + "\"2026-12-01T17:40:00Z\",\"until\":\"2026-12-01T17:45:00Z\"}")).as("not a hold").isNull();
        assertThat(HoldAnnotation.read("{\"uid\":\"u\",\"by\":\"kube bind\",\"since\":\"yesterday\","
                + "\"until\":\"2026-12-01T17:45:00Z\"}")).as("bad time").isNull();
        assertThat(HoldAnnotation.read("{\"uid\":\"u\",\"by\":\"kube bind\",\"since\":\"2026-12-01T17:40:00Z\"}"))
                .as("no until").isNull();
        assertThat(HoldAnnotation.read("{\"uid\":\"" + "u".repeat(2000) + "\"}")).as("too long").isNull();
    }
}
