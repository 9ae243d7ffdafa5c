package dev.railyard.scheduler.hints.podenv;

import dev.railyard.scheduler.hints.podenv.AllocatedGpus.GpuId;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

import static org.assertj.core.api.Assertions.assertThat;

class AllocatedGpusTest {
    @TempDir
    Path root;

    /** {@code /proc/driver/nvidia/gpus/<bus>/information} in the NVIDIA driver's layout ("Key: \t value"). */
    private void procGpu(String dirName, String uuid, String bus) throws IOException {
        Path d = root.resolve("proc/driver/nvidia/gpus/" + dirName);
        Files.createDirectories(d);
        Files.writeString(d.resolve("information"), "Model: \t\t NVIDIA H100 80GB HBM3\nIRQ:   \t\t 185\n"
                + "GPU UUID: \t " + uuid + "\nVideo BIOS: \t 96.00.74.00.0d\nBus Type: \t PCIe\n"
                + "DMA Size: \t 52 bits\nDMA Mask: \t 0xfffffffffffff\nBus Location: \t " + bus + "\n"
                + "Device Minor: \t 3\nGPU Excluded:\t No\n");
    }

    @Test
    void uuidListFromTheDevicePluginsEnvvarStrategy() {
        var r = AllocatedGpus.resolve("GPU-AAAA0000-0000-0000-0000-000000000001,GPU-bbbb0000-0000-0000-0000-000000000002",
                null, root);
        // UUIDs compared in nvidia-smi's spelling: GPU- prefix, lower-case hex
        assertThat(r.gpus()).containsExactly(new GpuId(null, "GPU-aaaa0000-0000-0000-0000-000000000001", null),
                new GpuId(null, "GPU-bbbb0000-0000-0000-0000-000000000002", null));
        assertThat(r.source()).isEqualTo("NVIDIA_VISIBLE_DEVICES");
    }

    @Test
    void indicesAndMigIdsAndJunk() {
        var r = AllocatedGpus.resolve("3, 5,MIG-1234,foo", null, root);
        assertThat(r.gpus()).containsExactly(new GpuId(3, null, null), new GpuId(5, null, null));
        assertThat(r.notes()).anyMatch(n -> n.startsWith("MIG device MIG-1234 is not a whole GPU"))
                .anyMatch(n -> n.startsWith("'foo' in NVIDIA_VISIBLE_DEVICES"));
    }

    @Test
    void allFallsBackToTheProcEntriesTheToolkitMounted() throws IOException {
        procGpu("0000:9a:00.0", "GPU-9a000000-0000-0000-0000-000000000000", "00000000:9A:00.0");
        procGpu("0000:1a:00.0", "GPU-1a000000-0000-0000-0000-000000000000", "0000:1a:00.0");
        var r = AllocatedGpus.resolve("all", null, root);
        // ordered by bus id; NVML's 8-digit domain upper-case form normalised to sysfs form
        assertThat(r.gpus()).containsExactly(
                new GpuId(null, "GPU-1a000000-0000-0000-0000-000000000000", "0000:1a:00.0"),
                new GpuId(null, "GPU-9a000000-0000-0000-0000-000000000000", "0000:9a:00.0"));
    }

    @Test
    void noneVoidAndEmptyMeanNoGpusAndUnsetMeansUnknown() throws IOException {
        // NVIDIA container toolkit user guide, NVIDIA_VISIBLE_DEVICES: "none: no GPU is accessible, but driver
        // capabilities are enabled"; "void or empty or unset: nvidia-container-runtime will have the same behavior
        // as runc (i.e. neither GPUs nor capabilities are exposed)"
        procGpu("0000:1a:00.0", "GPU-1a000000-0000-0000-0000-000000000000", "0000:1a:00.0");
        assertThat(AllocatedGpus.resolve("none", null, root).gpus()).isEmpty();
        // was: void fell back to /proc (the host's entries when the toolkit mounted none) or to "assume the plan"
        var voided = AllocatedGpus.resolve("void", null, root);
        assertThat(voided.gpus()).isEmpty();
        assertThat(voided.source()).isEqualTo("NVIDIA_VISIBLE_DEVICES=void: the NVIDIA container runtime exposes "
                + "no GPU");
        assertThat(AllocatedGpus.resolve("", null, root).gpus()).isEmpty();
        assertThat(AllocatedGpus.resolve(" ", "0", root).gpus()).isEmpty();
        // unset: not a container the NVIDIA runtime set up; /proc is read, and with nothing there the GPUs are unknown
        assertThat(AllocatedGpus.resolve(null, null, root).gpus()).extracting(GpuId::busId).containsExactly(
                "0000:1a:00.0");
        var unknown = AllocatedGpus.resolve(null, null, root.resolve("elsewhere"));
        assertThat(unknown.known()).isFalse();
        assertThat(unknown.allOfNode()).isFalse();
    }

    @Test
    void allWithoutProcEntriesMeansEveryGpuOfTheNode() {
        // toolkit: "all: all GPUs will be accessible"; no /proc entries to list them here
        var all = AllocatedGpus.resolve("all", null, root);
        assertThat(all.known()).isFalse();
        assertThat(all.allOfNode()).isTrue();
        assertThat(all.source()).isEqualTo("NVIDIA_VISIBLE_DEVICES=all");
    }

    @Test
    void volumeMountsStrategyListsDeviceIdsAsFileNames() throws IOException {
        Path dir = root.resolve("var/run/nvidia-container-devices");
        Files.createDirectories(dir);
        Files.createFile(dir.resolve("GPU-00000000-0000-0000-0000-000000000007"));
        var r = AllocatedGpus.resolve("/var/run/nvidia-container-devices", null, root);
        assertThat(r.gpus()).containsExactly(new GpuId(null, "GPU-00000000-0000-0000-0000-000000000007", null));
    }

    @Test
    void cudaVisibleDevicesNarrowsByPositionInBusOrderOrByUuidPrefix() throws IOException {
        procGpu("0000:9a:00.0", "GPU-9a000000-0000-0000-0000-000000000000", "0000:9a:00.0");
        procGpu("0000:1a:00.0", "GPU-1a000000-0000-0000-0000-000000000000", "0000:1a:00.0");
        procGpu("0000:5d:00.0", "GPU-5d000000-0000-0000-0000-000000000000", "0000:5d:00.0");
        // position 1 in bus order 1a, 5d, 9a is 5d
        assertThat(AllocatedGpus.resolve(null, "1", root).gpus()).extracting(GpuId::busId)
                .containsExactly("0000:5d:00.0");
        assertThat(AllocatedGpus.resolve(null, "GPU-9a", root).gpus()).extracting(GpuId::busId)
                .containsExactly("0000:9a:00.0");
        // CUDA stops at the first entry that matches nothing: 0 is kept, 7 and everything after dropped
        var r = AllocatedGpus.resolve(null, "0,7,2", root);
        assertThat(r.gpus()).extracting(GpuId::busId).containsExactly("0000:1a:00.0");
        assertThat(r.notes()).anyMatch(n -> n.contains("'7' matches none"));
    }

    @Test
    void uuidsFromTheEnvvarPickUpBusIdsFromProc() throws IOException {
        procGpu("0000:1a:00.0", "GPU-1a000000-0000-0000-0000-000000000000", "0000:1a:00.0");
        var r = AllocatedGpus.resolve("GPU-1a000000-0000-0000-0000-000000000000", null, root);
        assertThat(r.gpus()).containsExactly(
                new GpuId(null, "GPU-1a000000-0000-0000-0000-000000000000", "0000:1a:00.0"));
    }
}
