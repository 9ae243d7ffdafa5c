/**
 * {@code railyard simulate}: a discrete-event simulation ({@link dev.railyard.scheduler.simulate.EventSimulator}) of
 * jobs arriving, queueing, running and leaving on a cluster, scheduled by Railyard's real placement engine and by
 * baselines modelled on kube-scheduler, Volcano, KAI and Koordinator; a step-time model
 * ({@link dev.railyard.scheduler.simulate.StepTimeModel}) turns each placement into a slowdown. The model, the
 * baselines' upstream sources and the workloads are described in docs/simulation.md.
 */
package dev.railyard.scheduler.simulate;
