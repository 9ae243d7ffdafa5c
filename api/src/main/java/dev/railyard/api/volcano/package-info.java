/**
 * Plain-data subsets of Volcano objects the placement engine reads: {@link dev.railyard.api.volcano.HyperNode}
 * ({@code topology.volcano.sh/v1alpha1}) and {@link dev.railyard.api.volcano.PodGroup}
 * ({@code scheduling.volcano.sh/v1beta1}, with {@code networkTopology}; the scheduler-plugins coscheduling PodGroup,
 * {@code scheduling.x-k8s.io/v1alpha1}, maps to the same record).
 *
 * <p>Sources: {@code volcano-sh/volcano} {@code staging/src/volcano.sh/apis/pkg/apis/topology/v1alpha1/hypernode_types.go},
 * {@code .../scheduling/v1beta1/types.go}; {@code docs/design/Network Topology Aware Scheduling.md};
 * {@code kubernetes-sigs/scheduler-plugins} {@code apis/scheduling/v1alpha1/types.go}. Records only.
 */
package dev.railyard.api.volcano;
