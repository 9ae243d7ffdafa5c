package dev.railyard.e2e;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Assertions;
import org.junit.jupiter.api.Assumptions;

/**
 * The directory of upstream binaries built by {@code test-e2e/tools/build-binaries.sh} and a check that the ones
 * a suite needs are there.
 *
 * <p>The directory is, in order: system property {@code railyard.e2e.bin}, environment variable
 * {@code RAILYARD_E2E_BIN}, or what {@code build-binaries.sh --print-bin-dir} prints for the current pin set (this
 * needs {@code go} on the PATH, only to read the Go version). {@link #missing} says which needed binaries are
 * absent and how to build them; {@link ControlPlaneExtension} turns that into a skip or a failure.
 *
 * @param dir the binaries directory, or {@code null} when it could not be determined
 * @param reason why {@code dir} is {@code null} (empty otherwise)
 */
public record E2eBinaries(Path dir, String reason) {

    /** etcd v3.6 server (wrapper {@code tools/etcd}). */
    public static final String ETCD = "etcd";
    /** kube-apiserver (wrapper {@code tools/k8s}). */
    public static final String KUBE_APISERVER = "kube-apiserver";
    /** kube-scheduler (wrapper {@code tools/k8s}). */
    public static final String KUBE_SCHEDULER = "kube-scheduler";
    /** Volcano's scheduler, {@code volcano.sh/volcano/cmd/scheduler} (wrapper {@code tools/volcano}). */
    public static final String VC_SCHEDULER = "vc-scheduler";
    /** Volcano's controller manager, {@code volcano.sh/volcano/cmd/controller-manager}. */
    public static final String VC_CONTROLLER_MANAGER = "vc-controller-manager";

    private static final String BUILD_HINT = "build them with `bash test-e2e/tools/build-binaries.sh` (see test-e2e/README.md)";

    /** Locates the binaries directory as described on the type; never throws. */
    public static E2eBinaries locate() {
        String explicit = System.getProperty("railyard.e2e.bin", "");
        if (explicit.isBlank()) {
            explicit = System.getenv().getOrDefault("RAILYARD_E2E_BIN", "");
        }
        if (!explicit.isBlank()) {
            return new E2eBinaries(Path.of(explicit), "");
        }
        Path script = toolsDir().resolve("build-binaries.sh");
        if (!Files.isRegularFile(script)) {
            return new E2eBinaries(null, "build script " + script + " not found");
        }
        try {
            Process p = new ProcessBuilder("bash", script.toString(), "--print-bin-dir")
                    .redirectErrorStream(true).start();
            String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).strip();
            if (!p.waitFor(30, TimeUnit.SECONDS) || p.exitValue() != 0 || out.isEmpty() || out.contains("\n")) {
                return new E2eBinaries(null, "`build-binaries.sh --print-bin-dir` failed: " + out.lines().findFirst().orElse(""));
            }
            return new E2eBinaries(Path.of(out), "");
        } catch (IOException e) {
            return new E2eBinaries(null, "cannot run " + script + ": " + e.getMessage());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return new E2eBinaries(null, "interrupted while locating binaries");
        }
    }

    /** {@code test-e2e/tools}, from system property {@code railyard.e2e.tools} or relative to the working dir. */
    public static Path toolsDir() {
        String p = System.getProperty("railyard.e2e.tools", "");
        if (!p.isBlank()) {
            return Path.of(p);
        }
        Path here = Path.of("tools");
        return Files.isDirectory(here) ? here : Path.of("test-e2e", "tools");
    }

    /** Path of one binary (it may not exist). */
    public Path path(String name) {
        return dir.resolve(name);
    }

    /** Whether every named binary exists and is executable. */
    public boolean has(String... names) {
        return dir != null && List.of(names).stream().allMatch(n -> Files.isExecutable(dir.resolve(n)));
    }

    /**
     * Why the named binaries cannot be used, or empty when every one exists and is executable: the missing names,
     * the directory and how to build them.
     */
    public Optional<String> missing(String... names) {
        if (has(names)) {
            return Optional.empty();
        }
        List<String> missing = dir == null ? List.of(names)
                : List.of(names).stream().filter(n -> !Files.isExecutable(dir.resolve(n))).toList();
        return Optional.of("e2e binaries missing " + missing + " in "
                + (dir == null ? "(no directory: " + reason + ")" : dir.toString()) + "; " + BUILD_HINT
                + buildLogHint(missing));
    }

    /**
     * Whether a missing {@code name} must fail the build rather than skip: system property
     * {@code railyard.e2e.required} is {@code true} or a comma-separated list containing {@code name}.
     */
    public static boolean required(String name) {
        String required = System.getProperty("railyard.e2e.required", "false").strip();
        return required.equals("true") || Arrays.asList(required.split("\\s*,\\s*")).contains(name);
    }

    /**
     * For a test that runs binaries itself: skips it (JUnit assumption) when one of {@code names} is missing, or
     * fails it when that binary is {@link #required}.
     */
    public void assumeAvailable(String... names) {
        Optional<String> why = missing(names);
        if (why.isEmpty()) {
            return;
        }
        if (Arrays.stream(names).anyMatch(n -> !has(n) && required(n))) {
            Assertions.fail(why.get() + " (railyard.e2e.required=" + System.getProperty("railyard.e2e.required") + ")");
        }
        skip(StackWalker.getInstance(StackWalker.Option.RETAIN_CLASS_REFERENCE).getCallerClass().getSimpleName(),
                why.get());
    }

    /**
     * Skips the calling test: prints {@code [e2e] SKIPPED <suite>: <reason>} on stderr, where Maven shows it (a JUnit
     * assumption's message only reaches the XML report), then aborts the test with the same reason.
     */
    public static void skip(String suite, String reason) {
        System.err.println("[e2e] SKIPPED " + suite + ": " + reason);
        Assumptions.abort(reason);
    }

    /** Points at the build log of a component that was tried and failed, if there is one. */
    private String buildLogHint(List<String> missing) {
        if (dir == null) {
            return "";
        }
        String component = missing.contains(VC_SCHEDULER) || missing.contains(VC_CONTROLLER_MANAGER) ? "volcano"
                : missing.contains(ETCD) ? "etcd" : "k8s";
        Path log = dir.resolveSibling("build-" + component + ".log");
        return Files.isRegularFile(log) ? "; last build attempt of " + component + " failed, see " + log : "";
    }
}
