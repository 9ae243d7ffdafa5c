/**
 * Placement hints: computing the {@code railyard.dev/placement} annotation and its flat {@code railyard.dev/nccl-*}
 * keys for a bound pod ({@link dev.railyard.scheduler.hints.PlacementHints},
 * {@link dev.railyard.scheduler.hints.HintSource}), delivering them with the Binding (the {@code pods/binding}
 * webhook, the kube-scheduler bind verb, backfill of pods bound without them), and, inside the pod, turning them into
 * NCCL settings for the GPUs and GIDs it really got ({@code railyard env},
 * {@link dev.railyard.scheduler.hints.NcclEnvironment}). Formats: {@code docs/hints.md},
 * {@code docs/formats/binding.md}, {@code docs/formats/nccl.md}.
 */
package dev.railyard.scheduler.hints;
