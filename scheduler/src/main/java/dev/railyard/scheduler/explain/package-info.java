/**
 * {@code railyard explain} and {@code railyard pools}: why a gang waits or where it would land, per-node verdicts
 * aggregated the way kube-scheduler words them, and per-network pool counts with their stale holders.
 * {@link dev.railyard.scheduler.explain.Explainer} holds the logic, over one
 * {@link dev.railyard.scheduler.cluster.ClusterObjects}; {@link dev.railyard.scheduler.explain.Explanation} is the
 * answer as data (JSON schema in {@code docs/explain.md}); {@link dev.railyard.scheduler.explain.ExplanationTable}
 * renders it for people.
 */
package dev.railyard.scheduler.explain;
