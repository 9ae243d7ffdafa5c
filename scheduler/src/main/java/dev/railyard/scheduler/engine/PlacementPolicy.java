package dev.railyard.scheduler.engine;

import dev.railyard.api.hints.AffinityPolicy;
import dev.railyard.api.hints.FabricScope;
import dev.railyard.api.hints.HintAnnotations;
import dev.railyard.api.hints.RankOrder;
import dev.railyard.api.topology.PcieDistance;
import dev.railyard.api.volcano.PodGroup;
import dev.railyard.topology.InputException;
import dev.railyard.topology.fabric.FabricModel;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * The placement rules of one gang, resolved from the job author's {@code railyard.dev/} hints and the PodGroup's
 * Volcano {@code networkTopology}.
 *
 * @param gpuHcaAffinity GPU–HCA affinity (default required)
 * @param maxDistance    farthest GPU–HCA distance class under that affinity (default PXB: NCCL enables GPUDirect RDMA
 *                       only up to PXB by default)
 * @param railAlignment  rail alignment across the gang (default preferred)
 * @param scope          largest fabric domain the gang may span ({@link FabricScope#ANY} by default)
 * @param rankOrder      rank ordering (default fabric)
 * @param sources        where each non-default setting came from, for explanations
 * @param warnings       {@code railyard.dev/} annotation keys Railyard does not know, with the closest known key
 *                       ({@link UnknownHintKeys}); the gang planner repeats them in its notices
 */
public record PlacementPolicy(AffinityPolicy gpuHcaAffinity, PcieDistance maxDistance, AffinityPolicy railAlignment,
                              FabricScope scope, RankOrder rankOrder, List<String> sources, List<String> warnings) {
    /** A policy without warnings. */
    public PlacementPolicy(AffinityPolicy gpuHcaAffinity, PcieDistance maxDistance, AffinityPolicy railAlignment,
                           FabricScope scope, RankOrder rankOrder, List<String> sources) {
        this(gpuHcaAffinity, maxDistance, railAlignment, scope, rankOrder, sources, List.of());
    }

    public PlacementPolicy {
        gpuHcaAffinity = gpuHcaAffinity == null ? AffinityPolicy.REQUIRED : gpuHcaAffinity;
        maxDistance = maxDistance == null ? PcieDistance.PXB : maxDistance;
        railAlignment = railAlignment == null ? AffinityPolicy.PREFERRED : railAlignment;
        scope = scope == null ? FabricScope.ANY : scope;
        rankOrder = rankOrder == null ? RankOrder.FABRIC : rankOrder;
        sources = sources == null ? List.of() : List.copyOf(sources);
        warnings = warnings == null ? List.of() : List.copyOf(warnings);
    }

    /** @return affinity required at ≤ PXB, alignment preferred, any scope, fabric rank order */
    public static PlacementPolicy defaults() {
        return new PlacementPolicy(null, null, null, null, null, null);
    }

    /** @return a copy with another GPU–HCA affinity and maximum distance */
    public PlacementPolicy withAffinity(AffinityPolicy affinity, PcieDistance max) {
        return new PlacementPolicy(affinity, max, railAlignment, scope, rankOrder, sources, warnings);
    }

    /** @return a copy with another rail alignment */
    public PlacementPolicy withRailAlignment(AffinityPolicy alignment) {
        return new PlacementPolicy(gpuHcaAffinity, maxDistance, alignment, scope, rankOrder, sources, warnings);
    }

    /** @return a copy with another fabric scope */
    public PlacementPolicy withScope(FabricScope newScope) {
        return new PlacementPolicy(gpuHcaAffinity, maxDistance, railAlignment, newScope, rankOrder, sources,
                warnings);
    }

    /**
     * Resolves the policy. Hint annotations are looked up on the pod, then the PodGroup, then the Volcano Job (the
     * most specific wins). Without a {@code railyard.dev/fabric-scope} hint, the PodGroup's {@code networkTopology}
     * sets the scope: {@code highestTierAllowed} (or {@code highestTierName}, looked up among the fabric's tier
     * names; no constraint when no tier has that name, as Volcano does), required when {@code mode: hard}.
     *
     * @param jobAnnotations      Volcano Job annotations, or null
     * @param podGroup            the PodGroup, or null
     * @param podAnnotations      annotations of the pod template, or null
     * @param fabric              the fabric model (for tier names and Volcano tier numbering)
     * @return the policy
     * @throws InputException naming the annotation and its value when a hint is malformed
     */
    public static PlacementPolicy resolve(Map<String, String> jobAnnotations, PodGroup podGroup,
                                          Map<String, String> podAnnotations, FabricModel fabric) {
        List<String> sources = new ArrayList<>();
        try {
            String aff = lookup(HintAnnotations.GPU_HCA_AFFINITY, podAnnotations, podGroup, jobAnnotations, sources);
            String max = lookup(HintAnnotations.GPU_HCA_MAX_DISTANCE, podAnnotations, podGroup, jobAnnotations, sources);
            String rail = lookup(HintAnnotations.RAIL_ALIGNMENT, podAnnotations, podGroup, jobAnnotations, sources);
            String scope = lookup(HintAnnotations.FABRIC_SCOPE, podAnnotations, podGroup, jobAnnotations, sources);
            String scopePolicy = lookup(HintAnnotations.FABRIC_SCOPE_POLICY, podAnnotations, podGroup, jobAnnotations,
                    sources);
            String rank = lookup(HintAnnotations.RANK_ORDER, podAnnotations, podGroup, jobAnnotations, sources);
            PcieDistance maxDistance = null;
            if (max != null) {
                try {
                    maxDistance = PcieDistance.valueOf(max.trim().toUpperCase(Locale.ROOT));
                } catch (IllegalArgumentException e) {
                    throw new IllegalArgumentException("annotation " + HintAnnotations.GPU_HCA_MAX_DISTANCE + ": '"
                            + max + "' is not PIX, PXB, P2C, PHB, NODE or SYS");
                }
            }
            boolean scopeRequired = scopeRequired(scopePolicy);
            FabricScope fabricScope = FabricScope.parse(scope, scopeRequired);
            if (fabricScope == null && podGroup != null && podGroup.networkTopology() != null) {
                PodGroup.NetworkTopology nt = podGroup.networkTopology();
                boolean hard = nt.mode() == PodGroup.NetworkTopologyMode.HARD;
                Integer tier = null;
                if (nt.highestTierAllowed() != null) {
                    tier = fabric.fromVolcanoTier(nt.highestTierAllowed());
                } else if (nt.highestTierName() != null) {
                    tier = fabric.tierByName(nt.highestTierName()).orElse(null);
                }
                if (tier != null) {
                    fabricScope = new FabricScope(tier, hard);
                    sources.add("fabric scope from PodGroup " + podGroup.namespace() + "/" + podGroup.name()
                            + " networkTopology (" + nt.mode().name().toLowerCase(Locale.ROOT) + ", tier "
                            + tier + ")");
                }
            }
            return new PlacementPolicy(
                    AffinityPolicy.parse(aff, HintAnnotations.GPU_HCA_AFFINITY, AffinityPolicy.REQUIRED),
                    maxDistance,
                    AffinityPolicy.parse(rail, HintAnnotations.RAIL_ALIGNMENT, AffinityPolicy.PREFERRED),
                    fabricScope, RankOrder.parse(rank), sources, warnings(podAnnotations, podGroup, jobAnnotations));
        } catch (IllegalArgumentException e) {
            throw new InputException(e.getMessage(), e);
        }
    }

    /** Unknown {@code railyard.dev/} keys, each reported once at the most specific object it is on. */
    private static List<String> warnings(Map<String, String> pod, PodGroup pg, Map<String, String> job) {
        Set<String> seen = new HashSet<>();
        List<String> out = new ArrayList<>(UnknownHintKeys.warnings(pod, "the pod", seen));
        if (pg != null) {
            out.addAll(UnknownHintKeys.warnings(pg.annotations(), "PodGroup " + pg.namespace() + "/" + pg.name(),
                    seen));
        }
        out.addAll(UnknownHintKeys.warnings(job, "the Job", seen));
        return out;
    }

    /**
     * Parses {@value HintAnnotations#FABRIC_SCOPE_POLICY}: {@code required} (the default) or {@code preferred}, the
     * two values the README gives job authors. There is no {@code ignore}: a scope that should not hold is
     * {@code railyard.dev/fabric-scope: any}.
     */
    private static boolean scopeRequired(String text) {
        if (text == null || text.isBlank()) {
            return true;
        }
        String t = text.trim().toLowerCase(Locale.ROOT);
        return switch (t) {
            case "required" -> true;
            case "preferred" -> false;
            default -> throw new IllegalArgumentException("annotation " + HintAnnotations.FABRIC_SCOPE_POLICY + ": '"
                    + text + "' is not required or preferred" + (t.equals("ignore") || t.equals("ignored")
                    || t.equals("none") ? " (for no fabric limit, set " + HintAnnotations.FABRIC_SCOPE + ": any)"
                    : ""));
        };
    }

    private static String lookup(String key, Map<String, String> pod, PodGroup pg, Map<String, String> job,
                                 List<String> sources) {
        if (pod != null && pod.get(key) != null) {
            sources.add(key + "=" + pod.get(key) + " (pod)");
            return pod.get(key);
        }
        if (pg != null && pg.annotations().get(key) != null) {
            sources.add(key + "=" + pg.annotations().get(key) + " (PodGroup)");
            return pg.annotations().get(key);
        }
        if (job != null && job.get(key) != null) {
            sources.add(key + "=" + job.get(key) + " (Job)");
            return job.get(key);
        }
        return null;
    }

    /** @return a one-line description ({@code affinity required ≤ PXB, rails preferred, scope any}) */
    public String describe() {
        return "GPU–HCA affinity " + gpuHcaAffinity.label()
                + (gpuHcaAffinity == AffinityPolicy.IGNORE ? "" : " ≤ " + maxDistance)
                + ", rail alignment " + railAlignment.label() + ", fabric scope " + scope;
    }
}
