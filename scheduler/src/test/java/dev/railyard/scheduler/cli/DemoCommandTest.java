package dev.railyard.scheduler.cli;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Acceptance (issues 3 and 19): the README's first Quick start command is {@code ./railyard demo}, which runs exactly
 * {@code RailyardCommand.commandLine().execute("demo")}. The expected placements and reasons follow from the real
 * dumps in {@code demo/} and the demo's cluster file:
 * <ul>
 *   <li>case-06 (pcie-8gpu): with the demo's legend, mlx5_0..3 (NIC1, NIC3, NIC0, NIC2) are the cabled ports, two
 *       per PCIe complex, all PIX to the complex's GPUs; the pairing gives GPU0,1→mlx5_0 ... GPU6,7→mlx5_3;</li>
 *   <li>case-01 (DGX H100): rows GPU4..GPU7 are SYS to NIC0..NIC3 (mlx5_0..3, the only HCAs on the seed's
 *       networks), so an 8-GPU pod on those networks has 4 GPUs at ≤ PXB;</li>
 *   <li>case-05 (HGX, 4 NICs): GPU1, GPU3, GPU5 are SYS to every NIC and row GPU7 is cut, so 4 GPUs qualify.</li>
 * </ul>
 * The costs are the planner's ({@code docs/adr/0002-gang-plan-cost-function.md}): hops = Σ over pod pairs on
 * different nodes of 2·tier − 1; local = 10·Σ penalty + 4·Δ broken PCIe groups + free capable GPUs left on used
 * nodes; slack = free GPUs left in the chosen domain.
 */
class DemoCommandTest {
    private static final String SEP = System.lineSeparator();

    private record Run(int exit, String out, String svg) {
    }

    private static Run demo(Path svg, String... extra) throws Exception {
        StringWriter text = new StringWriter();
        CommandLine cmd = RailyardCommand.commandLine();
        cmd.setOut(new PrintWriter(text));
        String[] args = new String[extra.length + 3];
        args[0] = "demo";
        args[1] = "--svg";
        args[2] = svg.toString();
        System.arraycopy(extra, 0, args, 3, extra.length);
        int rc = cmd.execute(args);
        return new Run(rc, text.toString(), Files.readString(svg));
    }

    private static void assertReadable(String out) {
        // at most 150 characters a line; no raw JSON, no null fields, no repeated rail map (issue 19)
        assertThat(Arrays.stream(out.split(SEP)).mapToInt(String::length).max().orElse(0)).isLessThanOrEqualTo(150);
        assertThat(out).doesNotContain("{\"").doesNotContain("null").doesNotContain("uuid").doesNotContain("nodeGpus");
    }

    @Test
    void printsOneSummaryRowPerJobAndExplainsTheTermsOnce(@TempDir Path dir) throws Exception {
        Run run = demo(dir.resolve("demo.svg"));
        assertThat(run.exit()).isZero();
        String out = run.out();
        assertReadable(out);
        assertThat(out).contains("JOB                PODS  NODES               GPUs→HCA (rank 0)                       "
                + "     DIST  RAILS              COST   RESULT" + SEP);
        // 1. the seed's rdma-test: only fully free pcie-8gpu nodes qualify, gpu-a1 first; one node: 0 hops; every
        //    GPU PIX, the whole node taken: local 0; the node domain has 8 free GPUs, 8 taken: slack 0
        assertThat(out).contains("prod/rdma-test     1×8   gpu-a1              0,1→mlx5_0 2,3→mlx5_1 4,5→mlx5_2 "
                + "6,7→mlx5_3  PIX   {0×2,1×2,2×2,3×2}  0/0/0  node gpu-a1" + SEP);
        // 2. networkTopology hard tier 1: su1 has one full node left, su2 four; 6 pod pairs × 1 hop each; su2's 32
        //    free GPUs all taken
        assertThat(out).contains("prod/llm-pretrain  4×8   gpu-a5..gpu-a8 (4)  0,1→mlx5_0 2,3→mlx5_1 4,5→mlx5_2 "
                + "6,7→mlx5_3  PIX   {0×2,1×2,2×2,3×2}  6/0/0  leaf su2-leaf-r0 +3 more" + SEP);
        // 3. rail alignment required: gpu-a2 and gpu-a4 both have GPU4-7 free (rails 2, 3); one pair, 1 hop; each
        //    node's last free group taken whole: local 0; su1's rail 2/3 leaves keep gpu-a3's GPU0-3 free: slack 4
        assertThat(out).contains("prod/finetune      2×4   gpu-a2, gpu-a4      4,5→mlx5_2 6,7→mlx5_3                "
                + "        PIX   {2×2,3×2}          1/0/4  leaf su1-leaf-r2+su1-leaf-r3" + SEP);
        // 4. lan5 had 7 free addresses; jobs 1-3 took 1 + 4 + 2
        assertThat(out).contains("prod/eval          1×8   -                   -                                    "
                + "        -     -                  -      refused: pool" + SEP);
        assertThat(out).contains("192.168.16.0-22 exhausted" + SEP);
        assertThat(out.split("How to read it:", -1)).hasSize(2);
        assertThat(out).contains("COST      hops/local/slack").contains("DIST      the farthest PCIe path");
        assertThat(out).contains("  rdma-net-ipam-lan5   pool 192.168.16.0-22    0 of 1022 free (1015 allocated of which 3 stale, "
                + "7 held by the demo's pods)");
        assertThat(out).contains("each job's policy, pods, refused nodes and hints: railyard demo --verbose")
                .doesNotContain("== 1. Volcano Job");
    }

    @Test
    void verboseAddsEachJobsPodsRefusedNodesAndHintsInWords(@TempDir Path dir) throws Exception {
        Run run = demo(dir.resolve("demo.svg"), "--verbose");
        assertThat(run.exit()).isZero();
        String out = run.out();
        assertReadable(out);
        assertThat(out).contains("== 1. Volcano Job prod/rdma-test: 1 pod × 8 GPUs (task master)");
        assertThat(out).contains("  rank 0  rdma-test-master-0     -> gpu-a1  rails {0×2,1×2,2×2,3×2}  "
                + "GPU0,1→mlx5_0 PIX  GPU2,3→mlx5_1 PIX  GPU4,5→mlx5_2 PIX  GPU6,7→mlx5_3 PIX");
        // 5 free pcie nodes fit; gpu-b1, b3 (DGX) and gpu-c1..c4 (HGX) have 4 qualifying GPUs in all (their
        // hardware: no eviction helps); a2-a4, b2, b4 lack free GPUs; nodes failing alike share a line
        assertThat(out).contains("nodes: 5/16 nodes available: 6 too few GPUs pair at ≤ PXB, 5 insufficient free GPUs");
        assertThat(out).contains("  gpu-a2, gpu-a3, gpu-a4, gpu-b2: insufficient free GPUs: 8 needed, 4 free" + SEP);
        assertThat(out).contains("  gpu-c1, gpu-c2, gpu-c3, gpu-c4: too few GPUs pair at ≤ PXB: 8 GPUs needed at ≤ PXB "
                + "from the pod's HCAs, 4 qualify (GPU1 SYS to mlx5_0, GPU3 SYS to" + SEP
                + "      mlx5_1, GPU5 SYS to mlx5_2, GPU7 no usable HCA); 4 of the node's 8 GPUs pair so, free or not");
        // gpu-b2 (DGX) for the 4-GPU finetune pods: its PXB GPUs 0-3 are busy, so evicting could help
        assertThat(out).contains("  gpu-b2: no free GPU pair at ≤ PXB: 4 GPUs needed at ≤ PXB from the pod's HCAs, 0 "
                + "qualify (GPU4 SYS to mlx5_0, GPU5 SYS to mlx5_1, GPU6 SYS to" + SEP
                + "      mlx5_2, GPU7 SYS to mlx5_3); 4 more pair so but are held by pods on the node");
        // the incomplete-dump note is said in full once, then by reference
        assertThat(out.split("row NIC7 ends after 12 of 16 cells", -1)).hasSize(2);
        assertThat(out).contains("note: nodes gpu-a5, gpu-a6, gpu-a7, gpu-a8: NodeTopology incomplete (as above)");
        // the hint JSON in words: GPU0 of rdma-test-master-0 is on mlx5_0 (lan2, rail 0), the first network, net1
        assertThat(out).contains("    GPU0 → mlx5_0 port 1, lan2, rail 0, PIX, network prod/rdma-net-ipam-lan2 as net1");
        assertThat(out).contains("  rdma-test-master-0     nccl-ib-hca=\"=mlx5_0:1,mlx5_1:1,mlx5_2:1,mlx5_3:1\" "
                + "nccl-socket-ifname=\"=eth0\"");
        // credited to the object explain names: Volcano's PodGroup carries the Job's annotations
        assertThat(out).contains("  set by: railyard.dev/rail-alignment=required (PodGroup)");
        assertThat(out).contains("without rail alignment the cheapest plan would be gpu-a3 {0×2,1×2} + "
                + "gpu-a4 {2×2,3×2}: GPUs of equal local rank on different rails");
        assertThat(out).contains("unschedulable: pool 192.168.16.0-22 exhausted: network prod/rdma-net-ipam-lan5 (net4)");
    }

    @Test
    void svgHasALegendForRailsHcasAndPools(@TempDir Path dir) throws Exception {
        String picture = demo(dir.resolve("demo.svg")).svg();
        assertThat(picture).startsWith("<svg").contains(">gpu-a1<").contains(">su3-leaf-r7<")
                .contains("prod/llm-pretrain on gpu-a5, gpu-a6, gpu-a7, gpu-a8")
                .contains("prod/eval unschedulable: pool 192.168.16.0-22 exhausted");
        // lan2 is mlx5_0's netdev and mlx5_0 is rail 0 on every demo machine; its pool lost 7 addresses to the
        // demo's 7 pods (1022 usable, 40 allocated before)
        assertThat(picture).contains(">rail 0, mlx5_0, lan2: network rdma-net-ipam-lan2, pool 192.168.4.0-22 "
                + "(192.168.4.0/22), 975 of 1022 addresses free after the demo<");
        assertThat(picture).contains(">cables: one per rail from a node to its rail's leaf; rail r = the node's HCA mlx5_r");
    }

    @Test
    void svgOptionWritesElsewhere(@TempDir Path dir) throws Exception {
        Path target = dir.resolve("fabric.svg");
        Run run = demo(target);
        assertThat(run.exit()).isZero();
        assertThat(run.svg()).startsWith("<svg");
        assertThat(run.out()).endsWith("fabric picture with the placements: " + target + SEP);
    }

    @Test
    void svgInAMissingDirectoryIsOneLineAndCreatesNothing(@TempDir Path dir) {
        // was: the directory was created (demo --svg /nonexistent/x.svg made /nonexistent/); now a typo is said
        // before any output and leaves nothing behind
        Path target = dir.resolve("pics/fabric.svg");
        CommandLine cmd = RailyardCommand.commandLine();
        StringWriter text = new StringWriter();
        StringWriter err = new StringWriter();
        cmd.setOut(new PrintWriter(text));
        cmd.setErr(new PrintWriter(err));
        assertThat(cmd.execute("demo", "--svg", target.toString())).isEqualTo(2);
        assertThat(err.toString()).isEqualTo("railyard: --svg " + target + ": directory " + dir.resolve("pics")
                + " does not exist" + SEP);
        assertThat(text.toString()).isEmpty();
        assertThat(dir.resolve("pics")).doesNotExist();
    }

    @Test
    void svgNamingADirectoryIsRefusedBeforeAnyOutput(@TempDir Path dir) {
        CommandLine cmd = RailyardCommand.commandLine();
        StringWriter text = new StringWriter();
        StringWriter err = new StringWriter();
        cmd.setOut(new PrintWriter(text));
        cmd.setErr(new PrintWriter(err));
        assertThat(cmd.execute("demo", "--svg", dir.toString())).isEqualTo(2);
        assertThat(err.toString()).isEqualTo("railyard: --svg " + dir + ": is a directory; give a file name such as "
                + dir.resolve("railyard-demo.svg") + SEP);
        assertThat(text.toString()).isEmpty();
    }

    @Test
    void mistypedSubcommandGetsASuggestion() {
        CommandLine cmd = RailyardCommand.commandLine();
        StringWriter err = new StringWriter();
        cmd.setErr(new PrintWriter(err));
        assertThat(cmd.execute("topolgy")).isEqualTo(2);
        assertThat(err.toString()).contains("; did you mean topology").doesNotContain(SEP + "r");
    }
}
