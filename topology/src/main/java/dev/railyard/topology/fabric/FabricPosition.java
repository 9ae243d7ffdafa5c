package dev.railyard.topology.fabric;

import java.util.Arrays;
import java.util.Map;
import java.util.TreeMap;

/**
 * Where one node hangs in the fabric: for each rail the switch its HCA of that rail is cabled to, and for each tier
 * the domain that switch belongs to. Immutable.
 *
 * <p>Domain ids are small non-negative integers unique within one {@link FabricModel} and tier; -1 means unknown.
 */
public final class FabricPosition {
    private static final int DENSE_RAILS = 64;
    private final String node;
    private final Map<Integer, String> railSwitch;
    private final Map<Integer, int[]> railDomains;
    private final String defaultSwitch;
    private final int[] defaultDomains;
    /** Each rail's domains by rail index (the default's where the rail has none), for rails 0 to 63; else null. */
    private final int[][] denseDomains;

    FabricPosition(String node, Map<Integer, String> railSwitch, Map<Integer, int[]> railDomains,
                   String defaultSwitch, int[] defaultDomains) {
        this.node = node;
        this.railSwitch = new TreeMap<>(railSwitch);
        this.railDomains = new TreeMap<>(railDomains);
        this.defaultSwitch = defaultSwitch;
        this.defaultDomains = defaultDomains;
        this.denseDomains = dense(this.railDomains);
    }

    /** Rails are small indexes (a node has a handful of HCAs): one array read instead of a map lookup per call. */
    private int[][] dense(Map<Integer, int[]> byRail) {
        int max = -1;
        for (int rail : byRail.keySet()) {
            if (rail < 0 || rail >= DENSE_RAILS) {
                return null;
            }
            max = Math.max(max, rail);
        }
        int[][] dense = new int[max + 1][];
        for (int r = 0; r <= max; r++) {
            dense[r] = byRail.get(r);
        }
        return dense;
    }

    /** @return the node name */
    public String node() {
        return node;
    }

    /**
     * @param rail rail index
     * @return the switch the node's rail-{@code rail} HCA is cabled to, or null when unknown
     */
    public String leaf(int rail) {
        String s = railSwitch.get(rail);
        return s != null ? s : defaultSwitch;
    }

    /** @return true when the node has a position for this rail (its own or the all-rails default) */
    public boolean knows(int rail) {
        return railSwitch.containsKey(rail) || defaultSwitch != null;
    }

    /** @return true when each rail has its own switch entry (a rail-optimised attachment) */
    public boolean isPerRail() {
        return !railSwitch.isEmpty();
    }

    /**
     * @param rail rail index
     * @param tier tier ≥ 1
     * @return the domain id of the rail's switch at that tier, or -1 when unknown
     */
    public int domain(int rail, int tier) {
        int[] d;
        if (denseDomains == null) {
            d = railDomains.get(rail);
        } else {
            d = rail >= 0 && rail < denseDomains.length ? denseDomains[rail] : null;
        }
        if (d == null) {
            d = defaultDomains;
        }
        if (d == null || tier < 1 || tier >= d.length) {
            return -1;
        }
        return d[tier];
    }

    /** @return rails with their own switch entry, ascending */
    public java.util.Set<Integer> explicitRails() {
        return java.util.Collections.unmodifiableSet(railSwitch.keySet());
    }

    @Override
    public String toString() {
        return "FabricPosition[" + node + " " + railSwitch + (defaultSwitch != null ? " all=" + defaultSwitch : "")
                + (defaultDomains != null ? " " + Arrays.toString(defaultDomains) : "") + "]";
    }
}
