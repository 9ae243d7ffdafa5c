package dev.railyard.topology.fabric;

import org.jgrapht.alg.util.UnionFind;

import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

/**
 * The switch fabric between nodes, rail by rail: each node hangs under one leaf switch per rail (in a rail-optimised
 * fabric rail r of every node of a scalable unit goes to leaf r of that unit), leaves go up to spines, spines to a
 * core. Not a tree: a node has one leaf per rail and a switch may have several uplinks. Immutable and thread-safe.
 *
 * <p><b>Domains and distance.</b> Two leaves are in the same tier-t domain when they are joined through switches of
 * tier at most t (the transitive closure of "shares an uplink of tier ≤ t"). Two different nodes are
 * {@code t} tiers apart on rail r when t is the lowest tier at which their rail-r switches share a domain, and their
 * traffic on that rail crosses {@code 2t − 1} switches under up/down (valley-free) routing: 1 through a shared leaf,
 * 3 through a spine, 5 through a core. Nodes with no common domain (or no fabric data) are {@code maxTier() + 1} tiers
 * apart. In a Clos fabric, where every leaf of a plane reaches every spine of that plane, this is the exact switch
 * count; in a fabric whose spines only partly overlap it can under-count (documented approximation).
 *
 * <p>With no fabric data at all ({@link #isEmpty()}), {@code maxTier()} is 0 and every two nodes are 1 tier
 * (1 switch) apart: all nodes are equidistant, and {@link #notices()} says so.
 *
 * <p><b>NVLink domains.</b> Nodes whose GPUs share one multi-node NVLink fabric (an NVL72 rack: GPU feature
 * discovery's {@code nvidia.com/gpu.clique} label, {@link NvlinkDomains}) carry that domain's name
 * ({@link #nvlinkDomain}). Ranks in one domain talk over NVLink, not through the switches above; the planner treats a
 * domain as the innermost tier, below the leaf (see {@code DomainTree} in the scheduler). Domains do not change the
 * switch tiers or their numbering.
 *
 * <p>Sources: {@link FabricFile} (static YAML), {@link NodeLabelFabric} (node labels), {@link HyperNodeFabric}
 * (Volcano HyperNodes).
 */
public final class FabricModel {
    /** Where the model came from. */
    public enum Source { NONE, FILE, LABELS, HYPERNODES, GENERATED }

    private static final List<String> DEFAULT_TIER_NAMES = List.of("leaf", "spine", "core");

    private final Source source;
    private final String origin;
    private final Map<String, FabricSwitch> switches;
    private final Map<String, FabricPosition> positions;
    private final int maxTier;
    private final List<String> tierNames;
    private final List<Map<Integer, String>> domainNames;
    private final List<String> notices;
    private final int volcanoTierOffset;
    private final Map<String, String> nvlinkDomains;

    private FabricModel(Builder b, Map<String, FabricPosition> positions, List<Map<Integer, String>> domainNames,
                        int maxTier, List<String> notices) {
        this.nvlinkDomains = Collections.unmodifiableMap(new java.util.TreeMap<>(b.nvlinkDomains));
        this.source = b.source;
        this.origin = b.origin;
        this.switches = Collections.unmodifiableMap(new LinkedHashMap<>(b.switches));
        this.positions = Collections.unmodifiableMap(positions);
        this.maxTier = maxTier;
        List<String> names = new ArrayList<>();
        for (int t = 1; t <= maxTier; t++) {
            String n = b.tierNames.get(t);
            names.add(n != null ? n : (t <= DEFAULT_TIER_NAMES.size() ? DEFAULT_TIER_NAMES.get(t - 1) : "tier " + t));
        }
        this.tierNames = List.copyOf(names);
        this.domainNames = domainNames;
        this.notices = List.copyOf(notices);
        this.volcanoTierOffset = b.volcanoTierOffset;
    }

    /** A copy of {@code base} with other NVLink domains. */
    private FabricModel(FabricModel base, Map<String, String> nvlinkDomains) {
        this.source = base.source;
        this.origin = base.origin;
        this.switches = base.switches;
        this.positions = base.positions;
        this.maxTier = base.maxTier;
        this.tierNames = base.tierNames;
        this.domainNames = base.domainNames;
        this.notices = base.notices;
        this.volcanoTierOffset = base.volcanoTierOffset;
        this.nvlinkDomains = Collections.unmodifiableMap(new java.util.TreeMap<>(nvlinkDomains));
    }

    /** @return a model with no fabric data: all nodes equidistant */
    public static FabricModel empty() {
        return builder(Source.NONE, "no fabric data").build();
    }

    /**
     * @param source where the data comes from
     * @param origin a short description for notices ({@code "fabric.yaml"}, {@code "node labels"})
     * @return a builder
     */
    public static Builder builder(Source source, String origin) {
        return new Builder(source, origin);
    }

    /** @return where the model came from */
    public Source source() {
        return source;
    }

    /** @return a short description of the source, for people */
    public String origin() {
        return origin;
    }

    /** @return true when there is no fabric data: every node is equidistant */
    public boolean isEmpty() {
        return positions.isEmpty();
    }

    /** @return the highest switch tier (3 for leaf–spine–core), 0 when empty */
    public int maxTier() {
        return maxTier;
    }

    /** @return names of tiers 1..{@link #maxTier()} ({@code leaf}, {@code spine}, {@code core} unless the source names them) */
    public List<String> tierNames() {
        return tierNames;
    }

    /**
     * @param tier 1..maxTier, 0 for a single node, maxTier+1 for the whole cluster
     * @return a name for people: {@code node}, {@code leaf}, ..., {@code cluster}
     */
    public String tierName(int tier) {
        if (tier <= 0) {
            return "node";
        }
        if (tier > maxTier) {
            return "cluster";
        }
        return tierNames.get(tier - 1);
    }

    /**
     * @param name a tier name (a HyperNode {@code tierName}, or leaf/spine/core)
     * @return its tier, or empty when no tier has that name
     */
    public Optional<Integer> tierByName(String name) {
        for (int i = 0; i < tierNames.size(); i++) {
            if (tierNames.get(i).equals(name)) {
                return Optional.of(i + 1);
            }
        }
        return Optional.empty();
    }

    /**
     * @param volcanoTier a Volcano HyperNode tier (as in {@code highestTierAllowed})
     * @return the same tier in this model's numbering (they differ only when HyperNodes start at tier 0)
     */
    public int fromVolcanoTier(int volcanoTier) {
        return volcanoTier + volcanoTierOffset;
    }

    /** @return every switch, in the source's order */
    public Collection<FabricSwitch> switches() {
        return switches.values();
    }

    /** @return the switch of that name, or null */
    public FabricSwitch fabricSwitch(String name) {
        return switches.get(name);
    }

    /** @return node name → position, for every node with fabric data */
    public Map<String, FabricPosition> positions() {
        return positions;
    }

    /** @return the node's position, or null when the fabric does not know the node */
    public FabricPosition position(String node) {
        return positions.get(node);
    }

    /** @return the display name of a domain id at a tier, or {@code "?"} */
    public String domainName(int tier, int id) {
        if (tier < 1 || tier > maxTier) {
            return "?";
        }
        String n = domainNames.get(tier).get(id);
        return n == null ? "?" : n;
    }

    /**
     * @return the lowest tier at which the two nodes' rail-{@code rail} switches share a domain: 0 for the same node,
     * {@code maxTier() + 1} when they share none or either node is unknown
     */
    public int commonTier(String a, String b, int rail) {
        if (a.equals(b)) {
            return 0;
        }
        return commonTier(positions.get(a), positions.get(b), rail);
    }

    /** Same as {@link #commonTier(String, String, int)} on positions (null = unknown node). */
    public int commonTier(FabricPosition a, FabricPosition b, int rail) {
        if (a != null && a == b) {
            return 0;
        }
        if (a == null || b == null) {
            return maxTier + 1;
        }
        for (int t = 1; t <= maxTier; t++) {
            int da = a.domain(rail, t);
            if (da >= 0 && da == b.domain(rail, t)) {
                return t;
            }
        }
        return maxTier + 1;
    }

    /**
     * @return switches crossed between the two nodes on rail {@code rail}: 0 for the same node, otherwise
     * {@code 2 × commonTier − 1} (1 through a shared leaf, 3 through a spine, 5 through a core)
     */
    public int hops(String a, String b, int rail) {
        int t = commonTier(a, b, rail);
        return t == 0 ? 0 : 2 * t - 1;
    }

    /** @return switches crossed for nodes {@code tier} tiers apart: 0 for tier 0, else {@code 2 × tier − 1} */
    public static int hopsForTier(int tier) {
        return tier <= 0 ? 0 : 2 * tier - 1;
    }

    /**
     * @param node a node name
     * @return the NVLink domain the node's GPUs belong to, or null when none is known
     */
    public String nvlinkDomain(String node) {
        return nvlinkDomains.get(node);
    }

    /** @return node name → NVLink domain, for every node with one, sorted by node name */
    public Map<String, String> nvlinkDomains() {
        return nvlinkDomains;
    }

    /**
     * @param domains node name → NVLink domain to add (a node's domain from the source wins)
     * @return this model when nothing changes, else a copy with the merged domains
     */
    public FabricModel withNvlinkDomains(Map<String, String> domains) {
        Map<String, String> merged = new java.util.TreeMap<>(domains);
        merged.putAll(nvlinkDomains);
        return merged.equals(nvlinkDomains) ? this : new FabricModel(this, merged);
    }

    /** @return statements for people about gaps in the data (no fabric data, nodes without a position, ...) */
    public List<String> notices() {
        return notices;
    }

    /** Collects switches and node attachments, then computes domains. Not thread-safe. */
    public static final class Builder {
        private final Source source;
        private final String origin;
        private final Map<String, FabricSwitch> switches = new LinkedHashMap<>();
        private final Map<String, Map<Integer, String>> railAttach = new LinkedHashMap<>();
        private final Map<String, String> defaultAttach = new LinkedHashMap<>();
        private final Map<Integer, String> tierNames = new HashMap<>();
        private final List<String> notices = new ArrayList<>();
        private final Map<String, String> nvlinkDomains = new LinkedHashMap<>();
        private int volcanoTierOffset;

        private Builder(Source source, String origin) {
            this.source = source;
            this.origin = origin;
        }

        /**
         * @throws IllegalArgumentException when the name is taken or the tier is below 1
         */
        public Builder addSwitch(String name, String label, int tier, List<String> uplinks) {
            if (name == null || name.isBlank()) {
                throw new IllegalArgumentException("a switch has no name");
            }
            if (tier < 1) {
                throw new IllegalArgumentException("switch " + name + ": tier " + tier + " is below 1 (1 = leaf)");
            }
            if (switches.containsKey(name)) {
                throw new IllegalArgumentException("switch " + name + " is defined twice");
            }
            switches.put(name, new FabricSwitch(name, label, tier, uplinks));
            return this;
        }

        /** Adds an uplink to an already added switch (used by sources that learn parents after children). */
        public Builder addUplink(String name, String uplink) {
            FabricSwitch s = switches.get(name);
            if (s == null) {
                throw new IllegalArgumentException("switch " + name + " is not defined");
            }
            if (!s.uplinks().contains(uplink)) {
                List<String> ups = new ArrayList<>(s.uplinks());
                ups.add(uplink);
                switches.put(name, new FabricSwitch(s.name(), s.label(), s.tier(), ups));
            }
            return this;
        }

        /** @return true when a switch of that name was added */
        public boolean hasSwitch(String name) {
            return switches.containsKey(name);
        }

        /**
         * Cables the node's rail-{@code rail} HCA to {@code switchName}.
         *
         * @throws IllegalArgumentException when the rail is negative or already attached for that node
         */
        public Builder attach(String node, int rail, String switchName) {
            if (rail < 0) {
                throw new IllegalArgumentException("node " + node + ": rail " + rail + " is negative");
            }
            Map<Integer, String> m = railAttach.computeIfAbsent(node, k -> new TreeMap<>());
            if (m.containsKey(rail)) {
                throw new IllegalArgumentException("node " + node + ": rail " + rail + " is attached twice");
            }
            m.put(rail, switchName);
            return this;
        }

        /** Cables every rail of the node to one switch (a fabric that is not rail-optimised, or a label source). */
        public Builder attachAllRails(String node, String switchName) {
            if (defaultAttach.containsKey(node)) {
                throw new IllegalArgumentException("node " + node + " is attached twice");
            }
            defaultAttach.put(node, switchName);
            return this;
        }

        /** @return true when the node has an attachment */
        public boolean isAttached(String node) {
            return railAttach.containsKey(node) || defaultAttach.containsKey(node);
        }

        /** Names tier {@code tier} ({@code leaf}, a HyperNode {@code tierName}). */
        public Builder tierName(int tier, String name) {
            if (name != null && !name.isBlank()) {
                tierNames.putIfAbsent(tier, name);
            }
            return this;
        }

        /** Model tier = Volcano tier + offset (1 when HyperNodes start at tier 0). */
        public Builder volcanoTierOffset(int offset) {
            this.volcanoTierOffset = offset;
            return this;
        }

        /** Puts the node's GPUs in NVLink domain {@code domain} (a first call per node wins). */
        public Builder nvlinkDomain(String node, String domain) {
            if (node != null && domain != null && !domain.isBlank()) {
                nvlinkDomains.putIfAbsent(node, domain);
            }
            return this;
        }

        /** Adds a statement for people about the data. */
        public Builder notice(String notice) {
            notices.add(notice);
            return this;
        }

        /**
         * @return the model
         * @throws IllegalArgumentException naming the switch or node when an uplink or attachment names an unknown
         *                                  switch, or an uplink does not go up at least one tier
         */
        public FabricModel build() {
            int maxTier = checkCabling();
            // comp[t]: switch -> domain id at tier t (t = 1..maxTier); names[t]: domain id -> its name
            List<Map<String, Integer>> comp = new ArrayList<>();
            List<Map<Integer, String>> names = new ArrayList<>();
            comp.add(Map.of());
            names.add(Map.of());
            for (int t = 1; t <= maxTier; t++) {
                Map<String, Integer> ids = new HashMap<>();
                Map<Integer, String> domainName = new HashMap<>();
                domainsAtTier(t, ids, domainName);
                comp.add(ids);
                names.add(domainName);
            }
            Map<String, FabricPosition> positions = positions(comp, maxTier);
            List<String> allNotices = new ArrayList<>(notices);
            if (positions.isEmpty()) {
                allNotices.add(0, "no fabric data (" + origin + "): all nodes are treated as equidistant");
            }
            return new FabricModel(this, positions, names, maxTier, allNotices);
        }

        /**
         * Checks that every uplink and attachment names a defined switch and every uplink goes up a tier.
         *
         * @return the highest tier of any switch (0 when there are none)
         */
        private int checkCabling() {
            int maxTier = 0;
            for (FabricSwitch s : switches.values()) {
                maxTier = Math.max(maxTier, s.tier());
                for (String up : s.uplinks()) {
                    FabricSwitch u = switches.get(up);
                    if (u == null) {
                        throw new IllegalArgumentException("switch " + s.name() + ": uplink " + up + " is not defined");
                    }
                    if (u.tier() <= s.tier()) {
                        throw new IllegalArgumentException("switch " + s.name() + " (tier " + s.tier() + "): uplink "
                                + up + " is tier " + u.tier() + ", not higher");
                    }
                }
            }
            for (var e : railAttach.entrySet()) {
                for (String sw : e.getValue().values()) {
                    requireSwitch(e.getKey(), sw);
                }
            }
            for (var e : defaultAttach.entrySet()) {
                requireSwitch(e.getKey(), e.getValue());
            }
            return maxTier;
        }

        /**
         * The domains at tier {@code t}: switches at or below {@code t} joined by uplinks that stay at or below it.
         * Fills {@code ids} (switch name -> domain id) and {@code domainName} (domain id -> name).
         */
        private void domainsAtTier(int t, Map<String, Integer> ids, Map<Integer, String> domainName) {
            UnionFind<String> uf = new UnionFind<>(switches.keySet());
            for (FabricSwitch s : switches.values()) {
                if (s.tier() > t) {
                    continue;
                }
                for (String up : s.uplinks()) {
                    if (switches.get(up).tier() <= t) {
                        uf.union(s.name(), up);
                    }
                }
            }
            Map<String, Integer> rootId = new HashMap<>();
            Map<Integer, Integer> nameTier = new HashMap<>();
            for (FabricSwitch s : switches.values()) {
                if (s.tier() > t) {
                    continue;
                }
                int id = rootId.computeIfAbsent(uf.find(s.name()), r -> rootId.size());
                ids.put(s.name(), id);
                // a domain is named after its highest-tier switch, the first one in source order
                Integer best = nameTier.get(id);
                if (best == null || s.tier() > best) {
                    nameTier.put(id, s.tier());
                    domainName.put(id, s.label());
                }
            }
            // a switch above tier t is a domain of its own at tier t (nodes cabled straight to it share it)
            int next = rootId.size();
            for (FabricSwitch s : switches.values()) {
                if (s.tier() > t) {
                    ids.put(s.name(), next);
                    domainName.put(next, s.label());
                    next++;
                }
            }
        }

        /** Each cabled node's position: rail-attached nodes first, in cabling order, then default-only ones. */
        private Map<String, FabricPosition> positions(List<Map<String, Integer>> comp, int maxTier) {
            Map<String, FabricPosition> positions = new LinkedHashMap<>();
            List<String> nodes = new ArrayList<>(railAttach.keySet());
            for (String n : defaultAttach.keySet()) {
                if (!railAttach.containsKey(n)) {
                    nodes.add(n);
                }
            }
            for (String node : nodes) {
                Map<Integer, String> rails = railAttach.getOrDefault(node, Map.of());
                Map<Integer, int[]> railDomains = new TreeMap<>();
                for (var e : rails.entrySet()) {
                    railDomains.put(e.getKey(), domainsOf(e.getValue(), comp, maxTier));
                }
                String def = defaultAttach.get(node);
                positions.put(node, new FabricPosition(node, rails, railDomains, def,
                        def == null ? null : domainsOf(def, comp, maxTier)));
            }
            return positions;
        }

        private void requireSwitch(String node, String sw) {
            if (!switches.containsKey(sw)) {
                throw new IllegalArgumentException("node " + node + ": switch " + sw + " is not defined");
            }
        }

        private static int[] domainsOf(String sw, List<Map<String, Integer>> comp, int maxTier) {
            int[] d = new int[maxTier + 1];
            d[0] = -1;
            for (int t = 1; t <= maxTier; t++) {
                d[t] = comp.get(t).get(sw);
            }
            return d;
        }
    }
}
