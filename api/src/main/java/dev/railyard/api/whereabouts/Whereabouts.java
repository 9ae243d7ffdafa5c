package dev.railyard.api.whereabouts;

/** Group and version of the whereabouts custom resources. */
public final class Whereabouts {
    /** API group, {@code whereabouts.cni.cncf.io}. */
    public static final String GROUP = "whereabouts.cni.cncf.io";
    /** API version, {@code v1alpha1}. */
    public static final String VERSION = "v1alpha1";
    /** Namespace whereabouts uses when its kubeconfig context names none ({@code wbNamespaceFromCtx}). */
    public static final String DEFAULT_NAMESPACE = "kube-system";

    private Whereabouts() {
    }
}
