package dev.railyard.scheduler.cli;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;

import static org.assertj.core.api.Assertions.assertThat;

class TopologyCollectCommandTest {
    @TempDir
    Path dir;

    private final StringWriter out = new StringWriter();
    private final StringWriter err = new StringWriter();

    private int run(String... args) {
        CommandLine cli = RailyardCommand.commandLine();
        cli.setOut(new PrintWriter(out, true));
        cli.setErr(new PrintWriter(err, true));
        return cli.execute(args);
    }

    /**
     * A minimal host below {@code root}: one H100 and one ConnectX-7 (mlx5_0, netdev lan2) behind one PCIe switch
     * (root port 17:01.0, upstream port 18:00.0, downstream ports 19:00.0 / 19:01.0), NUMA node 0, plus the BMC's
     * VGA controller that is not a GPU. Laid out like the kernel's sysfs, relative symlinks included.
     */
    static void writeHost(Path root) throws IOException {
        Path sys = root.resolve("sys");
        Path hb = sys.resolve("devices/pci0000:17");
        Path rp = hb.resolve("0000:17:01.0");
        Path usp = rp.resolve("0000:18:00.0");
        Path gpu = usp.resolve("0000:19:00.0/0000:1a:00.0");
        Path nic = usp.resolve("0000:19:01.0/0000:1b:00.0");
        Path vga = sys.resolve("devices/pci0000:00/0000:00:1c.0/0000:02:00.0");
        function(rp, "0x060400", "0x8086");
        function(usp, "0x060400", "0x1000");
        function(usp.resolve("0000:19:00.0"), "0x060400", "0x1000");
        function(usp.resolve("0000:19:01.0"), "0x060400", "0x1000");
        function(gpu, "0x030200", "0x10de");
        function(nic, "0x020000", "0x15b3");
        function(vga, "0x030000", "0x1a03");
        for (Path f : new Path[]{rp, usp, gpu, nic, vga}) {
            link(sys.resolve("bus/pci/devices").resolve(f.getFileName().toString()), f);
        }
        Path ib = nic.resolve("infiniband/mlx5_0");
        link(ib.resolve("device"), nic);
        link(sys.resolve("class/infiniband/mlx5_0"), ib);
        Path port = ib.resolve("ports/1");
        write(port.resolve("state"), "4: ACTIVE");
        write(port.resolve("link_layer"), "Ethernet");
        write(port.resolve("rate"), "400 Gb/sec (4X NDR)");
        write(port.resolve("gids/0"), "fe80:0000:0000:0000:0000:00ff:fe00:0001");
        write(port.resolve("gids/1"), "0000:0000:0000:0000:0000:0000:0000:0000");
        Path net = nic.resolve("net/lan2");
        link(net.resolve("device"), nic);
        write(net.resolve("dev_port"), "0");
        link(sys.resolve("class/net/lan2"), net);
        write(sys.resolve("devices/system/node/node0/cpulist"), "0-63");
    }

    private static void function(Path dir, String cls, String vendor) throws IOException {
        write(dir.resolve("class"), cls);
        write(dir.resolve("vendor"), vendor);
        write(dir.resolve("numa_node"), "0");
    }

    private static void write(Path file, String text) throws IOException {
        Files.createDirectories(file.getParent());
        Files.writeString(file, text + "\n");
    }

    private static void link(Path at, Path target) throws IOException {
        Files.createDirectories(at.getParent());
        Files.createSymbolicLink(at, at.getParent().relativize(target));
    }

    @Test
    void collectsAnArchiveThatTopologyPairReadsBack() throws IOException {
        Path host = dir.resolve("host");
        writeHost(host);
        Path archive = dir.resolve("node-a.tar.gz");

        int code = run("topology", "collect", "--root", host.toString(), "--out", archive.toString());

        assertThat(code).isZero();
        assertThat(err.toString()).isEmpty();
        // one GPU and one HCA in the singular (was: "1 GPUs, 1 HCAs")
        assertThat(out.toString()).startsWith("wrote " + archive + ": ")
                .contains("from " + host + "; 1 GPU, 1 HCA" + System.lineSeparator());
        assertThat(archive).isRegularFile();

        out.getBuffer().setLength(0);
        code = run("topology", "pair", archive.toString(), "--format", "sysfs", "--output", "json");
        assertThat(code).isZero();
        // GPU 1a:00.0 and mlx5_0 (1b:00.0) share switch 18:00.0: PIX, rail 0.
        assertThat(out.toString().replaceAll("\\s", ""))
                .contains("\"pairs\":[{\"gpu\":0,\"hca\":\"mlx5_0\",\"distance\":\"PIX\",\"rail\":0")
                .contains("\"complete\":true");
    }

    @Test
    void autoFormatReadsTheArchiveToo() throws IOException {
        Path host = dir.resolve("host");
        writeHost(host);
        Path archive = dir.resolve("snap.tar.gz");
        assertThat(run("topology", "collect", "--out", archive.toString(), "--root", host.resolve("sys").toString()))
                .isZero();
        out.getBuffer().setLength(0);

        assertThat(run("topology", "pair", archive.toString(), "--output", "json")).isZero();
        assertThat(out.toString().replaceAll("\\s", "")).contains("\"hca\":\"mlx5_0\",\"distance\":\"PIX\"");
    }

    @Test
    void rootWithoutSysfsIsOneLineAndExitTwo() throws IOException {
        Path empty = Files.createDirectories(dir.resolve("empty"));

        int code = run("topology", "collect", "--root", empty.toString(), "--out", dir.resolve("x.tar.gz").toString());

        assertThat(code).isEqualTo(2);
        assertThat(err.toString()).isEqualTo("railyard: " + empty + ": empty directory, expected a sysfs tree ("
                + empty.resolve("sys") + "/bus/pci/devices)" + System.lineSeparator());
        assertThat(dir.resolve("x.tar.gz")).doesNotExist();
    }

    @Test
    void outIsRequired() {
        assertThat(run("topology", "collect")).isEqualTo(2);
        assertThat(err.toString()).contains("Missing required option: '--out=FILE.tar.gz'");
    }
}
