/**
 * Rules for values that arrive from outside the process (extender requests, watched objects, flags): Kubernetes
 * quantities parsed with bounds ({@link dev.railyard.scheduler.input.Quantities}), Kubernetes object names
 * ({@link dev.railyard.scheduler.input.ObjectNames}) and text made safe for one log line
 * ({@link dev.railyard.scheduler.input.LogText}). No dependencies beyond the JDK.
 */
package dev.railyard.scheduler.input;
