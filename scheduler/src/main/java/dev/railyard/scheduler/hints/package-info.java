/**
 * Placement hints, computed in the extender: the {@code railyard.dev/placement} annotation and its flat
 * {@code railyard.dev/nccl-*} keys for a pod the engine placed ({@link dev.railyard.scheduler.hints.PlacementHints},
 * {@link dev.railyard.scheduler.hints.OffPlanHints}), the NCCL syntax chosen by the job's declared NCCL release
 * ({@link dev.railyard.scheduler.hints.NcclSyntax}), and the reader of a hint document
 * ({@link dev.railyard.scheduler.hints.HintFile}). Delivering them lives in {@code hints.delivery}; turning them
 * into NCCL settings inside the pod in {@code hints.podenv}; both use this package, never the reverse
 * ({@code LayeringTest}). Formats: {@code docs/hints.md}, {@code docs/formats/nccl.md}.
 */
package dev.railyard.scheduler.hints;
