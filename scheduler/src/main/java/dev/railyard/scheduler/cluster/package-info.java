/**
 * The cluster cache: fabric8 shared informers over the objects Railyard reads, and the immutable
 * {@link dev.railyard.scheduler.cluster.ClusterObjects} snapshot every request works on.
 *
 * <p>A custom resource whose CRD is not installed switches off the feature that needs it (one log line, a metric)
 * and the service keeps running; when the CRD appears later, the informer starts and the feature comes on.
 */
package dev.railyard.scheduler.cluster;
