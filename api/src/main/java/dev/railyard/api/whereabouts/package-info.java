/**
 * Read-only models of the whereabouts IPAM custom resources ({@code whereabouts.cni.cncf.io/v1alpha1}, all
 * namespaced, living in whereabouts' own namespace): {@link dev.railyard.api.whereabouts.IPPool},
 * {@link dev.railyard.api.whereabouts.OverlappingRangeIPReservation} and
 * {@link dev.railyard.api.whereabouts.NodeSlicePool}.
 *
 * <p>Field names follow upstream {@code k8snetworkplumbingwg/whereabouts}
 * {@code pkg/api/whereabouts.cni.cncf.io/v1alpha1/*_types.go} (v0.9.4). These are upstream's CRDs: Railyard never
 * generates or installs them (the api module's CRD generator excludes this package). Records only; the arithmetic
 * that reads them lives in {@code dev.railyard.scheduler.ipam}.
 */
package dev.railyard.api.whereabouts;
