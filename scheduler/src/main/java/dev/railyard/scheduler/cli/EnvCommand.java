package dev.railyard.scheduler.cli;

import dev.railyard.api.hints.NcclVersion;
import dev.railyard.scheduler.hints.HintFile;
import dev.railyard.scheduler.hints.podenv.AllocatedGpus;
import dev.railyard.scheduler.hints.podenv.GidTable;
import dev.railyard.scheduler.hints.podenv.NcclEnvironment;
import dev.railyard.scheduler.hints.podenv.PodAddresses;
import dev.railyard.topology.InputException;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

import java.io.IOException;
import java.io.PrintWriter;
import java.net.SocketException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;

/**
 * {@code railyard env}: prints the NCCL settings for this pod, from its placement hint and what it really got
 * (see {@link NcclEnvironment} and docs/hints.md). Meant for an init container writing {@code --env-file} into a
 * shared volume, or an entrypoint wrapper doing {@code eval "$(railyard env)"}.
 *
 * <p>Never fails the pod's start over hints: no hint, a malformed hint, a hint of a newer schema, or an internal
 * error while applying it is reported on stderr and the command exits 0 exporting nothing. Exit 2 only for usage errors (unknown option) and an
 * {@code --env-file} that cannot be written.
 */
@Command(name = "env", mixinStandardHelpOptions = true,
        description = {"Print NCCL environment settings (export lines) for this pod from its Railyard placement hint.",
                "Reads the hint from a downward-API file, the container's GPUs, its RDMA GID tables and IPv4 addresses.",
                "Exits 0 without exports when there is no usable hint."})
final class EnvCommand implements Callable<Integer> {

    @Spec
    picocli.CommandLine.Model.CommandSpec spec;

    @Option(names = "--hints-file", paramLabel = "FILE", defaultValue = "/etc/railyard/annotations",
            description = "Downward-API file with the pod's annotations (key=\"value\" lines), or the "
                    + "railyard.dev/placement JSON itself (default: ${DEFAULT-VALUE}).")
    Path hintsFile;

    @Option(names = "--env-file", paramLabel = "FILE",
            description = "Write KEY=value lines to FILE (replaced atomically) instead of export lines to stdout.")
    Path envFile;

    @Option(names = "--root", paramLabel = "DIR", defaultValue = "/",
            description = "Filesystem root holding sys/class/infiniband and proc/driver/nvidia (default: /).")
    Path root;

    @Option(names = "--nvidia-visible-devices", paramLabel = "LIST", defaultValue = "${env:NVIDIA_VISIBLE_DEVICES}",
            description = "GPU UUIDs or indices of this container (default: $NVIDIA_VISIBLE_DEVICES).")
    String nvidiaVisibleDevices;

    @Option(names = "--cuda-visible-devices", paramLabel = "LIST", defaultValue = "${env:CUDA_VISIBLE_DEVICES}",
            description = "CUDA's narrowing of those GPUs (default: $CUDA_VISIBLE_DEVICES).")
    String cudaVisibleDevices;

    @Option(names = "--ip-addr-file", paramLabel = "FILE",
            description = "Saved 'ip -o addr' output to use instead of this container's own interfaces.")
    Path ipAddrFile;

    @Option(names = "--nccl-version", paramLabel = "VERSION",
            description = "The NCCL release the workload runs (2.30.7): from 2.30.5 on NCCL_IB_HCA carries rails "
                    + "(and planes) and NCCL_NET_MERGE_POLICY=RAIL is set. Default: the release the hint was written "
                    + "for (the job's railyard.dev/nccl-version), else the syntax every release accepts.")
    String ncclVersion;

    @Option(names = "--wait-for-hints", paramLabel = "SECONDS", defaultValue = "0",
            description = "Wait up to SECONDS for the hint to appear in the file (hints patched after bind reach "
                    + "a downward-API volume on the kubelet's next sync). Default: 0.")
    int waitSeconds;

    @Override
    public Integer call() throws Exception {
        PrintWriter err = spec.commandLine().getErr();
        if (waitSeconds < 0) {
            throw new InputException("--wait-for-hints must be 0 or more seconds, got " + waitSeconds);
        }
        NcclVersion version;
        try {
            version = NcclVersion.parse(ncclVersion);
        } catch (IllegalArgumentException e) {
            throw new InputException("--nccl-version: '" + ncclVersion + "' is not an NCCL version (expected "
                    + "MAJOR.MINOR[.PATCH], e.g. 2.30.7)");
        }
        HintFile file = readHints(err);
        NcclEnvironment.Result result;
        switch (file) {
            case HintFile.Absent a -> {
                err.println("railyard env: " + a.reason() + "; nothing to export");
                result = null;
            }
            case HintFile.Ignored i -> {
                err.println("railyard env: ignoring the placement hint: " + i.reason() + "; nothing to export");
                result = null;
            }
            case HintFile.Found f -> {
                try {
                    result = compute(f, err, version);
                } catch (InputException e) {
                    throw e;
                } catch (RuntimeException e) {
                    // a bug must not keep the pod from starting: say so and export nothing
                    err.println("railyard env: internal error while applying the hint (" + e
                            + "); nothing to export");
                    result = null;
                }
            }
        }
        emit(result, err);
        return 0;
    }

    private HintFile readHints(PrintWriter err) throws InterruptedException {
        long deadline = System.nanoTime() + waitSeconds * 1_000_000_000L;
        HintFile file = HintFile.read(hintsFile);
        boolean said = false;
        while (file instanceof HintFile.Absent && System.nanoTime() < deadline) {
            if (!said) {
                err.println("railyard env: no hint yet in " + hintsFile + "; waiting up to " + waitSeconds + " s");
                err.flush();
                said = true;
            }
            Thread.sleep(1000);
            file = HintFile.read(hintsFile);
        }
        return file;
    }

    private NcclEnvironment.Result compute(HintFile.Found found, PrintWriter err, NcclVersion version) {
        AllocatedGpus.Resolution gpus = AllocatedGpus.resolve(nvidiaVisibleDevices, cudaVisibleDevices, root);
        PodAddresses addresses;
        if (ipAddrFile != null) {
            try {
                addresses = PodAddresses.parseIpAddr(Files.readString(ipAddrFile, StandardCharsets.UTF_8),
                        ipAddrFile.toString());
            } catch (IOException e) {
                throw new InputException("cannot read --ip-addr-file " + ipAddrFile + ": " + InputException.reason(e), e);
            }
        } else {
            try {
                addresses = PodAddresses.fromSystem();
            } catch (SocketException e) {
                err.println("railyard env: cannot list this container's network interfaces: " + e.getMessage());
                addresses = PodAddresses.of(List.of());
            }
        }
        Path sys = root.resolve("sys");
        NcclEnvironment.Result r = NcclEnvironment.compute(found.hint(), gpus,
                (hca, port) -> GidTable.read(sys, hca, port), addresses, version);
        for (String note : r.notes()) {
            err.println("railyard env: " + note);
        }
        return r;
    }

    /** Prints export lines, or writes the env file (always, even empty, so that sourcing it never fails). */
    private void emit(NcclEnvironment.Result r, PrintWriter err) {
        Map<String, String> exports = r == null ? Map.of() : r.exports();
        List<String> unset = r == null ? List.of() : r.unset();
        if (envFile == null) {
            PrintWriter out = spec.commandLine().getOut();
            unset.forEach(k -> out.println("unset " + k));
            exports.forEach((k, v) -> out.println("export " + k + "='" + v + "'"));
            out.flush();
        } else {
            StringBuilder sb = new StringBuilder("# written by railyard env from " + hintsFile + "\n");
            unset.forEach(k -> sb.append("# ").append(k).append(" deliberately not set\n"));
            exports.forEach((k, v) -> sb.append(k).append('=').append(v).append('\n'));
            write(envFile, sb.toString());
        }
        if (exports.isEmpty()) {
            err.println("railyard env: no NCCL settings exported");
        }
        err.flush();
    }

    private static void write(Path file, String text) {
        Path dir = file.toAbsolutePath().getParent();
        if (!Files.isDirectory(dir)) {
            // the temporary file's name in the JDK's message would only confuse: name the missing directory
            throw new InputException("cannot write --env-file " + file + ": directory " + dir + " does not exist");
        }
        try {
            Path tmp = Files.createTempFile(dir, ".railyard-env", ".tmp");
            Files.writeString(tmp, text, StandardCharsets.UTF_8);
            Files.move(tmp, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
        } catch (IOException e) {
            throw new InputException("cannot write --env-file " + file + ": " + InputException.reason(e), e);
        }
    }
}
