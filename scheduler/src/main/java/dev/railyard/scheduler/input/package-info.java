/**
 * Rules for values that arrive from outside the process (extender requests, watched objects, flags): Kubernetes
 * quantities parsed with bounds ({@link dev.railyard.scheduler.input.Quantities}), Kubernetes object names
 * ({@link dev.railyard.scheduler.input.ObjectNames}), text made safe for one log line
 * ({@link dev.railyard.scheduler.input.LogText}) and the log lines a caller can cause, at most one per kind every
 * 10 s ({@link dev.railyard.scheduler.input.RateLimitedLog}). No dependencies beyond the JDK and SLF4J's API, so
 * every package that reads such values may use it.
 */
package dev.railyard.scheduler.input;
