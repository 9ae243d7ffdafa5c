package dev.railyard.scheduler.cli;

import org.junit.jupiter.api.Test;
import picocli.CommandLine;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Acceptance (issue 3): the README's first Quick start command is {@code ./railyard demo}, which runs exactly
 * {@code RailyardCommand.commandLine().execute("demo")}. The expected placements and reasons follow from the real
 * dumps in {@code demo/} and the demo's cluster file:
 * <ul>
 *   <li>case-06 (pcie-8gpu): with the demo's legend, mlx5_0..3 (NIC1, NIC3, NIC0, NIC2) are the cabled ports, two
 *       per PCIe complex, all PIX to the complex's GPUs; the pairing gives GPU0,1→mlx5_0 ... GPU6,7→mlx5_3;</li>
 *   <li>case-01 (DGX H100): rows GPU4..GPU7 are SYS to NIC0..NIC3 (mlx5_0..3, the only HCAs on the seed's
 *       networks), so an 8-GPU pod on those networks has 4 GPUs at ≤ PXB;</li>
 *   <li>case-05 (HGX, 4 NICs): GPU1, GPU3, GPU5 are SYS to every NIC and row GPU7 is cut, so 4 GPUs qualify.</li>
 * </ul>
 */
class DemoCommandTest {
    @Test
    void demoPlacesTheJobsAndExplainsRejectedNodes() throws Exception {
        Path svg = Path.of(DemoCommand.DEFAULT_SVG);
        boolean existed = Files.exists(svg);
        StringWriter text = new StringWriter();
        CommandLine cmd = RailyardCommand.commandLine();
        cmd.setOut(new PrintWriter(text));
        int rc;
        String picture;
        try {
            rc = cmd.execute("demo");
            picture = Files.readString(svg);
        } finally {
            if (!existed) {
                Files.deleteIfExists(svg);
            }
        }
        String out = text.toString();
        assertThat(rc).isZero();

        // 1. the seed's rdma-test: only fully free pcie-8gpu nodes qualify; gpu-a1 is the first of them
        assertThat(out).contains("== 1. Volcano Job prod/rdma-test: 1 × 8 GPUs (task master)");
        assertThat(out).contains("placed: 1 node in gpu-a1 (tier 0, node)");
        assertThat(out).contains("rank 0  rdma-test-master-0     -> gpu-a1  rails {0×2,1×2,2×2,3×2}  "
                + "GPU0,1→mlx5_0 PIX  GPU2,3→mlx5_1 PIX  GPU4,5→mlx5_2 PIX  GPU6,7→mlx5_3 PIX");
        // 5 free pcie nodes fit; gpu-b1, b3 (DGX) and gpu-c1..c4 (HGX) have 4 qualifying GPUs; a2-a4, b2, b4 lack
        // free GPUs
        assertThat(out).contains("nodes: 5/16 nodes available: 6 no free GPU pair at ≤ PXB, 5 insufficient free GPUs");
        assertThat(out).contains("  gpu-b1  no free GPU pair at ≤ PXB: 8 GPUs needed at ≤ PXB from the pod's HCAs, "
                + "4 qualify (GPU4 SYS to mlx5_0, GPU5 SYS to mlx5_1, GPU6 SYS to mlx5_2, GPU7 SYS to mlx5_3)");
        assertThat(out).contains("  gpu-c1  no free GPU pair at ≤ PXB: 8 GPUs needed at ≤ PXB from the pod's HCAs, "
                + "4 qualify (GPU1 SYS to mlx5_0, GPU3 SYS to mlx5_1, GPU5 SYS to mlx5_2, GPU7 no usable HCA)");
        assertThat(out).contains("  gpu-a2  insufficient free GPUs: 8 needed, 4 free");
        assertThat(out).contains("  rdma-test-master-0     nccl-ib-hca=\"=mlx5_0:1,mlx5_1:1,mlx5_2:1,mlx5_3:1\" "
                + "nccl-socket-ifname=\"=eth0\" nccl-ib-addr-range=\"192.168.0.0/19\" nccl-ib-addr-family=\"AF_INET\" "
                + "rank=\"0\" rails=\"0,0,1,1,2,2,3,3\"");
        assertThat(out).contains("\"hca\":\"mlx5_0\",\"port\":1,\"netdev\":\"lan2\",\"rail\":0,\"distance\":\"PIX\","
                + "\"network\":\"prod/rdma-net-ipam-lan2\",\"interface\":\"net1\"");

        // 2. the 4 x 8 gang with networkTopology hard tier 1: su1 has one full node left, su2 has four
        assertThat(out).contains("fabric scope leaf (required)");
        assertThat(out).contains("placed: 4 nodes in su2-leaf-r0 +3 more (tier 1, leaf); cost: 6 switch hops");
        for (int r = 0; r < 4; r++) {
            assertThat(out).contains("rank " + r + "  llm-pretrain-worker-" + r + "  -> gpu-a" + (5 + r));
        }

        // 3. rail alignment required: gpu-a2 and gpu-a4 both offer rails {2×2,3×2}; unaligned, a3 {0×2,1×2} + a4
        assertThat(out).contains("rank 0  finetune-worker-0      -> gpu-a2  rails {2×2,3×2}");
        assertThat(out).contains("rank 1  finetune-worker-1      -> gpu-a4  rails {2×2,3×2}");
        assertThat(out).contains("without rail alignment the cheapest plan would be gpu-a3 {0×2,1×2} + "
                + "gpu-a4 {2×2,3×2}: GPUs of equal local rank on different rails");

        // 4. lan5 had 7 free addresses; jobs 1-3 took 1 + 4 + 2
        assertThat(out).contains("== 4. Volcano Job prod/eval");
        assertThat(out).contains("unschedulable: pool 192.168.16.0-22 exhausted: network prod/rdma-net-ipam-lan5 "
                + "(net4): pool 192.168.16.0-22 (in kube-system, range 192.168.16.0/22, addresses "
                + "192.168.16.1-192.168.19.254): 0 of 1022 free (1015 allocated of which 3 stale, 0 reserved by "
                + "other ranges, 7 in flight), 1 needed");

        assertThat(picture).startsWith("<svg").contains(">gpu-a1<").contains(">su3-leaf-r7<")
                .contains("prod/llm-pretrain on gpu-a5, gpu-a6, gpu-a7, gpu-a8")
                .contains("prod/eval unschedulable: pool 192.168.16.0-22 exhausted");
    }

    @Test
    void svgOptionWritesElsewhere(@org.junit.jupiter.api.io.TempDir Path dir) throws Exception {
        Path target = dir.resolve("fabric.svg");
        CommandLine cmd = RailyardCommand.commandLine();
        StringWriter text = new StringWriter();
        cmd.setOut(new PrintWriter(text));
        assertThat(cmd.execute("demo", "--svg", target.toString())).isZero();
        assertThat(Files.readString(target)).startsWith("<svg");
        assertThat(text.toString()).endsWith("fabric picture with the placements: " + target + System.lineSeparator());
    }

    @Test
    void svgInAMissingDirectoryIsOneLineAndCreatesNothing(@org.junit.jupiter.api.io.TempDir Path dir) {
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
                + " does not exist" + System.lineSeparator());
        assertThat(text.toString()).isEmpty();
        assertThat(dir.resolve("pics")).doesNotExist();
    }
}
