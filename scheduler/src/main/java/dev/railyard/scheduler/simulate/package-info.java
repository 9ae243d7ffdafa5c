/**
 * {@code railyard simulate}: replays a job trace on a cluster (a cluster file, or a generated rail-optimised one)
 * against Railyard's gang planner and three baselines (random feasible node, GPU-count bin-packing, Volcano-style
 * smallest-tier packing without rails) and reports GPU–HCA distances, cross-leaf and cross-rail pairs,
 * fragmentation, unschedulable jobs and plan time.
 */
package dev.railyard.scheduler.simulate;
