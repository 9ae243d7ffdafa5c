/**
 * The edge between the schedulers' wire protocols and Railyard's placement decisions.
 *
 * <p>{@link dev.railyard.scheduler.protocol.PlacementDecisions} is the one port both adapters call
 * ({@code protocol.volcano} for Volcano's {@code extender} plugin, {@code protocol.kube} for the kube-scheduler
 * extender v1). The records here are protocol-neutral: an adapter parses its request into an
 * {@link dev.railyard.scheduler.protocol.ExtenderPod}, asks the port, and writes the verdicts back in its own
 * wire shape. Nothing in this package knows either wire format; nothing in the adapters decides placement.
 */
package dev.railyard.scheduler.protocol;
