package dev.railyard.e2e;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The pinned {@code volcano.sh/volcano} module as extracted in the Go module cache, from which the Volcano CRDs
 * are read at run time (nothing upstream is copied into the repository).
 *
 * <p>The version is the {@code volcano.sh/volcano vX.Y.Z} require line of {@code tools/volcano/go.mod} (after
 * {@code go mod tidy} it sits in the require block marked {@code // indirect}, because the wrapper only names its
 * commands as {@code tool}s); the cache
 * is system property {@code railyard.e2e.gomodcache}, else {@code go env GOMODCACHE}. The module is there after
 * {@code tools/build-binaries.sh} ran (it downloads it even when the Volcano binaries cannot be built).
 *
 * @param version module version, e.g. {@code v1.14.1}
 * @param dir the extracted module directory ({@code <GOMODCACHE>/volcano.sh/volcano@<version>})
 */
public record VolcanoModule(String version, Path dir) {

    private static final Pattern REQUIRE = Pattern.compile(
            "(?m)^\\s*(?:require\\s+)?volcano\\.sh/volcano\\s+(v\\S+)\\s*(?://.*)?$");

    /**
     * Reads the pin and finds the module directory.
     *
     * @throws IOException if the wrapper go.mod has no pin or the module is not in the cache
     */
    public static VolcanoModule locate() throws IOException {
        Path goMod = E2eBinaries.toolsDir().resolve("volcano/go.mod");
        Matcher m = REQUIRE.matcher(Files.readString(goMod, StandardCharsets.UTF_8));
        if (!m.find()) {
            throw new IOException(goMod + ": no `require volcano.sh/volcano vX.Y.Z` line");
        }
        String version = m.group(1);
        Path dir = goModCache().resolve("volcano.sh").resolve("volcano@" + version);
        if (!Files.isDirectory(dir.resolve("config/crd"))) {
            throw new IOException("Volcano CRDs not found at " + dir.resolve("config/crd")
                    + "; run test-e2e/tools/build-binaries.sh (it downloads volcano.sh/volcano@" + version + ")");
        }
        return new VolcanoModule(version, dir);
    }

    /** Every CRD file of {@code config/crd/volcano/bases} and {@code config/crd/jobflow/bases}, sorted. */
    public List<Path> crdFiles() throws IOException {
        List<Path> files = new ArrayList<>(ControlPlane.yamlFiles(dir.resolve("config/crd/volcano/bases")));
        files.addAll(ControlPlane.yamlFiles(dir.resolve("config/crd/jobflow/bases")));
        return files;
    }

    private static Path goModCache() throws IOException {
        String explicit = System.getProperty("railyard.e2e.gomodcache", "");
        if (!explicit.isBlank()) {
            return Path.of(explicit);
        }
        Process p = new ProcessBuilder("go", "env", "GOMODCACHE").redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).strip();
        try {
            if (!p.waitFor(30, TimeUnit.SECONDS) || p.exitValue() != 0 || out.isEmpty()) {
                throw new IOException("`go env GOMODCACHE` failed: " + out);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted while running go env", e);
        }
        return Path.of(out);
    }
}
