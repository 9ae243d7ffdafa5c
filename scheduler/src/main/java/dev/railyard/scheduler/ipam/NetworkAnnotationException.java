package dev.railyard.scheduler.ipam;

/**
 * A {@code k8s.v1.cni.cncf.io/networks} annotation that multus would reject or cannot resolve. The message is one
 * line naming the entry and what is wrong with it.
 */
public class NetworkAnnotationException extends RuntimeException {
    public NetworkAnnotationException(String message) {
        super(message);
    }
}
