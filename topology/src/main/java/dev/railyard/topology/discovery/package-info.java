/**
 * Discovery parsers, one class per source format ({@code nvidia-smi topo -m} text, sysfs snapshots, NCCL topology
 * XML), the PCIe distance classification they share, and helpers for the dumps that travel with them. Formats:
 * {@code docs/formats/node-topology.md}.
 */
package dev.railyard.topology.discovery;
