package dev.railyard.scheduler.hints.delivery;

import dev.railyard.api.hints.HintAnnotations;
import dev.railyard.scheduler.protocol.PodRef;
import dev.railyard.scheduler.protocol.kube.Binder;
import io.fabric8.kubernetes.api.model.Binding;
import io.fabric8.kubernetes.api.model.BindingBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;

/**
 * kube-scheduler's bind verb, done by Railyard: creates a {@code v1 Binding} whose annotations carry the placement
 * hints through fabric8's typed API ({@code client.bindings()}: {@code POST /api/v1/namespaces/<ns>/bindings}, the
 * pod named by the Binding's {@code metadata.name} in the body), so no name is ever spliced into a URL path. The
 * API server serves that resource with the same storage code as the {@code pods/<name>/binding} subresource
 * (kubernetes v1.35.4 {@code pkg/registry/core/pod/storage/storage.go}: {@code LegacyBindingREST.Create} calls
 * {@code BindingREST.Create} with the Binding's name), which copies the Binding's annotations onto the pod in the
 * same storage write that sets {@code spec.nodeName} ({@code setPodHostAndAnnotations}, docs/formats/binding.md §1), so the
 * hints are in the very pod version that first shows the node. RBAC: {@code create} on {@code bindings}
 * (docs/adr/0010-authenticated-callers.md). fabric8 has no typed create for the {@code pods/binding} subresource.
 *
 * <p>Hints: the annotations the protocol port passes in are used as they are when they already hold
 * {@value HintAnnotations#PLACEMENT}; otherwise the {@link HintSource} is asked for the node of this bind. When
 * the source is not ready the pod is bound without hints (a bind is never held up for them) and handed to the
 * {@link HintBackfill}.
 *
 * <p>The Binding carries the pod UID (when kube-scheduler sent one) as {@code metadata.uid}, which the API server
 * uses as a precondition, so a pod deleted and re-created under the same name is not bound by mistake. No retry:
 * a failed bind goes back to kube-scheduler, which unreserves the pod and schedules it again. Thread-safe.
 */
public final class BindingWriter implements Binder {
    private static final Logger LOG = LoggerFactory.getLogger(BindingWriter.class);

    private final KubernetesClient client;
    private final HintSource hints;
    private final HintBackfill backfill;

    /**
     * @param client   client with create permission on {@code bindings}
     * @param hints    computes hints for the bound node
     * @param backfill where pods bound without hints go, or null to leave them without
     */
    public BindingWriter(KubernetesClient client, HintSource hints, HintBackfill backfill) {
        this.client = Objects.requireNonNull(client, "client");
        this.hints = Objects.requireNonNull(hints, "hints");
        this.backfill = backfill;
    }

    @Override
    public void bind(PodRef pod, String nodeName, Map<String, String> annotations) throws BindException {
        Objects.requireNonNull(pod, "pod");
        if (nodeName == null || nodeName.isBlank()) {
            throw new BindException("cannot bind " + pod + ": no node name given");
        }
        Map<String, String> all = new LinkedHashMap<>(annotations == null ? Map.of() : annotations);
        String backfillReason = null;
        if (!all.containsKey(HintAnnotations.PLACEMENT)) {
            HintLookup lookup = lookup(hints, pod, nodeName);
            switch (lookup) {
                case HintLookup.Hints h -> all.putAll(h.annotations());
                case HintLookup.NotReady r -> backfillReason = r.reason();
                case HintLookup.NotApplicable n -> LOG.debug("no hints for {} on {}: {}", pod, nodeName, n.reason());
            }
        }
        Binding binding = binding(pod, nodeName, all);
        try {
            client.bindings().inNamespace(pod.namespace()).resource(binding).create();
        } catch (KubernetesClientException e) {
            throw new BindException(describe(pod, nodeName, e), e);
        }
        if (backfillReason != null) {
            LOG.info("bound {} to {} without placement hints ({}); backfilling", pod, nodeName, backfillReason);
            if (backfill != null) {
                backfill.enqueue(pod, nodeName, backfillReason);
            }
        }
    }

    /** The Binding object posted for {@code pod} → {@code nodeName}; annotations left out when empty. */
    static Binding binding(PodRef pod, String nodeName, Map<String, String> annotations) {
        return new BindingBuilder()
                .withNewMetadata()
                .withName(pod.name())
                .withNamespace(pod.namespace())
                .withUid(pod.uid().isEmpty() ? null : pod.uid())
                .withAnnotations(annotations.isEmpty() ? null : new LinkedHashMap<>(annotations))
                .endMetadata()
                .withNewTarget()
                .withApiVersion("v1")
                .withKind("Node")
                .withName(nodeName)
                .endTarget()
                .build();
    }

    /** Asks the source, turning a bug in it into "not ready" so the bind still happens. */
    static HintLookup lookup(HintSource hints, PodRef pod, String nodeName) {
        try {
            HintLookup l = hints.hintsFor(pod, nodeName);
            return l == null ? new HintLookup.NotReady("hint source gave no answer") : l;
        } catch (RuntimeException e) {
            // the message may quote a pod author's text (an annotation value): escaped, and the trace only at
            // debug, since its first line repeats the message unescaped
            LOG.warn("hint source failed for {} on {}: {}", dev.railyard.scheduler.input.LogText.escape(
                    String.valueOf(pod)), dev.railyard.scheduler.input.LogText.escape(nodeName),
                    dev.railyard.scheduler.input.LogText.escape(e.toString()));
            LOG.debug("hint source failure", e);
            return new HintLookup.NotReady("hint source failed: " + e);
        }
    }

    private static String describe(PodRef pod, String nodeName, KubernetesClientException e) {
        String status = e.getStatus() != null && e.getStatus().getMessage() != null
                ? e.getStatus().getMessage() : String.valueOf(e.getMessage());
        String what = switch (e.getCode()) {
            case 404 -> "pod not found";
            case 409 -> "conflict (already bound, or UID/resourceVersion precondition failed)";
            case 403 -> "forbidden (railyard's service account needs create on bindings)";
            case 0 -> "API server unreachable";
            default -> "HTTP " + e.getCode();
        };
        return ("binding " + pod + " to " + nodeName + " failed: " + what + ": " + status).replaceAll("\\s+", " ");
    }
}
