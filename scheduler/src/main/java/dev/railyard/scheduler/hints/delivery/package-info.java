/**
 * Delivering placement hints with the Binding: the {@code pods/binding} admission webhook
 * ({@link dev.railyard.scheduler.hints.delivery.BindingHintWebhook}), the kube-scheduler bind verb's writer
 * ({@link dev.railyard.scheduler.hints.delivery.BindingWriter}, behind {@code protocol.kube.Binder}), and the
 * backfill of pods bound without them ({@link dev.railyard.scheduler.hints.delivery.HintBackfill}). The hints come
 * from a {@link dev.railyard.scheduler.hints.delivery.HintSource} over the protocol's {@code PlacementDecisions}, so
 * the bind path goes one way: protocol adapter → delivery → hints. Format: {@code docs/formats/binding.md}.
 */
package dev.railyard.scheduler.hints.delivery;
