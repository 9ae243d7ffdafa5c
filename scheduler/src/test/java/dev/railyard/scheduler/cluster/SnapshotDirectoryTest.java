package dev.railyard.scheduler.cluster;

import dev.railyard.topology.InputException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Snapshot directories in the shapes {@code kubectl get -o yaml|json} writes: a single object, {@code kind: List}
 * with items that carry their own kind, the API server's typed {@code PodList} whose items omit kind, several
 * {@code ---} documents; broken objects (warnings) and cut files (bad input).
 */
class SnapshotDirectoryTest {
    @TempDir
    Path dir;

    private void write(String name, String text) throws IOException {
        Path p = dir.resolve(name);
        Files.createDirectories(p.getParent());
        Files.writeString(p, text);
    }

    @Test
    void aCoschedulingPodGroupIsReadApartFromAVolcanoPodGroupOfTheSameName() throws IOException {
        // kubectl get podgroups.scheduling.x-k8s.io -A -o yaml, and Volcano's of the same name
        write("podgroups.yaml", """
                apiVersion: v1
                kind: List
                items:
                - apiVersion: scheduling.x-k8s.io/v1alpha1
                  kind: PodGroup
                  metadata: {name: cgang, namespace: prod, annotations: {railyard.dev/rail-alignment: required}}
                  spec: {minMember: 2, scheduleTimeoutSeconds: 60}
                  status: {phase: Pending}
                - apiVersion: scheduling.volcano.sh/v1beta1
                  kind: PodGroup
                  metadata: {name: cgang, namespace: prod}
                  spec: {minMember: 1}
                """);

        SnapshotDirectory.Loaded l = SnapshotDirectory.read(dir);

        // two objects of two kinds, not one seen twice
        assertThat(l.warnings()).isEmpty();
        assertThat(l.objects().of(WatchedKind.COSCHEDULING_POD_GROUP)).singleElement().satisfies(pg ->
                assertThat(pg.getApiVersion()).isEqualTo("scheduling.x-k8s.io/v1alpha1"));
        assertThat(l.objects().of(WatchedKind.POD_GROUP)).singleElement().satisfies(pg ->
                assertThat(pg.getApiVersion()).isEqualTo("scheduling.volcano.sh/v1beta1"));
        ClusterView v = ClusterView.of(l.objects(), null, null);
        assertThat(v.coschedulingGroup("prod/cgang").minMember()).isEqualTo(2);
        assertThat(v.podGroup("prod/cgang").minMember()).isEqualTo(1);
    }

    @Test
    void readsSingleObjectsListsTypedListsAndMultiDocumentFiles() throws IOException {
        // kubectl get node gpu-a1 -o yaml: one object
        write("node.yaml", """
                apiVersion: v1
                kind: Node
                metadata:
                  name: gpu-a1
                  labels: {railyard.dev/machine: pcie-8gpu}
                status:
                  allocatable: {nvidia.com/gpu: "8"}
                """);
        // kubectl get pods -A -o yaml: kind List, items with their own apiVersion/kind
        write("pods.yaml", """
                apiVersion: v1
                kind: List
                items:
                - apiVersion: v1
                  kind: Pod
                  metadata: {name: w-0, namespace: prod}
                - apiVersion: v1
                  kind: Pod
                  metadata: {name: w-1, namespace: prod}
                metadata: {resourceVersion: ""}
                """);
        // the API server's list form (kubectl get --raw): items without apiVersion/kind
        write("raw/podgroups.json", """
                {"apiVersion":"scheduling.volcano.sh/v1beta1","kind":"PodGroupList",
                 "items":[{"metadata":{"name":"w-uid","namespace":"prod"},"spec":{"minMember":2}}]}
                """);
        // several documents, one of a kind Railyard does not watch
        write("multi.yml", """
                apiVersion: k8s.cni.cncf.io/v1
                kind: NetworkAttachmentDefinition
                metadata: {name: rdma-net-ipam-lan2, namespace: prod}
                spec: {config: '{"type":"macvlan","master":"lan2"}'}
                ---
                apiVersion: apps/v1
                kind: Deployment
                metadata: {name: web, namespace: prod}
                ---
                apiVersion: topology.volcano.sh/v1alpha1
                kind: HyperNode
                metadata: {name: leaf-1}
                spec: {tier: 1, members: [{type: Node, selector: {exactMatch: {name: gpu-a1}}}]}
                """);
        write("README.md", "not a snapshot file");

        SnapshotDirectory.Loaded l = SnapshotDirectory.read(dir);

        assertThat(l.warnings()).isEmpty();
        assertThat(l.objects().of(WatchedKind.NODE)).extracting(ClusterObjects::key).containsExactly("gpu-a1");
        assertThat(l.objects().of(WatchedKind.NODE).get(0).getMetadata().getLabels())
                .containsEntry("railyard.dev/machine", "pcie-8gpu");
        assertThat(l.objects().of(WatchedKind.POD)).extracting(ClusterObjects::key)
                .containsExactly("prod/w-0", "prod/w-1");
        // the typed list's item got its kind and apiVersion from the list
        assertThat(l.objects().of(WatchedKind.POD_GROUP)).singleElement().satisfies(pg -> {
            assertThat(pg.getKind()).isEqualTo("PodGroup");
            assertThat(pg.getApiVersion()).isEqualTo("scheduling.volcano.sh/v1beta1");
            assertThat(ClusterObjects.key(pg)).isEqualTo("prod/w-uid");
        });
        assertThat(l.objects().of(WatchedKind.NETWORK_ATTACHMENT_DEFINITION)).hasSize(1);
        assertThat(l.objects().of(WatchedKind.HYPER_NODE)).hasSize(1);
        assertThat(l.total()).isEqualTo(6);
        assertThat(l.files()).containsExactly("multi.yml", "node.yaml", "pods.yaml", "raw/podgroups.json");
        assertThat(l.notes()).contains("README.md: ignored (not .yaml, .yml or .json)",
                "multi.yml: kinds Railyard does not watch (kept only for Volcano Job look-ups): 1 Deployment apps/v1");
        assertThat(l.others()).extracting(r -> r.getKind()).containsExactly("Deployment");
        assertThat(l.objects().synced()).isTrue();
    }

    @Test
    void brokenObjectsAndFilesAreNamedAndTheRestIsStillUsed() throws IOException {
        write("good.yaml", """
                apiVersion: v1
                kind: Node
                metadata: {name: gpu-a1}
                """);
        // item 1 has no name, item 2 has labels of the wrong shape, item 3 has no kind
        write("nodes.yaml", """
                apiVersion: v1
                kind: List
                items:
                - apiVersion: v1
                  kind: Node
                  metadata: {name: gpu-a2}
                - apiVersion: v1
                  kind: Node
                  metadata: {labels: {a: b}}
                - apiVersion: v1
                  kind: Node
                  metadata: {name: gpu-a3, labels: [a, b]}
                - apiVersion: v1
                  metadata: {name: gpu-a4}
                """);
        write("pod.yaml", """
                apiVersion: v1
                kind: Pod
                metadata: {name: p0, namespace: prod}
                """);
        // an object whose namespace is missing, and the same node again
        write("z-extra.yaml", """
                apiVersion: v1
                kind: Pod
                metadata: {name: lone}
                ---
                apiVersion: v1
                kind: Node
                metadata: {name: gpu-a1}
                """);

        SnapshotDirectory.Loaded l = SnapshotDirectory.read(dir);

        assertThat(l.objects().of(WatchedKind.NODE)).extracting(ClusterObjects::key)
                .containsExactlyInAnyOrder("gpu-a1", "gpu-a2");
        assertThat(l.objects().of(WatchedKind.POD)).extracting(ClusterObjects::key)
                .containsExactlyInAnyOrder("prod/p0", "default/lone");
        assertThat(l.warnings()).anySatisfy(w -> assertThat(w)
                .isEqualTo("nodes.yaml document 1 items[1] (Node (no name)): metadata.name is missing; skipped"));
        assertThat(l.warnings()).anySatisfy(w -> assertThat(w)
                .startsWith("nodes.yaml document 1 items[2] (Node gpu-a3): metadata.labels: ")
                .endsWith("; skipped"));
        assertThat(l.warnings()).anySatisfy(w -> assertThat(w)
                .isEqualTo("nodes.yaml document 1 items[3] (object gpu-a4): no kind; skipped"));
        assertThat(l.warnings()).contains(
                "z-extra.yaml document 1 (Pod lone): no metadata.namespace; put in namespace default",
                "z-extra.yaml document 2 (Node gpu-a1): also in good.yaml document 1; this one is used");
    }

    @Test
    void aFileCutMidwayIsBadInputNamingFileLineAndColumn() throws IOException {
        write("good.yaml", """
                apiVersion: v1
                kind: Node
                metadata: {name: gpu-a1}
                """);
        // cut in the middle of its second document: an unclosed flow mapping
        write("cut.yaml", """
                apiVersion: v1
                kind: Pod
                metadata: {name: p0, namespace: prod}
                ---
                apiVersion: v1
                kind: Pod
                metadata: {name: p1, namespace: pr
                """);
        // was: a warning, the first document used and the second pod silently absent (its GPUs free)
        assertThatThrownBy(() -> SnapshotDirectory.read(dir)).isInstanceOf(InputException.class)
                .hasMessage("snapshot " + dir + ": cut.yaml line 7, column 35 (document 2): while parsing a flow "
                        + "mapping: expected ',' or '}', but got <stream end>; " + SnapshotDirectory.DAMAGED);
    }

    @Test
    void aKubectlListCutBeforeItsKindIsBadInput() throws IOException {
        // kubectl get pods -A -o yaml cut after its second item: still YAML, but 'kind: List' (written after the
        // items) never came. Was: the two pods read, every later pod absent, no word
        write("pods.yaml", """
                apiVersion: v1
                items:
                - apiVersion: v1
                  kind: Pod
                  metadata: {name: w-0, namespace: prod}
                - apiVersion: v1
                  kind: Pod
                  metadata: {name: w-1, namespace: prod}
                """);
        assertThatThrownBy(() -> SnapshotDirectory.read(dir)).isInstanceOf(InputException.class)
                .hasMessage("snapshot " + dir + ": pods.yaml document 1: a list of 2 items without kind (kubectl "
                        + "writes 'kind: List' after the items): the file looks cut off; " + SnapshotDirectory.DAMAGED);
    }

    @Test
    void aDirectoryWithNothingUsableIsBadInput() throws IOException {
        assertThatThrownBy(() -> SnapshotDirectory.read(dir.resolve("missing")))
                .isInstanceOf(InputException.class).hasMessageEndingWith("missing: not a directory");
        assertThatThrownBy(() -> SnapshotDirectory.read(dir))
                .isInstanceOf(InputException.class).hasMessageEndingWith(": no .yaml, .yml or .json files");
        write("bad.yaml", "apiVersion: v1\nkind: Node\nmetadata: {name: n1, labels: 7}\n");
        assertThatThrownBy(() -> SnapshotDirectory.read(dir))
                .isInstanceOf(InputException.class)
                .hasMessageContaining("nothing usable: bad.yaml document 1 (Node n1): metadata.labels: ");
    }
}
