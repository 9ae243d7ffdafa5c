package dev.railyard.scheduler.image;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.apache.commons.compress.archivers.tar.TarArchiveEntry;
import org.apache.commons.compress.archivers.tar.TarArchiveInputStream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.zip.GZIPInputStream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Checks the container image tarball that {@code ./mvnw -Pimage package} writes with Jib (Docker {@code save}
 * format: {@code manifest.json}, {@code config.json}, one gzipped tar per layer). Runs with failsafe in the
 * {@code image} profile only, after the tarball exists.
 *
 * <p>What it proves without a registry or a container runtime: the image's entrypoint is
 * {@code java -jar /app/railyard.jar}; its application layer holds exactly that jar, byte for byte the shaded
 * {@code target/railyard.jar}, and nothing of Jib's exploded classpath; and that jar, taken out of the layer, runs
 * on this JVM ({@code --version}). The base image (a JRE) is the one thing not checked when CI builds on
 * {@code scratch}.
 */
class ImageTarIT {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static Path target;
    private static Map<String, byte[]> topLevel;
    private static JsonNode config;

    @BeforeAll
    static void readTar() throws IOException {
        target = Path.of(System.getProperty("railyard.image.dir", "target"));
        Path tar = target.resolve("jib-image.tar");
        assertThat(tar).as("image tarball from jib:buildTar").isRegularFile();
        topLevel = entries(Files.newInputStream(tar), false);
        JsonNode manifest = JSON.readTree(topLevel.get("manifest.json"));
        config = JSON.readTree(topLevel.get(manifest.get(0).get("Config").asText()));
    }

    @Test
    void entrypointRunsTheShadedJarWithTheSubcommandAsArguments() {
        assertThat(strings(config.at("/config/Entrypoint"))).containsExactly("java", "-jar", "/app/railyard.jar");
        // No Cmd: the chart passes `serve` or `agent`, an init container `env`.
        assertThat(config.at("/config/Cmd").isMissingNode() || config.at("/config/Cmd").isNull()).isTrue();
        assertThat(config.at("/config/WorkingDir").asText()).isEqualTo("/app");
        // The chart's ports: extender 8888, webhook 8443, agent 8080.
        assertThat(fieldNames(config.at("/config/ExposedPorts"))).containsExactlyInAnyOrder("8888/tcp", "8443/tcp",
                "8080/tcp");
    }

    @Test
    void appLayerHoldsOnlyRailyardJarIdenticalToTheBuiltOne() throws Exception {
        JsonNode manifest = JSON.readTree(topLevel.get("manifest.json"));
        String base = config.at("/config/Labels/org.opencontainers.image.base.name").asText();
        List<String> layers = strings(manifest.get(0).get("Layers"));
        // The application layer is the last one; the base image's layers (none on scratch) come first.
        Map<String, byte[]> app = entries(new GZIPInputStream(
                new java.io.ByteArrayInputStream(topLevel.get(layers.getLast()))), true);
        assertThat(app.keySet()).as("files of the application layer (base %s)", base)
                .containsExactly("app/railyard.jar");
        assertThat(sha256(app.get("app/railyard.jar")))
                .isEqualTo(sha256(Files.readAllBytes(target.resolve("railyard.jar"))));
        if ("scratch".equals(base)) {
            assertThat(layers).hasSize(1);
        }
    }

    @Test
    void jarFromTheLayerRunsOnThisJvm() throws Exception {
        JsonNode manifest = JSON.readTree(topLevel.get("manifest.json"));
        List<String> layers = strings(manifest.get(0).get("Layers"));
        byte[] jar = entries(new GZIPInputStream(new java.io.ByteArrayInputStream(topLevel.get(layers.getLast()))),
                true).get("app/railyard.jar");
        Path copy = Files.createTempFile("railyard-image", ".jar");
        try {
            Files.write(copy, jar);
            Path java = Path.of(System.getProperty("java.home"), "bin", "java");
            Process p = new ProcessBuilder(java.toString(), "-jar", copy.toString(), "--version")
                    .redirectErrorStream(true).start();
            String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();
            assertThat(p.exitValue()).as(out).isZero();
            assertThat(out).startsWith("railyard ");
        } finally {
            Files.deleteIfExists(copy);
        }
    }

    /** Regular files of a tar stream by name (directories left out); {@code layer} strips a leading "./". */
    private static Map<String, byte[]> entries(InputStream in, boolean layer) throws IOException {
        Map<String, byte[]> files = new LinkedHashMap<>();
        try (TarArchiveInputStream tar = new TarArchiveInputStream(in)) {
            TarArchiveEntry e;
            while ((e = tar.getNextEntry()) != null) {
                if (e.isFile()) {
                    String name = layer && e.getName().startsWith("./") ? e.getName().substring(2) : e.getName();
                    files.put(name, tar.readAllBytes());
                }
            }
        }
        return files;
    }

    private static List<String> strings(JsonNode array) {
        List<String> out = new ArrayList<>();
        array.forEach(n -> out.add(n.asText()));
        return out;
    }

    private static List<String> fieldNames(JsonNode object) {
        List<String> out = new ArrayList<>();
        object.fieldNames().forEachRemaining(out::add);
        return out;
    }

    private static String sha256(byte[] bytes) throws NoSuchAlgorithmException {
        return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(bytes));
    }
}
