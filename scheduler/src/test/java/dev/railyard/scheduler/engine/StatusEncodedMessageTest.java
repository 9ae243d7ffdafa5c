package dev.railyard.scheduler.engine;

import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;

import static org.assertj.core.api.Assertions.assertThat;

/** {@link Status#encodedMessage}: an adapter's encoding of the message, made once per status and encoder. */
class StatusEncodedMessageTest {
    private final Status status = Status.of(List.of(new Reason(ReasonCode.POOL_EXHAUSTED, "IP pool exhausted",
            "rail-net-0 has 0 free")));

    @Test
    void theEncodingIsMadeOnceAndKeptWhileTheEncoderIsTheSame() {
        AtomicInteger calls = new AtomicInteger();
        Function<String, String> upper = m -> {
            calls.incrementAndGet();
            return m.toUpperCase(java.util.Locale.ROOT);
        };
        String first = status.encodedMessage(upper);
        assertThat(first).isEqualTo(status.message().toUpperCase(java.util.Locale.ROOT));
        assertThat(status.encodedMessage(upper)).isSameAs(first);
        assertThat(status.encodedMessage(upper)).isSameAs(first);
        assertThat(calls).hasValue(1);
    }

    @Test
    void anotherEncoderGetsItsOwnValueNeverTheLastOnes() {
        Function<String, String> upper = m -> m.toUpperCase(java.util.Locale.ROOT);
        Function<String, Integer> length = String::length;
        assertThat(status.encodedMessage(upper)).isEqualTo("IP POOL EXHAUSTED: RAIL-NET-0 HAS 0 FREE");
        assertThat(status.encodedMessage(length)).isEqualTo(status.message().length());
        assertThat(status.encodedMessage(upper)).isEqualTo("IP POOL EXHAUSTED: RAIL-NET-0 HAS 0 FREE");
    }

    @Test
    void equalStatusesStayEqualWhateverWasEncoded() {
        Status twin = Status.of(List.of(new Reason(ReasonCode.POOL_EXHAUSTED, "IP pool exhausted",
                "rail-net-0 has 0 free")));
        status.encodedMessage(String::length);
        assertThat(status).isEqualTo(twin).hasSameHashCodeAs(twin);
    }
}
