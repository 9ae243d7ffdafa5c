package dev.railyard.scheduler.ipam;

import dev.railyard.api.multus.MultusAnnotations;

import java.util.List;
import java.util.Map;

/**
 * The secondary networks one pod (or every pod of a task, which share the template) asks multus for.
 * Built once per pod template; never throws: an annotation multus would reject is kept as {@link #error()} and every
 * check of this request is refused with it.
 *
 * @param podNamespace the pod's namespace
 * @param annotation   the raw {@code k8s.v1.cni.cncf.io/networks} value, or null
 * @param selections   the parsed entries in annotation order; empty when there are none or on error
 * @param error        one-line reason the annotation cannot be used, or null
 */
public record PodNetworksRequest(String podNamespace, String annotation, List<NetworkSelection> selections,
                                 String error) {
    public PodNetworksRequest {
        selections = selections == null ? List.of() : List.copyOf(selections);
    }

    /**
     * @param podNamespace the pod's namespace
     * @param annotations  the pod's annotations; may be null
     */
    public static PodNetworksRequest of(String podNamespace, Map<String, String> annotations) {
        return ofAnnotation(podNamespace, annotations == null ? null : annotations.get(MultusAnnotations.NETWORKS));
    }

    /**
     * @param podNamespace the pod's namespace
     * @param annotation   the {@code k8s.v1.cni.cncf.io/networks} value; null or empty for none
     */
    public static PodNetworksRequest ofAnnotation(String podNamespace, String annotation) {
        try {
            return new PodNetworksRequest(podNamespace, annotation,
                    NetworkSelectionParser.parse(annotation, podNamespace), null);
        } catch (NetworkAnnotationException e) {
            return new PodNetworksRequest(podNamespace, annotation, List.of(),
                    MultusAnnotations.NETWORKS + ": " + e.getMessage());
        }
    }

    /** @return true when the annotation parsed */
    public boolean valid() {
        return error == null;
    }
}
