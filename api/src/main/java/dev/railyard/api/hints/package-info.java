/**
 * Railyard's annotation vocabulary under {@code railyard.dev/}: job-author hints
 * ({@link dev.railyard.api.hints.HintAnnotations}: GPU–HCA affinity, rail alignment, fabric scope, rank order) and the
 * placement hint written at bind ({@link dev.railyard.api.hints.PlacementHint}, versioned JSON, plus flat keys for
 * the downward API). Records, enums and constants only.
 */
package dev.railyard.api.hints;
