package dev.railyard.scheduler.engine;

import java.util.List;

/**
 * The planner's state space: how many pods of each class a domain holds, as one mixed-radix number (digit c = pods
 * of class c, radix = the class's size + 1). State 0 is "no pod", {@link #full()} is the whole gang.
 */
final class PodCounts {
    final int[] radix;
    final int[] weight;
    final int size;
    /** Pods in all, per state. */
    final int[] total;
    /** Pods per class, per state. */
    final int[][] digits;
    private final boolean single;

    PodCounts(List<PodClass> classes) {
        int c = classes.size();
        radix = new int[c];
        weight = new int[c];
        int s = 1;
        for (int i = 0; i < c; i++) {
            radix[i] = classes.get(i).count() + 1;
            weight[i] = s;
            s *= radix[i];
        }
        size = s;
        total = new int[s];
        digits = new int[s][c];
        for (int x = 0; x < s; x++) {
            int t = 0;
            for (int i = 0; i < c; i++) {
                digits[x][i] = (x / weight[i]) % radix[i];
                t += digits[x][i];
            }
            total[x] = t;
        }
        single = c == 1;
    }

    /** @return the state holding the pods of both, or -1 when some class would exceed its size */
    int add(int a, int b) {
        if (single) {
            int c = a + b;
            return c < size ? c : -1;
        }
        for (int i = 0; i < radix.length; i++) {
            if (digits[a][i] + digits[b][i] >= radix[i]) {
                return -1;
            }
        }
        return a + b;
    }

    /** @return the state of the whole gang */
    int full() {
        return size - 1;
    }

    /** @return the state of {@code m[c]} pods of each class */
    int of(int[] m) {
        int state = 0;
        for (int k = 0; k < m.length; k++) {
            state += m[k] * weight[k];
        }
        return state;
    }
}
