package dev.railyard.scheduler.protocol.kube;

import dev.railyard.scheduler.protocol.PodRef;

import java.util.Map;

/**
 * Creates the pod's Binding (POST {@code pods/<name>/binding}) for kube-scheduler's bind verb, carrying the
 * binding-hint annotations: the API server copies a Binding's annotations onto the pod in the same write that
 * sets {@code spec.nodeName} (docs/formats/binding.md §1, §4). Implementations are thread-safe.
 */
@FunctionalInterface
public interface Binder {

    /**
     * Binds the pod to the node.
     *
     * @param pod         namespace, name and UID (the UID becomes the Binding's UID precondition when non-empty)
     * @param nodeName    target node
     * @param annotations annotations to put on the Binding; may be empty
     * @throws BindException when the bind did not happen; its one-line message goes back to kube-scheduler
     */
    void bind(PodRef pod, String nodeName, Map<String, String> annotations) throws BindException;

    /** A bind that did not happen, with a one-line reason for kube-scheduler's {@code Error}. */
    final class BindException extends Exception {
        public BindException(String message) {
            super(message, null, false, false);
        }

        public BindException(String message, Throwable cause) {
            super(message, cause);
        }
    }

    /**
     * The binder of a service started without a Kubernetes client: refuses every bind with a clear reason, so
     * kube-scheduler falls back to its own bind (when the extender is {@code ignorable}) or reports the error.
     */
    static Binder unwired() {
        return (pod, node, annotations) -> {
            throw new BindException("railyard cannot bind " + pod + " to " + node
                    + ": this instance runs without a Kubernetes client (bind is not wired)");
        };
    }
}
