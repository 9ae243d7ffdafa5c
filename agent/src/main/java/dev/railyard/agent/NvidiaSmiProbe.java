package dev.railyard.agent;

import dev.railyard.api.topology.NodeTopologySpec;
import dev.railyard.api.topology.NvLink;
import dev.railyard.topology.discovery.NvidiaSmiTopoParser;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

/**
 * Runs {@code nvidia-smi -q -x} and {@code nvidia-smi topo -m} when the binary is present: the first gives each
 * GPU's UUID and PCI bus id ({@link NvidiaSmiQueryParser}), the second its NVLink peers (read with the same
 * {@link NvidiaSmiTopoParser} as {@code railyard topology}). A missing binary is normal on nodes without the driver's tools in the agent's image: it is
 * reported once at INFO and the probe answers empty from then on without looking again. Not thread-safe (the
 * agent calls it from its single refresh thread).
 */
public final class NvidiaSmiProbe {
    private static final Logger LOG = LoggerFactory.getLogger(NvidiaSmiProbe.class);
    private static final int MAX_OUTPUT_BYTES = 32 * 1024 * 1024;

    private final String binary;
    private final Duration timeout;
    private Path resolved;
    private boolean absent;

    /**
     * @param binary  a command name looked up on PATH ({@code nvidia-smi}) or a path; null disables the probe
     * @param timeout longest time the command may run
     */
    public NvidiaSmiProbe(String binary, Duration timeout) {
        this.binary = binary;
        this.timeout = timeout;
        this.absent = binary == null;
    }

    /**
     * Runs {@code nvidia-smi -q -x} and then {@code nvidia-smi topo -m}.
     *
     * @return the inventory, or empty when the binary is absent or {@code -q -x} failed (a failure is logged at WARN
     *         with the exit code and the first line of its error output); a failed {@code topo -m} (it exits 255 on
     *         hosts with a SoftiWARP device, fixture case-43) only leaves the NVLink map empty
     */
    public Optional<NvidiaSmiInventory> query() {
        if (absent) {
            return Optional.empty();
        }
        if (resolved == null) {
            Optional<Path> found = locate(binary);
            if (found.isEmpty()) {
                LOG.info("{} not found; GPU UUIDs will not be matched to PCI bus ids", binary);
                absent = true;
                return Optional.empty();
            }
            resolved = found.get();
        }
        Optional<String> xml = run("-q", "-x");
        if (xml.isEmpty()) {
            return Optional.empty();
        }
        List<NvidiaSmiGpu> gpus;
        try {
            gpus = NvidiaSmiQueryParser.parse(xml.get(), resolved + " -q -x");
        } catch (RuntimeException e) {
            LOG.warn("{}", e.getMessage());
            return Optional.empty();
        }
        Map<Integer, List<NvLink>> nvlinks = new HashMap<>();
        run("topo", "-m").ifPresent(text -> {
            try {
                NodeTopologySpec topo = new NvidiaSmiTopoParser().parseText(resolved + " topo -m", text);
                topo.gpus().forEach(g -> nvlinks.put(g.index(), g.nvlinks()));
            } catch (RuntimeException e) {
                LOG.warn("{}", e.getMessage());
            }
        });
        return Optional.of(new NvidiaSmiInventory(gpus, nvlinks));
    }

    private Optional<String> run(String... args) {
        List<String> command = new ArrayList<>();
        command.add(resolved.toString());
        command.addAll(List.of(args));
        String name = String.join(" ", command);
        Process process = null;
        try (var readers = Executors.newVirtualThreadPerTaskExecutor()) {
            process = new ProcessBuilder(command).start();
            process.getOutputStream().close();
            Process p = process;
            Future<byte[]> out = readers.submit(() -> readCapped(p.getInputStream()));
            Future<byte[]> err = readers.submit(() -> readCapped(p.getErrorStream()));
            if (!process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
                process.destroyForcibly();
                LOG.warn("{} did not finish within {} ms; skipped", name, timeout.toMillis());
                return Optional.empty();
            }
            if (process.exitValue() != 0) {
                String firstLine = new String(err.get(), StandardCharsets.UTF_8).lines().findFirst()
                        .orElse(new String(out.get(), StandardCharsets.UTF_8).lines().findFirst().orElse(""));
                LOG.warn("{} exited with {}: {}", name, process.exitValue(), firstLine);
                return Optional.empty();
            }
            return Optional.of(new String(out.get(), StandardCharsets.UTF_8));
        } catch (IOException | ExecutionException e) {
            LOG.warn("{} could not be run: {}", name, e.getMessage());
            return Optional.empty();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return Optional.empty();
        } finally {
            if (process != null && process.isAlive()) {
                process.destroyForcibly();
            }
        }
    }

    private static byte[] readCapped(InputStream in) throws IOException {
        byte[] bytes = in.readNBytes(MAX_OUTPUT_BYTES);
        in.transferTo(OutputStream.nullOutputStream());
        return bytes;
    }

    static Optional<Path> locate(String binary) {
        if (binary.contains("/")) {
            Path p = Path.of(binary);
            return Files.isExecutable(p) ? Optional.of(p) : Optional.empty();
        }
        String path = System.getenv("PATH");
        if (path == null) {
            return Optional.empty();
        }
        for (String dir : path.split(java.io.File.pathSeparator)) {
            if (dir.isEmpty()) {
                continue;
            }
            Path candidate = Path.of(dir, binary);
            if (Files.isExecutable(candidate) && !Files.isDirectory(candidate)) {
                return Optional.of(candidate);
            }
        }
        return Optional.empty();
    }

}
