/**
 * JMH benchmarks and the extender load generator, run on purpose and never as unit tests: gang planning on a
 * generated 4,096-node cluster ({@link dev.railyard.benchmarks.GangPlanBenchmark}), protocol parsing of wire-size
 * bodies ({@link dev.railyard.benchmarks.ExtenderParseBenchmark}, bodies from
 * {@link dev.railyard.benchmarks.SyntheticWireBodies}), topology pairing, the node agent's refresh cost, and the HTTP
 * path under Go-style connection reuse ({@link dev.railyard.benchmarks.ExtenderLoad}). Every figure is printed with
 * the machine's load beside it; the figures and how to run them are in {@code docs/performance.md}.
 */
package dev.railyard.benchmarks;
