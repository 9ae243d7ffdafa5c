package dev.railyard.scheduler.engine;


import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Map;

/**
 * One table of the dynamic program: for one domain, every reachable {@link PodCounts} state with its least
 * (hops, local) cost. A node's table enumerates the pods of each class it can take ({@link NodeChoice}); a domain's
 * table merges its children's as a knapsack, adding {@code (2t − 1)·|a|·|b|} switch hops between a pods already
 * placed and b pods in the next child. {@link #backtrack} recovers the pods per node of the chosen state.
 *
 * @param states finite states, ascending
 * @param hops   switch hops per state
 * @param local  node-local cost per state
 */
record DomainTable(int[] states, long[] hops, long[] local) {
    static final DomainTable EMPTY = new DomainTable(new int[]{0}, new long[]{0}, new long[]{0});

    /** @return true and (hops, local) of state s in {@code out}, or false when the state is not reachable */
    boolean cost(int s, long[] out) {
        int i = Arrays.binarySearch(states, s);
        if (i < 0) {
            return false;
        }
        out[0] = hops[i];
        out[1] = local[i];
        return true;
    }

    /**
     * Node i's table; each pod on it adds {@code hopsPerPod} (its switch hops to the bound members).
     *
     * @param capacity pods of each class the node can take, each class counted alone
     */
    static DomainTable ofNode(PodCounts st, PlanInputs in, RailVector[] combo, int i, int[] capacity,
                               long hopsPerPod) {
        boolean any = false;
        for (int c : capacity) {
            any |= c > 0;
        }
        if (!any) {
            return EMPTY;
        }
        List<Integer> states = new ArrayList<>();
        List<Long> costs = new ArrayList<>();
        enumerateNode(st, in, combo, i, capacity, 0, new int[capacity.length], states, costs);
        int[] s = new int[states.size()];
        long[] h = new long[s.length];
        long[] l = new long[s.length];
        Integer[] order = new Integer[s.length];
        for (int k = 0; k < s.length; k++) {
            order[k] = k;
        }
        Arrays.sort(order, Comparator.comparingInt(states::get));
        for (int k = 0; k < s.length; k++) {
            s[k] = states.get(order[k]);
            h[k] = hopsPerPod * st.total[s[k]];
            l[k] = costs.get(order[k]);
        }
        return new DomainTable(s, h, l);
    }

    private static void enumerateNode(PodCounts st, PlanInputs in, RailVector[] combo, int i, int[] cap, int c,
                                      int[] m, List<Integer> states, List<Long> costs) {
        if (c == cap.length) {
            int state = st.of(m);
            if (state == 0) {
                states.add(0);
                costs.add(0L);
                return;
            }
            NodeChoice nc = NodeChoice.choose(in.classes(), in.views(), combo, i, m, in.weights());
            if (nc != null) {
                states.add(state);
                costs.add(nc.cost());
            }
            return;
        }
        for (int k = 0; k <= cap[c]; k++) {
            m[c] = k;
            enumerateNode(st, in, combo, i, cap, c + 1, m, states, costs);
        }
        m[c] = 0;
    }

    /**
     * Knapsack merge of the children's tables, adding {@code w·|a|·|b|} hops between pods of different children.
     *
     * @param choices null, or per child the state it takes in each merged state (filled for {@link #backtrack})
     */
    static DomainTable merge(PodCounts st, DomainTable[] below, int[] children, long w, int[][] choices) {
        int size = st.size;
        DomainTable acc = EMPTY;
        long[] nh = new long[size];
        long[] nl = new long[size];
        boolean[] set = new boolean[size];
        for (int j = 0; j < children.length; j++) {
            DomainTable ch = below[children[j]];
            if (ch.states().length == 1 && choices == null) {
                continue; // only "no pod": changes nothing
            }
            Arrays.fill(set, false);
            int[] choice = choices == null ? null : (choices[j] = new int[size]);
            for (int ai = 0; ai < acc.states.length; ai++) {
                int a = acc.states[ai];
                long ta = st.total[a];
                for (int bi = 0; bi < ch.states().length; bi++) {
                    int b = ch.states()[bi];
                    int c = st.add(a, b);
                    if (c < 0) {
                        continue;
                    }
                    long h = acc.hops[ai] + ch.hops()[bi] + w * ta * st.total[b];
                    long l = acc.local[ai] + ch.local()[bi];
                    if (!set[c] || h < nh[c] || (h == nh[c] && l < nl[c])) {
                        set[c] = true;
                        nh[c] = h;
                        nl[c] = l;
                        if (choice != null) {
                            choice[c] = b;
                        }
                    }
                }
            }
            acc = compact(set, nh, nl);
        }
        return acc;
    }

    /** @return the states set, ascending, with their costs */
    private static DomainTable compact(boolean[] set, long[] nh, long[] nl) {
        int count = 0;
        for (boolean s : set) {
            if (s) {
                count++;
            }
        }
        int[] s = new int[count];
        long[] h = new long[count];
        long[] l = new long[count];
        int k = 0;
        for (int x = 0; x < set.length; x++) {
            if (set[x]) {
                s[k] = x;
                h[k] = nh[x];
                l[k] = nl[x];
                k++;
            }
        }
        return new DomainTable(s, h, l);
    }

    /**
     * Recovers the pods per node of {@code state} in domain d at {@code level}, by merging again with choices kept.
     *
     * @param out node index → pods of each class, filled
     */
    static void backtrack(PodCounts st, DomainTable[][] tables, DomainTree tree, int level, int d, int state,
                          Map<Integer, int[]> out) {
        if (state == 0) {
            return;
        }
        if (level == 0) {
            out.put(d, st.digits[state].clone());
            return;
        }
        int[] kids = tree.children[level][d];
        int[][] choices = new int[kids.length][];
        merge(st, tables[level - 1], kids, tree.hops(level), choices);
        int s = state;
        for (int j = kids.length - 1; j >= 0; j--) {
            int b = choices[j][s];
            backtrack(st, tables, tree, level - 1, kids[j], b, out);
            s = s - b;
        }
    }
}
