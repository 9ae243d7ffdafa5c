package dev.railyard.scheduler.explain;

import dev.railyard.topology.InputException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Job files Volcano's API server would refuse are refused, with the closest known key (docs/formats/volcano-job.md
 * §1: the only version is batch.volcano.sh/v1alpha1; the Job CRD is structural, so strict field validation refuses
 * unknown keys). Before issue 19 {@code v1} was accepted and {@code replica: 4} silently gave one pod.
 */
class VolcanoJobKeysTest {
    private static String job(String apiVersion, String taskKeys) {
        return """
                apiVersion: %s
                kind: Job
                metadata: {name: train, namespace: prod}
                spec:
                  minAvailable: 1
                  tasks:
                    - name: worker
                      %s
                      template:
                        spec:
                          containers: [{name: c, image: x, resources: {requests: {nvidia.com/gpu: 8}}}]
                """.formatted(apiVersion, taskKeys);
    }

    private static Path write(Path dir, String yaml) throws Exception {
        Path f = dir.resolve("job.yaml");
        Files.writeString(f, yaml);
        return f;
    }

    @Test
    void theV1alpha1JobIsRead(@TempDir Path dir) throws Exception {
        var jobs = VolcanoJobTemplate.read(write(dir, job("batch.volcano.sh/v1alpha1", "replicas: 4")));
        assertThat(jobs.get(0).pods()).hasSize(4);
    }

    @Test
    void aVersionVolcanoDoesNotServeIsRefusedNamingTheOneItDoes(@TempDir Path dir) throws Exception {
        Path f = write(dir, job("batch.volcano.sh/v1", "replicas: 4"));
        assertThatThrownBy(() -> VolcanoJobTemplate.read(f)).isInstanceOf(InputException.class)
                .hasMessage(f + " document 1: apiVersion batch.volcano.sh/v1 is not served by Volcano; a Volcano Job "
                        + "is batch.volcano.sh/v1alpha1 (the only version of any release, "
                        + "docs/formats/volcano-job.md §1)");
    }

    @Test
    void aMisspeltTaskKeyIsRefusedWithTheClosestKey(@TempDir Path dir) throws Exception {
        Path f = write(dir, job("batch.volcano.sh/v1alpha1", "replica: 4"));
        // "replica" is one insertion away from "replicas"
        assertThatThrownBy(() -> VolcanoJobTemplate.read(f)).isInstanceOf(InputException.class)
                .hasMessage(f + " document 1 (Job prod/train): unknown key 'replica' in spec.tasks[0]; did you mean "
                        + "'replicas'? (Volcano refuses unknown Job fields, docs/formats/volcano-job.md §1)");
    }

    @Test
    void aMisspeltSpecKeyIsRefusedToo(@TempDir Path dir) throws Exception {
        Path f = write(dir, job("batch.volcano.sh/v1alpha1", "replicas: 1").replace("minAvailable: 1",
                "minAvailible: 1"));
        assertThatThrownBy(() -> VolcanoJobTemplate.read(f)).isInstanceOf(InputException.class)
                .hasMessageContaining("unknown key 'minAvailible' in spec; did you mean 'minAvailable'?");
    }

    @Test
    void anUnknownKeyFarFromEveryKnownOneListsTheKnownKeys(@TempDir Path dir) throws Exception {
        Path f = write(dir, job("batch.volcano.sh/v1alpha1", "replicas: 1\n      colour: blue"));
        assertThatThrownBy(() -> VolcanoJobTemplate.read(f)).isInstanceOf(InputException.class)
                .hasMessageContaining("unknown key 'colour' in spec.tasks[0]; known keys: dependsOn, maxRetry, "
                        + "minAvailable, name, partitionPolicy, policies, replicas, template, topologyPolicy");
    }
}
