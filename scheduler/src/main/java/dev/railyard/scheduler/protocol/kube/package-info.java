/**
 * The kube-scheduler extender v1 adapter: streaming readers of filter and prioritize bodies, the verb handlers that
 * call the service, and the Binding writer of the bind verb. Wire format: {@code docs/formats/kube-extender.md}.
 */
package dev.railyard.scheduler.protocol.kube;
