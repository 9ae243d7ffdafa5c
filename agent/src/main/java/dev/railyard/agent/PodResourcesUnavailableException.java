package dev.railyard.agent;

/**
 * The kubelet's PodResources API could not be used: the socket is absent, the kubelet refused the call (rate limit,
 * UNIMPLEMENTED on an old kubelet) or it did not answer in time. The message is one line naming the endpoint, the
 * call and the gRPC status.
 */
public class PodResourcesUnavailableException extends RuntimeException {
    public PodResourcesUnavailableException(String message, Throwable cause) {
        super(message, cause);
    }
}
