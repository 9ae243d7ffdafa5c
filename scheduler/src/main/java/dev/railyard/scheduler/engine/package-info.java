/**
 * The placement engine: pure decisions over a {@link dev.railyard.scheduler.engine.ClusterSnapshot}. Per-pod Filter
 * and Score ({@link dev.railyard.scheduler.engine.PlacementEngine}) and gang plans
 * ({@link dev.railyard.scheduler.engine.GangPlanner}, whose Javadoc defines the cost function; see also
 * {@code docs/adr/0002-gang-plan-cost-function.md}). Verdicts, reasons and costs are data, so that
 * {@code explain} and the protocol adapters can render them. No I/O, no Kubernetes client.
 */
package dev.railyard.scheduler.engine;
