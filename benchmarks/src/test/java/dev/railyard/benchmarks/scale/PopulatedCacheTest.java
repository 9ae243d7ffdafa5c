package dev.railyard.benchmarks.scale;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The cache's promises (its Javadoc): a stale or half-written entry is never used. */
class PopulatedCacheTest {
    private static final ClusterLayout LAYOUT = new ClusterLayout(100, 18, 64, 1);

    @TempDir
    Path tmp;

    /** A repository with the five shaping sources and the two CRD directories, each file holding its own name. */
    private Path repo() throws IOException {
        Path repo = tmp.resolve("repo");
        for (String c : List.of("ClusterPopulator", "ScaleObjects", "ClusterLayout", "ScaleNetworks", "VolcanoWire")) {
            write(repo.resolve("benchmarks/src/main/java/dev/railyard/benchmarks/scale/" + c + ".java"), c);
        }
        write(repo.resolve("deploy/crds/nodetopologies.yml"), "nt");
        write(repo.resolve("test-e2e/src/test/resources/crds/ippools.yaml"), "pools");
        return repo;
    }

    private static void write(Path f, String text) throws IOException {
        Files.createDirectories(f.getParent());
        Files.writeString(f, text);
    }

    private static ClusterPopulator.Populated populated() {
        return new ClusterPopulator.Populated(List.of(), new byte[0][], List.of(), "{}", List.of(), List.of(),
                Map.of("nodes", 12.5), Map.of("Node", 100));
    }

    @Test
    void entryIsCompleteOnlyAfterItsRecordIsWrittenAndRoundTripsIt() throws IOException {
        Path repo = repo();
        PopulatedCache c = PopulatedCache.of(tmp.resolve("cache"), LAYOUT, repo);
        assertThat(c.dir().getFileName().toString()).startsWith("n100-ppn18-gang64-seed1-");
        assertThat(c.complete()).isFalse();
        assertThatThrownBy(() -> c.complete(populated())).hasMessageContaining("no etcd data");

        Files.createDirectories(c.etcdData().resolve("member"));
        c.complete(populated());
        assertThat(c.complete()).isTrue();
        assertThat(c.recorded().steps()).containsEntry("nodes", 12.5);
        assertThat(c.recorded().objects()).containsEntry("Node", 100);
        // the same sources find the same entry, complete
        assertThat(PopulatedCache.of(tmp.resolve("cache"), LAYOUT, repo).complete()).isTrue();
    }

    @Test
    void anIncompleteEntryIsRemoved() throws IOException {
        Path repo = repo();
        PopulatedCache c = PopulatedCache.of(tmp.resolve("cache"), LAYOUT, repo);
        Files.createDirectories(c.etcdData().resolve("member"));
        // a population stopped before populated.json was written
        PopulatedCache again = PopulatedCache.of(tmp.resolve("cache"), LAYOUT, repo);
        assertThat(again.dir()).isEqualTo(c.dir());
        assertThat(again.dir()).doesNotExist();
    }

    @Test
    void aChangedShapingSourceOrCrdOrLayoutIsANewEntry() throws IOException {
        Path repo = repo();
        Path before = PopulatedCache.of(tmp.resolve("cache"), LAYOUT, repo).dir();
        write(repo.resolve("benchmarks/src/main/java/dev/railyard/benchmarks/scale/ScaleObjects.java"), "changed");
        Path afterSource = PopulatedCache.of(tmp.resolve("cache"), LAYOUT, repo).dir();
        write(repo.resolve("deploy/crds/nodetopologies.yml"), "changed");
        Path afterCrd = PopulatedCache.of(tmp.resolve("cache"), LAYOUT, repo).dir();
        Path otherLayout = PopulatedCache.of(tmp.resolve("cache"), new ClusterLayout(100, 4, 64, 1), repo).dir();
        Path sliced = PopulatedCache.of(tmp.resolve("cache"), LAYOUT, repo, true).dir();
        assertThat(List.of(before, afterSource, afterCrd, otherLayout, sliced)).doesNotHaveDuplicates();
        assertThat(sliced.getFileName().toString()).isEqualTo(afterCrd.getFileName() + "-slices");
    }

    @Test
    void aMissingSourceIsAClearError() {
        assertThatThrownBy(() -> PopulatedCache.of(tmp.resolve("cache"), LAYOUT, tmp.resolve("nowhere")))
                .isInstanceOf(IOException.class).hasMessageContaining("ClusterPopulator.java not found");
    }
}
