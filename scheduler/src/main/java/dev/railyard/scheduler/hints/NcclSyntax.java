package dev.railyard.scheduler.hints;

import dev.railyard.api.hints.HintAnnotations;
import dev.railyard.api.hints.NcclVersion;
import dev.railyard.api.hints.PlacementHint;
import dev.railyard.api.hints.PlacementHint.GpuHint;
import dev.railyard.api.topology.PcieDistance;
import dev.railyard.scheduler.input.RateLimitedLog;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The NCCL environment syntax a pod gets, by the NCCL release its job declares ({@value HintAnnotations#NCCL_VERSION},
 * {@link NcclVersion}); grammar and versions from NCCL's source, summarised in {@code docs/formats/nccl-env.md}:
 * <ul>
 *   <li><b>classic</b> (no declaration, or a release before 2.30.5): {@code NCCL_IB_HCA==<hca>:<port>,...}, the
 *       form every release accepts;</li>
 *   <li><b>rail/plane</b> (2.30.5 and later): {@code NCCL_IB_HCA==<hca>:<port>:<rail>[:<plane>],...} with Railyard's
 *       rail index as {@code <rail>} and the HCA's plane where known, and {@code NCCL_NET_MERGE_POLICY=RAIL}, so NCCL
 *       fuses HCAs into virtual NICs only within one rail.</li>
 * </ul>
 * Either way: {@code NCCL_NET_GDR_C2C=1} when a pair is {@link PcieDistance#P2C} (GPUDirect RDMA over C2C: NCCL 2.26
 * reads it with default 0, 2.27 defaults to 1, earlier releases ignore it), and {@code NCCL_NET_GDR_LEVEL} only for
 * pairs beyond PXB other than P2C. Entries keep the hint's local-rank order, one per distinct HCA port, and always
 * name the port (an entry {@code mlx5_0:1:0:0} reads as {@code mlx5_0} port 1 in releases before 2.30.5, whose parser
 * stops at the second colon, so the rail/plane form is harmless there too). Pure; thread-safe.
 */
public final class NcclSyntax {
    private static final org.slf4j.Logger LOG = org.slf4j.LoggerFactory.getLogger(NcclSyntax.class);
    /** Per bind (and per webhook call, which anyone reaching the port can repeat): one line every 10 s. */
    private static final RateLimitedLog MALFORMED = RateLimitedLog.of(LOG);

    private NcclSyntax() {
    }

    /**
     * Rewrites bind-time hint annotations for the NCCL release the pod (else its PodGroup) declares. A malformed
     * declaration is logged (at most once every 10 s) and the syntax every release accepts is kept: the pod binds
     * either way.
     *
     * @param annotations the annotations {@link PlacementHints#annotations} made
     * @param pod         the pod's annotations
     * @param podGroup    the pod's PodGroup, or null
     * @return the annotations for the declared release (the same map when none is declared)
     */
    public static Map<String, String> rewrite(Map<String, String> annotations, Map<String, String> pod,
                                              dev.railyard.api.volcano.PodGroup podGroup) {
        NcclVersion version;
        try {
            version = declared(pod, podGroup == null ? null : podGroup.annotations());
        } catch (IllegalArgumentException e) {
            MALFORMED.warn("nccl version", "{}; writing the NCCL settings every release accepts", e.getMessage());
            return annotations;
        }
        if (version == null || !(HintFile.fromPlacementJson(annotations.getOrDefault(HintAnnotations.PLACEMENT, ""),
                "hint") instanceof HintFile.Found found)) {
            return annotations;
        }
        return PlacementHints.annotations(forVersion(found.hint(), version));
    }

    /**
     * @param hint    a hint whose {@code gpus} are set
     * @param version the declared NCCL release, or null for the syntax every release accepts
     * @return the hint with its {@code nccl} settings written for that release and {@code ncclVersion} recording it
     */
    public static PlacementHint forVersion(PlacementHint hint, NcclVersion version) {
        PlacementHint.NcclSettings n = hint.nccl();
        boolean railPlane = version != null && version.hasRailPlaneSyntax();
        String ibHca = ibHca(hint.gpus(), railPlane);
        PlacementHint.NcclSettings settings = new PlacementHint.NcclSettings(ibHca,
                n == null ? null : n.socketIfname(), n == null ? null : n.ibAddrRange(),
                n == null ? null : n.ibAddrFamily(), gdrLevel(hint.gpus()), gdrC2c(hint.gpus()),
                railPlane && ibHca != null ? "RAIL" : null);
        return hint.withNccl(settings, version == null ? null : version.toString());
    }

    /**
     * @param gpus      GPUs in local-rank order
     * @param railPlane true for the NCCL ≥ 2.30.5 form
     * @return {@code =<hca>:<port>[:<rail>[:<plane>]],...}, one entry per distinct HCA port, or null when none
     */
    public static String ibHca(List<GpuHint> gpus, boolean railPlane) {
        Map<String, GpuHint> ports = new LinkedHashMap<>();
        for (GpuHint g : gpus) {
            if (g.hca() != null) {
                ports.putIfAbsent(g.hca() + ":" + g.port(), g);
            }
        }
        if (ports.isEmpty()) {
            return null;
        }
        StringBuilder b = new StringBuilder("=");
        for (Map.Entry<String, GpuHint> e : ports.entrySet()) {
            b.append(b.length() > 1 ? "," : "").append(e.getKey());
            if (railPlane) {
                b.append(':').append(e.getValue().rail());
                if (e.getValue().plane() != null) {
                    b.append(':').append(e.getValue().plane());
                }
            }
        }
        return b.toString();
    }

    /** @return {@code PHB} or {@code SYS} for the farthest pair beyond PXB other than P2C, else null */
    public static String gdrLevel(List<GpuHint> gpus) {
        PcieDistance worst = null;
        for (GpuHint g : gpus) {
            PcieDistance d = g.distance();
            if (d != null && !d.gpuDirectByDefault() && (worst == null || d.compareTo(worst) > 0)) {
                worst = d;
            }
        }
        return worst == null ? null : worst == PcieDistance.SYS ? "SYS" : "PHB";
    }

    /** @return {@code 1} when some pair is P2C, else null */
    public static String gdrC2c(List<GpuHint> gpus) {
        return gpus.stream().anyMatch(g -> g.distance() == PcieDistance.P2C) ? "1" : null;
    }

    /**
     * The release a pod declares: its own {@value HintAnnotations#NCCL_VERSION}, else its PodGroup's (Volcano copies
     * the Job's annotations there).
     *
     * @param pod      the pod's annotations, or null
     * @param podGroup the PodGroup's annotations, or null
     * @return the version, or null when none is declared
     * @throws IllegalArgumentException naming the annotation and value when it is not a version
     */
    public static NcclVersion declared(Map<String, String> pod, Map<String, String> podGroup) {
        String v = pod == null ? null : pod.get(HintAnnotations.NCCL_VERSION);
        if (v == null && podGroup != null) {
            v = podGroup.get(HintAnnotations.NCCL_VERSION);
        }
        return NcclVersion.parse(v);
    }
}
