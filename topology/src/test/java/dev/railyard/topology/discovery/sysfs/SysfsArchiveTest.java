package dev.railyard.topology.discovery.sysfs;

import dev.railyard.api.topology.NodeTopologySpec;
import dev.railyard.topology.InputException;
import org.apache.commons.compress.archivers.tar.TarArchiveEntry;
import org.apache.commons.compress.archivers.tar.TarArchiveInputStream;
import org.apache.commons.compress.archivers.tar.TarArchiveOutputStream;
import org.apache.commons.compress.archivers.tar.TarConstants;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import java.util.zip.GZIPInputStream;
import java.util.zip.GZIPOutputStream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class SysfsArchiveTest {
    @TempDir
    Path dir;

    private final SysfsTopologyParser parser = new SysfsTopologyParser();

    /** @return archive entries: name to link target (symlinks), "<dir>" or the file content */
    private static Map<String, String> entries(Path archive) throws Exception {
        Map<String, String> out = new HashMap<>();
        try (InputStream in = Files.newInputStream(archive);
             TarArchiveInputStream tar = new TarArchiveInputStream(new GZIPInputStream(in))) {
            TarArchiveEntry e;
            while ((e = tar.getNextEntry()) != null) {
                if (e.isSymbolicLink()) {
                    out.put(e.getName(), "-> " + e.getLinkName());
                } else if (e.isDirectory()) {
                    out.put(e.getName(), "<dir>");
                } else {
                    out.put(e.getName(), new String(tar.readAllBytes(), StandardCharsets.UTF_8));
                }
            }
        }
        return out;
    }

    @Test
    void collectThenParseTheArchiveReproducesTheTree() {
        Path host = dir.resolve("host");
        SysfsMachineShapes.h100TwoGpusPerNicCase05(host).builder().virtualNetdev("lo");
        NodeTopologySpec direct = parser.parse(host);

        Path archive = dir.resolve("node-a-sysfs.tar.gz");
        SysfsArchive.Summary summary = SysfsArchive.collect(host, archive);
        NodeTopologySpec fromArchive = parser.parse(archive);

        assertThat(fromArchive).isEqualTo(direct);
        assertThat(summary.discovery().spec()).isEqualTo(direct);
        assertThat(summary.files()).isPositive();
        assertThat(summary.symlinks()).isPositive();
    }

    @Test
    void collectThenExtractAndParseReproducesTheTree() {
        Path host = dir.resolve("host");
        SysfsMachineShapes.a100FourNumaCase03(host);
        Path archive = dir.resolve("snap.tar.gz");
        SysfsArchive.collect(host, archive);
        Path extracted = dir.resolve("extracted");
        SysfsArchive.extract(archive, mkdir(extracted));

        assertThat(parser.parse(extracted)).isEqualTo(parser.parse(host));
    }

    @Test
    void archiveHoldsExactlyWhatTheParserReads() throws Exception {
        Path host = dir.resolve("host");
        SysfsMachineShapes.dgxH100Case01(host);
        Path archive = dir.resolve("snap.tar.gz");
        SysfsArchive.collect(host, archive);
        Map<String, String> entries = entries(archive);

        // Symlinks stay symlinks with their relative targets (built by SysfsTreeBuilder like the kernel's).
        assertThat(entries.get("sys/bus/pci/devices/0000:18:00.0"))
                .isEqualTo("-> ../../../devices/pci0000:15/0000:15:01.0/0000:16:00.0/0000:17:00.0/0000:18:00.0");
        assertThat(entries.get("sys/class/infiniband/mlx5_0")).startsWith("-> ../../devices/pci0000:15/");
        assertThat(entries.get("sys/devices/pci0000:15/0000:15:01.0/0000:16:00.0/0000:17:01.0/0000:19:00.0/"
                + "infiniband/mlx5_0/ports/1/state")).isEqualTo("4: ACTIVE\n");
        assertThat(entries.get("sys/devices/system/node/node1/cpulist")).isEqualTo("48-95,144-191\n");
        assertThat(entries).containsKey("sys/devices/pci0000:15/0000:15:01.0/0000:16:00.0/0000:17:00.0/"
                + "0000:18:00.0/numa_node");
        // Files the parser never opens are not collected: phys_state, GID attributes of empty entries, the
        // operstate of netdevs, bridge link speeds.
        assertThat(entries.keySet()).noneMatch(k -> k.endsWith("/phys_state"));
        assertThat(entries.keySet()).noneMatch(k -> k.endsWith("/operstate"));
        assertThat(entries.keySet()).noneMatch(k -> k.contains("gid_attrs/types/5"));
        assertThat(entries.keySet()).noneMatch(k -> k.equals(
                "sys/devices/pci0000:15/0000:15:01.0/current_link_speed"));
        assertThat(entries.keySet()).allMatch(k -> k.startsWith("sys/"));
    }

    @Test
    void brokenLinksAreArchivedAndReproduceTheSameWarning() {
        Path host = dir.resolve("host");
        SysfsMachineShapes.rtx6000AdaCase07(host).builder()
                .breakLink("class/infiniband/mlx5_3/device", "../../../0000:81:00.7");
        Path archive = dir.resolve("snap.tar.gz");
        SysfsArchive.collect(host, archive);
        NodeTopologySpec spec = parser.parse(archive);

        assertThat(spec.complete()).isFalse();
        // Named inside the archive, not after the temporary directory it was extracted to.
        assertThat(spec.warnings()).anySatisfy(w -> assertThat(w).startsWith(archive + "!/sys/devices/pci0000:80/")
                .endsWith("infiniband/mlx5_3/device: broken symlink to ../../../0000:81:00.7"));
    }

    @Test
    void archiveOfAHostWithoutGpuOrHcaIsAnInputErrorNamingTheArchive() {
        Path host = dir.resolve("host");
        new SysfsTreeBuilder(host).pciFunction("pci0000:00/0000:00:1f.0", "0x060100", "0x8086", "0x1234", 0);
        Path archive = dir.resolve("cpu-node.tar.gz");
        SysfsArchive.Summary summary = SysfsArchive.collect(host, archive);
        assertThat(summary.discovery().spec().gpus()).isEmpty();

        assertThatThrownBy(() -> parser.parse(archive)).isInstanceOf(InputException.class)
                .hasMessage(archive + "!/sys: no NVIDIA GPU (vendor 0x10de, class 0x0300/0x0302) under " + archive
                        + "!/sys/bus/pci/devices and no RDMA device under " + archive + "!/sys/class/infiniband");
    }

    @Test
    void entryEscapingTheTargetIsRefused() throws Exception {
        Path archive = dir.resolve("evil.tar.gz");
        writeTar(archive, "sys/../../evil", "x", null);
        Path into = mkdir(dir.resolve("into"));
        assertThatThrownBy(() -> SysfsArchive.extract(archive, into)).isInstanceOf(InputException.class)
                .hasMessage(archive + ": entry sys/../../evil would be extracted outside the target directory");
        assertThat(dir.resolve("evil")).doesNotExist();
    }

    @Test
    void entryThroughASymlinkIsRefused() throws Exception {
        Path archive = dir.resolve("evil.tar.gz");
        Path outside = mkdir(dir.resolve("outside"));
        try (OutputStream out = Files.newOutputStream(archive);
             TarArchiveOutputStream tar = new TarArchiveOutputStream(new GZIPOutputStream(out))) {
            TarArchiveEntry link = new TarArchiveEntry("sys/x", TarConstants.LF_SYMLINK);
            link.setLinkName(outside.toString());
            tar.putArchiveEntry(link);
            tar.closeArchiveEntry();
            byte[] body = "pwned".getBytes(StandardCharsets.UTF_8);
            TarArchiveEntry file = new TarArchiveEntry("sys/x/file");
            file.setSize(body.length);
            tar.putArchiveEntry(file);
            tar.write(body);
            tar.closeArchiveEntry();
        }
        Path into = mkdir(dir.resolve("into"));
        assertThatThrownBy(() -> SysfsArchive.extract(archive, into)).isInstanceOf(InputException.class)
                .hasMessage(archive + ": entry sys/x/file would be extracted through the symlink sys/x");
        assertThat(outside.resolve("file")).doesNotExist();
    }

    @Test
    void corruptArchiveIsAnInputErrorNamingIt() throws Exception {
        Path archive = dir.resolve("broken.tar.gz");
        Files.write(archive, new byte[]{0x1f, (byte) 0x8b, 8, 0, 1, 2, 3});
        assertThatThrownBy(() -> parser.parse(archive)).isInstanceOf(InputException.class)
                .hasMessageStartingWith(archive + ": not a readable tar.gz sysfs snapshot");
    }

    @Test
    void archiveWithoutSysfsIsAnInputError() throws Exception {
        Path archive = dir.resolve("other.tar.gz");
        writeTar(archive, "etc/hostname", "node-a\n", null);
        assertThatThrownBy(() -> parser.parse(archive)).isInstanceOf(InputException.class)
                .hasMessageContaining(": not a sysfs tree: neither ");
    }

    @Test
    void unwritableOutputIsAnInputError() {
        Path host = dir.resolve("host");
        SysfsMachineShapes.rtx6000AdaCase07(host);
        Path out = dir.resolve("no/such/dir/snap.tar.gz");
        assertThatThrownBy(() -> SysfsArchive.collect(host, out)).isInstanceOf(InputException.class)
                .hasMessageStartingWith(out + ": cannot write archive");
    }

    @Test
    void truncatedArchiveSaysSoWithoutJavaWording() throws Exception {
        // a real collect archive cut in half, as a bug report attachment cut off by a size limit
        Path host = dir.resolve("host");
        SysfsMachineShapes.rtx6000AdaCase07(host);
        Path whole = dir.resolve("whole.tar.gz");
        SysfsArchive.collect(host, whole);
        byte[] bytes = Files.readAllBytes(whole);
        Path cut = dir.resolve("cut.tar.gz");
        Files.write(cut, java.util.Arrays.copyOf(bytes, bytes.length / 2));
        // was: "... snapshot (Unexpected end of ZLIB input stream)", the JDK's EOFException text
        assertThatThrownBy(() -> parser.parse(cut)).isInstanceOf(InputException.class)
                .hasMessage(cut + ": not a readable tar.gz sysfs snapshot: ends early (truncated?)");
    }

    @Test
    void fileNamedLikeAnArchiveButNotOneSaysSo() throws Exception {
        Path junk = dir.resolve("junk.tar.gz");
        Files.writeString(junk, "GPU0 X\n");
        // was: "junk.tar.gz: not a directory (expected a sysfs tree or a .tar.gz ...)": it is named .tar.gz
        assertThatThrownBy(() -> parser.parse(junk)).isInstanceOf(InputException.class)
                .hasMessage(junk + ": not a gzip or tar archive (no gzip header 1f 8b, no ustar header); "
                        + "expected a .tar.gz from 'railyard topology collect'");
    }

    private static void writeTar(Path archive, String name, String content, String linkTarget) throws Exception {
        try (OutputStream out = Files.newOutputStream(archive);
             TarArchiveOutputStream tar = new TarArchiveOutputStream(new GZIPOutputStream(out))) {
            TarArchiveEntry entry = linkTarget == null ? new TarArchiveEntry(name, true)
                    : new TarArchiveEntry(name, TarConstants.LF_SYMLINK);
            byte[] body = content.getBytes(StandardCharsets.UTF_8);
            if (linkTarget == null) {
                entry.setSize(body.length);
            } else {
                entry.setLinkName(linkTarget);
            }
            tar.putArchiveEntry(entry);
            if (linkTarget == null) {
                tar.write(body);
            }
            tar.closeArchiveEntry();
        }
    }

    private static Path mkdir(Path p) {
        try {
            return Files.createDirectories(p);
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }
}
