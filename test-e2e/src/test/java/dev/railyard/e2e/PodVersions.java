package dev.railyard.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import dev.railyard.api.hints.HintAnnotations;
import io.fabric8.kubernetes.api.model.ListOptionsBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.Watch;
import io.fabric8.kubernetes.client.Watcher;
import io.fabric8.kubernetes.client.WatcherException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.stream.Collectors;
import org.awaitility.core.ConditionTimeoutException;

/**
 * Every version of every pod in one namespace, as the API server's watch delivers them, recorded from before the
 * workload exists. The watch starts at the resourceVersion of a list taken when it opens, so no change after that is
 * missed (the API server sends one event per stored write, in order; fabric8 resumes from the last resourceVersion
 * on a dropped connection, and a history gap (410 Gone) closes the watch, which {@link #assertComplete()} reports).
 *
 * <p>Used to prove docs/formats/binding.md §1 end to end: a Binding's annotations land on the pod in the same storage write
 * that sets {@code spec.nodeName}, so Railyard's hints are in the very pod version where the node first appears.
 */
final class PodVersions implements AutoCloseable {

    /** The hint annotations that must arrive with the binding (the flat keys every seed pod gets). */
    static final List<String> ATOMIC_KEYS = List.of(HintAnnotations.PLACEMENT, HintAnnotations.NCCL_IB_HCA,
            HintAnnotations.NCCL_SOCKET_IFNAME, HintAnnotations.NCCL_IB_ADDR_RANGE, HintAnnotations.NCCL_IB_ADDR_FAMILY,
            HintAnnotations.RAILS);

    /**
     * One pod version.
     *
     * @param type            watch event type ({@code ADDED}, {@code MODIFIED}, {@code DELETED})
     * @param resourceVersion the pod's {@code metadata.resourceVersion}
     * @param node            {@code spec.nodeName}, or null
     * @param annotations     the pod's annotations (a copy; empty when none)
     */
    record Version(String type, String resourceVersion, String node, Map<String, String> annotations) {
        boolean hinted() {
            return annotations.containsKey(HintAnnotations.PLACEMENT);
        }

        @Override
        public String toString() {
            return type + " rv=" + resourceVersion + " node=" + node + " hints=" + annotations.keySet().stream()
                    .filter(k -> k.startsWith(HintAnnotations.PREFIX)).sorted().toList();
        }
    }

    private final String namespace;
    private final Map<String, List<Version>> byPod = new LinkedHashMap<>();
    private final Watch watch;
    private volatile WatcherException closedWith;
    private volatile boolean closing;

    private PodVersions(KubernetesClient client, String namespace) {
        this.namespace = namespace;
        String from = client.pods().inNamespace(namespace).list().getMetadata().getResourceVersion();
        this.watch = client.pods().inNamespace(namespace).watch(new ListOptionsBuilder().withResourceVersion(from)
                .build(), new Watcher<>() {
                    @Override
                    public void eventReceived(Action action, Pod pod) {
                        record(action.name(), pod);
                    }

                    @Override
                    public void onClose(WatcherException cause) {
                        if (!closing) {
                            closedWith = cause;
                        }
                    }
                });
    }

    /** Opens the watch on {@code namespace}; call before creating the workload. */
    static PodVersions watch(KubernetesClient client, String namespace) {
        return new PodVersions(client, namespace);
    }

    private synchronized void record(String type, Pod pod) {
        Map<String, String> a = pod.getMetadata().getAnnotations();
        byPod.computeIfAbsent(pod.getMetadata().getName(), k -> new ArrayList<>()).add(new Version(type,
                pod.getMetadata().getResourceVersion(), pod.getSpec() == null ? null : pod.getSpec().getNodeName(),
                a == null ? Map.of() : Map.copyOf(a)));
    }

    /** The versions of {@code pod} seen so far, oldest first. */
    synchronized List<Version> of(String pod) {
        return List.copyOf(byPod.getOrDefault(pod, List.of()));
    }

    /** Fails when the watch ended on its own (history gap or error): then versions may be missing. */
    void assertComplete() {
        assertThat(closedWith).as("pod watch on %s closed early; versions may be missing", namespace).isNull();
    }

    /** Waits until the watch has delivered a version of {@code pod} matching {@code done}. */
    private void awaitVersion(String pod, java.util.function.Predicate<Version> done, String what,
                              Duration timeout) {
        try {
            await().atMost(timeout).pollInterval(Duration.ofMillis(100))
                    .until(() -> of(pod).stream().anyMatch(done));
        } catch (ConditionTimeoutException e) {
            throw new AssertionError("pod " + namespace + "/" + pod + ": no version " + what + " within "
                    + timeout.toSeconds() + " s; versions " + of(pod), e);
        }
    }

    /**
     * Asserts that {@code pod}'s hints were written with its binding: the first version with {@code spec.nodeName}
     * carries every key of {@code keys} and a {@code railyard.dev/placement} naming that node; no earlier version
     * carries {@code railyard.dev/placement} (no hint before the node); and no later version changes any of
     * {@code keys} (no patch after the bind, so not {@code HintBackfill}).
     *
     * @return the versions of the pod up to now, for a report line
     */
    List<Version> assertHintsWrittenWithBinding(String pod, Collection<String> keys, Duration timeout) {
        awaitVersion(pod, v -> v.node() != null, "with spec.nodeName", timeout);
        assertComplete();
        List<Version> versions = of(pod);
        assertThat(versions.getFirst().type()).as("first version of %s: %s", pod, versions).isEqualTo("ADDED");
        assertThat(versions.getFirst().node()).as("%s was created unbound: %s", pod, versions).isNull();
        int bound = indexOfFirstBound(versions);
        Version first = versions.get(bound);
        for (Version before : versions.subList(0, bound)) {
            assertThat(before.hinted()).as("%s: a version before the binding carries hints: %s", pod, versions)
                    .isFalse();
        }
        assertThat(first.annotations()).as("%s: the version where spec.nodeName first appears (%s) carries the "
                + "hints; all versions %s", pod, first, versions).containsKeys(keys.toArray(String[]::new));
        JsonNode hint = SeedCluster.json(first.annotations().get(HintAnnotations.PLACEMENT));
        assertThat(hint.path("node").asText()).as("%s: hint node", pod).isEqualTo(first.node());
        for (Version later : versions.subList(bound + 1, versions.size())) {
            for (String k : keys) {
                assertThat(later.annotations().get(k)).as("%s: %s changed after the binding in %s; versions %s",
                        pod, k, later, versions).isEqualTo(first.annotations().get(k));
            }
        }
        return versions;
    }

    /**
     * Asserts the backfill path for {@code pod}: the first version with {@code spec.nodeName} has no
     * {@code railyard.dev/placement}, and a later version (a patch after the bind) adds it, naming that node, together
     * with every key of {@code keys}.
     *
     * @return the first version carrying the hint
     */
    Version assertHintsPatchedAfterBinding(String pod, Collection<String> keys, Duration timeout) {
        awaitVersion(pod, v -> v.node() != null && v.hinted(), "with spec.nodeName and hints", timeout);
        assertComplete();
        List<Version> versions = of(pod);
        int bound = indexOfFirstBound(versions);
        assertThat(versions.get(bound).hinted()).as("%s: bound without hints; versions %s", pod, versions)
                .isFalse();
        Version patched = versions.stream().filter(Version::hinted).findFirst().orElseThrow();
        assertThat(versions.indexOf(patched)).as("%s: hints after the binding; versions %s", pod, versions)
                .isGreaterThan(bound);
        assertThat(patched.node()).isEqualTo(versions.get(bound).node());
        assertThat(patched.annotations()).as("%s: backfilled keys in %s", pod, patched)
                .containsKeys(keys.toArray(String[]::new));
        assertThat(SeedCluster.json(patched.annotations().get(HintAnnotations.PLACEMENT)).path("node").asText())
                .as("%s: backfilled hint node", pod).isEqualTo(patched.node());
        return patched;
    }

    private static int indexOfFirstBound(List<Version> versions) {
        for (int i = 0; i < versions.size(); i++) {
            if (versions.get(i).node() != null) {
                return i;
            }
        }
        throw new AssertionError("never bound: " + versions);
    }

    /** One line per pod: its versions, for the test log. */
    synchronized String describe(Collection<String> pods) {
        return pods.stream().map(p -> p + ": " + byPod.getOrDefault(p, List.of()).stream().map(Objects::toString)
                .collect(Collectors.joining(" | "))).collect(Collectors.joining("\n  ", "  ", ""));
    }

    @Override
    public void close() {
        closing = true;
        watch.close();
    }
}
