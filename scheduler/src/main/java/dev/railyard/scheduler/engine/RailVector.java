package dev.railyard.scheduler.engine;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * How many GPUs of one pod sit on each rail: {@code counts[r]} GPUs bound to rail r. Rail alignment means every pod
 * of one shape in the gang has the same vector, so GPUs of equal local rank (GPUs ordered by rail) share a rail.
 * Immutable; equality by value.
 */
public final class RailVector {
    private final int[] counts;
    private final int total;

    /** @param counts GPUs per rail (copied; trailing zeros are dropped) */
    public RailVector(int[] counts) {
        int len = counts.length;
        while (len > 0 && counts[len - 1] == 0) {
            len--;
        }
        this.counts = Arrays.copyOf(counts, len);
        int t = 0;
        for (int c : this.counts) {
            if (c < 0) {
                throw new IllegalArgumentException("negative rail count in " + Arrays.toString(counts));
            }
            t += c;
        }
        this.total = t;
    }

    /** @return GPUs on rail r (0 beyond the highest rail) */
    public int count(int rail) {
        return rail < counts.length ? counts[rail] : 0;
    }

    /** @return one past the highest rail with a GPU */
    public int width() {
        return counts.length;
    }

    /** @return the number of GPUs */
    public int total() {
        return total;
    }

    /** @return rails with at least one GPU, ascending */
    public List<Integer> rails() {
        List<Integer> r = new ArrayList<>();
        for (int i = 0; i < counts.length; i++) {
            if (counts[i] > 0) {
                r.add(i);
            }
        }
        return r;
    }

    /** @return the rail of each GPU in local-rank order ({@code [0,0,1,1]} for two GPUs on rails 0 and 1 each) */
    public List<Integer> sequence() {
        List<Integer> s = new ArrayList<>();
        for (int i = 0; i < counts.length; i++) {
            for (int k = 0; k < counts[i]; k++) {
                s.add(i);
            }
        }
        return s;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof RailVector v && Arrays.equals(counts, v.counts);
    }

    @Override
    public int hashCode() {
        return Arrays.hashCode(counts);
    }

    /** @return {@code {0,1,2,3}}, with multiplicities as {@code {0×2,1×2}} */
    @Override
    public String toString() {
        StringBuilder b = new StringBuilder("{");
        boolean first = true;
        for (int i = 0; i < counts.length; i++) {
            if (counts[i] == 0) {
                continue;
            }
            if (!first) {
                b.append(',');
            }
            first = false;
            b.append(i);
            if (counts[i] > 1) {
                b.append('×').append(counts[i]);
            }
        }
        return b.append('}').toString();
    }
}
