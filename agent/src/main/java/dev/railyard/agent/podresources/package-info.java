/**
 * The gRPC binding of the kubelet's {@code v1.PodResourcesLister} service (kubernetes/kubelet
 * {@code pkg/apis/podresources/v1/api.proto}), used by the node agent to see which devices pods hold.
 */
package dev.railyard.agent.podresources;
