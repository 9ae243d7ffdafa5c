/**
 * {@code railyard env}, inside the pod: turns the hint the pod carries into NCCL settings for the GPUs it really got
 * ({@link dev.railyard.scheduler.hints.podenv.AllocatedGpus}), the RoCE GID index of its addresses
 * ({@link dev.railyard.scheduler.hints.podenv.GidTable}, {@link dev.railyard.scheduler.hints.podenv.PodAddresses})
 * and the NCCL release it runs ({@link dev.railyard.scheduler.hints.podenv.NcclEnvironment}). Reads only files the
 * pod sees (downward API, sysfs); knows nothing of the extender. Formats: {@code docs/formats/nccl-env.md},
 * {@code docs/hints.md}.
 */
package dev.railyard.scheduler.hints.podenv;
