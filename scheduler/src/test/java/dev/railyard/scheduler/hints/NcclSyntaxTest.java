package dev.railyard.scheduler.hints;

import dev.railyard.api.hints.HintAnnotations;
import dev.railyard.api.hints.NcclVersion;
import dev.railyard.api.hints.PlacementHint;
import dev.railyard.api.hints.PlacementHint.GpuHint;
import dev.railyard.api.topology.PcieDistance;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The NCCL settings syntax by declared release, checked against NCCL's own parsers (docs/formats/nccl-env.md):
 * {@link #parseNccl2307} follows {@code parseStringList} of NCCL 2.30.7 ({@code src/misc/utils.cc}: entries split on
 * {@code ,} by {@code strtok_r}, fields on {@code :} by {@code strsep}, an absent or empty field is -1) behind the
 * {@code ^}/{@code =} prefixes of {@code src/transport/net_ib/init.cc}; {@link #parseNcclBefore2305} follows the
 * character loop of 2.30.4 and earlier (the port is {@code atoi} of what follows the first {@code :}, the rest of the
 * entry is skipped).
 */
public class NcclSyntaxTest {
    /** One parsed NCCL_IB_HCA entry. */
    public record Entry(String prefix, int port, int rail, int plane) {
    }

    /** {@code = exact} flag and the entries, as NCCL 2.30.7 reads them. */
    public record Parsed(boolean exact, List<Entry> entries) {
    }

    public static Parsed parseNccl2307(String value) {
        String s = value;
        if (s.startsWith("^")) {
            s = s.substring(1);
        }
        boolean exact = s.startsWith("=");
        if (exact) {
            s = s.substring(1);
        }
        List<Entry> out = new ArrayList<>();
        for (String entry : s.split(",")) {
            if (entry.isEmpty()) {
                continue;  // strtok_r skips empty tokens
            }
            String[] f = entry.split(":", -1);
            if (f[0].isEmpty()) {
                continue;
            }
            out.add(new Entry(f[0], field(f, 1), field(f, 2), field(f, 3)));
        }
        return new Parsed(exact, out);
    }

    public static List<Entry> parseNcclBefore2305(String value) {
        String s = value.replaceFirst("^\\^", "").replaceFirst("^=", "");
        List<Entry> out = new ArrayList<>();
        for (String entry : s.split(",")) {
            int colon = entry.indexOf(':');
            if (colon < 0) {
                if (!entry.isEmpty()) {
                    out.add(new Entry(entry, -1, -1, -1));
                }
            } else if (colon > 0) {
                out.add(new Entry(entry.substring(0, colon), atoi(entry.substring(colon + 1)), -1, -1));
            }
        }
        return out;
    }

    private static int field(String[] f, int i) {
        return i < f.length && !f[i].isEmpty() ? atoi(f[i]) : -1;
    }

    /** C {@code atoi}: leading decimal digits, 0 when none. */
    private static int atoi(String s) {
        int i = 0;
        while (i < s.length() && Character.isDigit(s.charAt(i))) {
            i++;
        }
        return i == 0 ? 0 : Integer.parseInt(s.substring(0, i));
    }

    private static GpuHint gpu(int gpu, String hca, int rail, PcieDistance d, Integer plane) {
        return new GpuHint(gpu, null, null, hca, 1, null, rail, d, null, null, plane);
    }

    private static PlacementHint hint(List<GpuHint> gpus) {
        return new PlacementHint(1, "n1", "prod/j", 2, 0, List.of(), gpus,
                new PlacementHint.NcclSettings("=ignored", "=eth0", "192.168.0.0/20", "AF_INET", null));
    }

    private static final List<GpuHint> TWO_RAILS = List.of(gpu(0, "mlx5_0", 0, PcieDistance.PIX, null),
            gpu(1, "mlx5_0", 0, PcieDistance.PIX, null), gpu(2, "mlx5_3", 1, PcieDistance.PXB, null));

    @Test
    void withoutADeclaredReleaseTheSyntaxIsTheOneEveryReleaseAccepts() {
        PlacementHint h = NcclSyntax.forVersion(hint(TWO_RAILS), null);

        assertThat(h.nccl().ibHca()).isEqualTo("=mlx5_0:1,mlx5_3:1");
        assertThat(h.nccl().netMergePolicy()).isNull();
        assertThat(h.ncclVersion()).isNull();
        // both parsers read the same two HCAs, exact match, port 1, no rail
        assertThat(parseNccl2307(h.nccl().ibHca())).isEqualTo(new Parsed(true,
                List.of(new Entry("mlx5_0", 1, -1, -1), new Entry("mlx5_3", 1, -1, -1))));
        assertThat(parseNcclBefore2305(h.nccl().ibHca())).containsExactly(new Entry("mlx5_0", 1, -1, -1),
                new Entry("mlx5_3", 1, -1, -1));
        // the rest is kept
        assertThat(h.nccl().socketIfname()).isEqualTo("=eth0");
        assertThat(h.nccl().ibAddrRange()).isEqualTo("192.168.0.0/20");
    }

    @Test
    void from2305EachEntryCarriesItsRailAndPlaneAndHcasMergeOnlyWithinARail() {
        List<GpuHint> gpus = List.of(gpu(0, "mlx5_0", 0, PcieDistance.PXB, 0),
                gpu(1, "mlx5_1", 1, PcieDistance.PXB, 1), gpu(2, "mlx5_2", 2, PcieDistance.PXB, null));
        PlacementHint h = NcclSyntax.forVersion(hint(gpus), NcclVersion.parse("2.30.7-1"));

        assertThat(h.nccl().ibHca()).isEqualTo("=mlx5_0:1:0:0,mlx5_1:1:1:1,mlx5_2:1:2");
        assertThat(h.nccl().netMergePolicy()).isEqualTo("RAIL");
        assertThat(h.ncclVersion()).isEqualTo("2.30.7");
        assertThat(parseNccl2307(h.nccl().ibHca())).isEqualTo(new Parsed(true, List.of(
                new Entry("mlx5_0", 1, 0, 0), new Entry("mlx5_1", 1, 1, 1), new Entry("mlx5_2", 1, 2, -1))));
        // an older NCCL that was declared wrongly still reads HCA and port (its parser stops at the second colon)
        assertThat(parseNcclBefore2305(h.nccl().ibHca())).containsExactly(new Entry("mlx5_0", 1, -1, -1),
                new Entry("mlx5_1", 1, -1, -1), new Entry("mlx5_2", 1, -1, -1));
        assertThat(PlacementHints.annotations(h)).containsEntry(HintAnnotations.NCCL_NET_MERGE_POLICY, "RAIL")
                .containsEntry(HintAnnotations.NCCL_IB_HCA, "=mlx5_0:1:0:0,mlx5_1:1:1:1,mlx5_2:1:2");
    }

    @Test
    void releasesBefore2305KeepTheClassicSyntax() {
        // NCCL_NET_MERGE_POLICY is documented "since 2.30.5"; 2.30.4 has the old parser
        for (String v : List.of("2.30.4", "2.30", "2.29.7", "2.21.5")) {
            PlacementHint h = NcclSyntax.forVersion(hint(TWO_RAILS), NcclVersion.parse(v));
            assertThat(h.nccl().ibHca()).as(v).isEqualTo("=mlx5_0:1,mlx5_3:1");
            assertThat(h.nccl().netMergePolicy()).as(v).isNull();
        }
        assertThat(NcclSyntax.forVersion(hint(TWO_RAILS), NcclVersion.parse("2.30.5")).nccl().ibHca())
                .isEqualTo("=mlx5_0:1:0,mlx5_3:1:1");
    }

    @Test
    void c2cPairsAskForGpuDirectOverC2cNotForAGdrLevel() {
        List<GpuHint> grace = List.of(gpu(0, "mlx5_0", 0, PcieDistance.P2C, null),
                gpu(1, "mlx5_1", 1, PcieDistance.P2C, null));
        PlacementHint h = NcclSyntax.forVersion(hint(grace), null);
        assertThat(h.nccl().netGdrC2c()).isEqualTo("1");
        assertThat(h.nccl().netGdrLevel()).isNull();
        assertThat(h.nccl().asEnvironment()).containsEntry("NCCL_NET_GDR_C2C", "1")
                .doesNotContainKey("NCCL_NET_GDR_LEVEL");

        List<GpuHint> mixed = List.of(gpu(0, "mlx5_0", 0, PcieDistance.P2C, null),
                gpu(1, "mlx5_9", 1, PcieDistance.SYS, null));
        PlacementHint m = NcclSyntax.forVersion(hint(mixed), null);
        assertThat(m.nccl().netGdrLevel()).isEqualTo("SYS");
        assertThat(m.nccl().netGdrC2c()).isEqualTo("1");
    }

    @Test
    void theDeclaredReleaseIsThePodsElseThePodGroupsAndAMalformedOneIsNamed() {
        assertThat(NcclSyntax.declared(Map.of(HintAnnotations.NCCL_VERSION, "2.30.7"),
                Map.of(HintAnnotations.NCCL_VERSION, "2.27.3"))).isEqualTo(new NcclVersion(2, 30, 7));
        assertThat(NcclSyntax.declared(Map.of(), Map.of(HintAnnotations.NCCL_VERSION, "v2.27.3")))
                .isEqualTo(new NcclVersion(2, 27, 3));
        assertThat(NcclSyntax.declared(null, null)).isNull();
        assertThatThrownBy(() -> NcclSyntax.declared(Map.of(HintAnnotations.NCCL_VERSION, "latest"), null))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("annotation railyard.dev/nccl-version: 'latest' is not an NCCL version (expected "
                        + "MAJOR.MINOR[.PATCH], e.g. 2.30.7)");
    }

    @Test
    void rewriteAppliesThePodsDeclarationToBindTimeAnnotations() {
        Map<String, String> classic = PlacementHints.annotations(NcclSyntax.forVersion(hint(TWO_RAILS), null));
        Map<String, String> rewritten = NcclSyntax.rewrite(classic, Map.of(HintAnnotations.NCCL_VERSION, "2.30.7"),
                null);
        assertThat(rewritten).containsEntry(HintAnnotations.NCCL_IB_HCA, "=mlx5_0:1:0,mlx5_3:1:1")
                .containsEntry(HintAnnotations.NCCL_NET_MERGE_POLICY, "RAIL");
        assertThat(rewritten.get(HintAnnotations.PLACEMENT)).contains("\"ncclVersion\":\"2.30.7\"");
        // no declaration, or a malformed one (logged): unchanged
        assertThat(NcclSyntax.rewrite(classic, Map.of(), null)).isSameAs(classic);
        assertThat(NcclSyntax.rewrite(classic, Map.of(HintAnnotations.NCCL_VERSION, "x.y"), null)).isSameAs(classic);
    }
}
