package dev.railyard.scheduler.service;

import dev.railyard.api.volcano.PodGroup;
import org.junit.jupiter.api.Test;

import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/** {@link RecentGangs}: which gangs count as asked about lately, on a clock the test moves. */
class RecentGangsTest {
    private long now = 1_000_000_000_000L;
    private final RecentGangs recent = new RecentGangs(() -> now);

    private static PodGroup group(String name, PodGroup.Convention convention) {
        return new PodGroup("prod", name, 1, null, Map.of(), convention);
    }

    private void seconds(double s) {
        now += (long) (s * 1e9);
    }

    @Test
    void mostRecentFirstUpToTheLimitAndForgottenAfterThirtySeconds() {
        recent.asked(group("a", PodGroup.Convention.VOLCANO));
        seconds(1);
        recent.asked(group("b", PodGroup.Convention.COSCHEDULING));
        seconds(1);
        recent.asked(group("c", PodGroup.Convention.VOLCANO));

        assertThat(recent.recent(8)).extracting(RecentGangs.Asked::key)
                .containsExactly("prod/c", "prod/b", "prod/a");
        assertThat(recent.recent(2)).extracting(RecentGangs.Asked::key).containsExactly("prod/c", "prod/b");
        assertThat(recent.recent(8).get(1).convention()).isEqualTo(PodGroup.Convention.COSCHEDULING);
        // a was asked 2 s before c: 28 s later it is 30 s old and forgotten, c (28 s old) is not
        seconds(28);
        assertThat(recent.recent(8)).extracting(RecentGangs.Asked::key).containsExactly("prod/c", "prod/b");
    }

    @Test
    void aGangAskedAgainWithinASecondKeepsItsTimeAndLaterMovesUp() {
        recent.asked(group("a", PodGroup.Convention.VOLCANO));
        long first = now;
        seconds(0.5);
        recent.asked(group("b", PodGroup.Convention.VOLCANO));
        recent.asked(group("a", PodGroup.Convention.VOLCANO));
        assertThat(recent.recent(8)).extracting(RecentGangs.Asked::atNanos).containsExactly(now, first);
        seconds(0.5);
        recent.asked(group("a", PodGroup.Convention.VOLCANO));
        assertThat(recent.recent(8)).extracting(RecentGangs.Asked::key).containsExactly("prod/a", "prod/b");
    }

    @Test
    void theSameNameUnderBothConventionsIsTwoGangsAndForgetRemovesOne() {
        recent.asked(group("g", PodGroup.Convention.VOLCANO));
        recent.asked(group("g", PodGroup.Convention.COSCHEDULING));
        assertThat(recent.recent(8)).hasSize(2);
        recent.forget(recent.recent(8).stream().filter(a -> a.convention() == PodGroup.Convention.VOLCANO)
                .findFirst().orElseThrow());
        assertThat(recent.recent(8)).extracting(RecentGangs.Asked::convention)
                .containsExactly(PodGroup.Convention.COSCHEDULING);
    }

    @Test
    void atMostMaxGangsAreKeptUntilOldOnesAgeOut() {
        for (int i = 0; i < RecentGangs.MAX; i++) {
            recent.asked(group("g" + i, PodGroup.Convention.VOLCANO));
        }
        recent.asked(group("late", PodGroup.Convention.VOLCANO));
        assertThat(recent.recent(Integer.MAX_VALUE)).hasSize(RecentGangs.MAX)
                .extracting(RecentGangs.Asked::key).doesNotContain("prod/late");
        seconds(30);
        recent.asked(group("late", PodGroup.Convention.VOLCANO));
        assertThat(recent.recent(Integer.MAX_VALUE)).extracting(RecentGangs.Asked::key).containsExactly("prod/late");
    }
}
