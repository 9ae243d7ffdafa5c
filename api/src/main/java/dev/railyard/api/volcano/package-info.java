/**
 * Plain-data subsets of Volcano objects the placement engine reads: {@link dev.railyard.api.volcano.HyperNode}
 * ({@code topology.volcano.sh/v1alpha1}) and {@link dev.railyard.api.volcano.PodGroup}
 * ({@code scheduling.volcano.sh/v1beta1}, with {@code networkTopology}).
 *
 * <p>Sources: {@code volcano-sh/volcano} {@code staging/src/volcano.sh/apis/pkg/apis/topology/v1alpha1/hypernode_types.go},
 * {@code .../scheduling/v1beta1/types.go}; {@code docs/design/Network Topology Aware Scheduling.md}. Records only.
 */
package dev.railyard.api.volcano;
