/**
 * Read-only models of the secondary-network objects a pod attaches through multus: the
 * {@link dev.railyard.api.multus.NetworkAttachmentDefinition} ({@code k8s.cni.cncf.io/v1}, namespaced), the NVIDIA
 * network-operator {@link dev.railyard.api.multus.MacvlanNetwork} ({@code mellanox.com/v1alpha1}, cluster-scoped)
 * that renders one, and the pod annotation keys in {@link dev.railyard.api.multus.MultusAnnotations}.
 *
 * <p>Sources: {@code k8snetworkplumbingwg/network-attachment-definition-client}
 * {@code pkg/apis/k8s.cni.cncf.io/v1/types.go}; {@code Mellanox/network-operator}
 * {@code api/v1alpha1/macvlannetwork_types.go}. These are upstream's CRDs: Railyard never generates or installs them.
 */
package dev.railyard.api.multus;
