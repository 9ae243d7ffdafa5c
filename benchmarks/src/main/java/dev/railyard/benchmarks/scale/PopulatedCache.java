package dev.railyard.benchmarks.scale;

import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.ObjectMapper;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Comparator;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

/**
 * A populated cluster kept between runs: etcd's data directory, saved with etcd stopped right after
 * {@link ClusterPopulator} filled it (before any Railyard process or churn touched it), plus what the population
 * recorded (seconds per step, objects per kind). Populating through the API server is the slow part of the benchmark
 * (about 100 to 300 writes per second on 2 cores: minutes at 1,000 nodes, tens of minutes at 5,000); a restored
 * cluster is the same objects in the same etcd, so the measurements do not depend on how it got there.
 *
 * <p>The directory name carries the layout (nodes, pods per node, gang size, seed) and a digest of everything that
 * shapes the stored objects: the sources of the classes that build them and the CRDs (their schemas prune what is
 * stored), read from the repository, so that a rebuilt jar of the same sources finds the same entry. A
 * change to either makes a new entry, so a stale snapshot is never used. An entry is complete only when its
 * {@code populated.json} exists; it is written last.
 */
final class PopulatedCache {
    private static final ObjectMapper JSON = new ObjectMapper();
    /** Sources (under {@code --repo}) of the classes that build the stored objects. */
    private static final List<String> SHAPERS = List.of("ClusterPopulator", "ScaleObjects", "ClusterLayout",
            "ScaleNetworks", "VolcanoWire").stream()
            .map(c -> "benchmarks/src/main/java/dev/railyard/benchmarks/scale/" + c + ".java").toList();

    /** Population record of a cache entry: seconds per step and objects per kind. */
    record Recorded(Map<String, Double> steps, Map<String, Integer> objects) {
    }

    private final Path dir;

    private PopulatedCache(Path dir) {
        this.dir = dir;
    }

    /**
     * The entry for {@code layout} under {@code root}; an incomplete entry (a population that was stopped) is removed.
     *
     * @param repo the repository root ({@code deploy/crds} and test-e2e's CRDs go into the digest)
     */
    static PopulatedCache of(Path root, ClusterLayout layout, Path repo) throws IOException {
        return of(root, layout, repo, false);
    }

    /**
     * @param nodeSlices node slices forced at every size ({@link ScaleNetworks#of(ClusterLayout, boolean)}): a
     *                   cluster of another shape, so another entry
     */
    static PopulatedCache of(Path root, ClusterLayout layout, Path repo, boolean nodeSlices) throws IOException {
        String key = "n%d-ppn%d-gang%d-seed%d-%s%s".formatted(layout.nodes(), layout.podsPerNode(), layout.gangSize(),
                layout.seed(), digest(repo), ScaleNetworks.of(layout, nodeSlices).nodeSlices() ? "-slices" : "");
        PopulatedCache c = new PopulatedCache(root.toAbsolutePath().resolve(key));
        if (Files.isDirectory(c.dir) && !c.complete()) {
            deleteTree(c.dir);
        }
        return c;
    }

    Path dir() {
        return dir;
    }

    /** etcd's data directory in this entry. */
    Path etcdData() {
        return dir.resolve("etcd");
    }

    boolean complete() {
        return Files.isRegularFile(dir.resolve("populated.json"));
    }

    Recorded recorded() throws IOException {
        return JSON.readValue(dir.resolve("populated.json").toFile(), new TypeReference<Recorded>() { });
    }

    /** Marks the entry complete; call after {@link #etcdData()} holds the stopped etcd's data. */
    void complete(ClusterPopulator.Populated p) throws IOException {
        if (!Files.isDirectory(etcdData())) {
            throw new IOException("no etcd data in " + etcdData());
        }
        Path tmp = dir.resolve("populated.json.tmp");
        JSON.writeValue(tmp.toFile(), new Recorded(new LinkedHashMap<>(p.steps()), new LinkedHashMap<>(p.objects())));
        Files.move(tmp, dir.resolve("populated.json"));
    }

    private static String digest(Path repo) throws IOException {
        try {
            MessageDigest md = MessageDigest.getInstance("SHA-256");
            for (String source : SHAPERS) {
                Path f = repo.resolve(source);
                if (!Files.isRegularFile(f)) {
                    throw new IOException(f.toAbsolutePath() + " not found (run from the repository root or pass --repo)");
                }
                md.update(Files.readAllBytes(f));
            }
            for (Path d : List.of(repo.resolve("deploy/crds"), repo.resolve("test-e2e/src/test/resources/crds"))) {
                if (Files.isDirectory(d)) {
                    try (Stream<Path> s = Files.list(d)) {
                        for (Path f : s.sorted().toList()) {
                            md.update(Files.readAllBytes(f));
                        }
                    }
                }
            }
            return HexFormat.of().formatHex(md.digest()).substring(0, 12);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    static void deleteTree(Path dir) throws IOException {
        if (!Files.exists(dir)) {
            return;
        }
        try (Stream<Path> s = Files.walk(dir)) {
            s.sorted(Comparator.reverseOrder()).forEach(p -> {
                try {
                    Files.deleteIfExists(p);
                } catch (IOException e) {
                    throw new UncheckedIOException(e);
                }
            });
        } catch (UncheckedIOException e) {
            throw e.getCause();
        }
    }
}
