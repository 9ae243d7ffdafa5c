/**
 * Topology discovery from Linux sysfs: {@link dev.railyard.topology.discovery.sysfs.SysfsTree} reads a tree below
 * a root directory (the live {@code /sys} or a snapshot), {@link dev.railyard.topology.discovery.sysfs.SysfsTopologyParser}
 * turns it into the node model, {@link dev.railyard.topology.discovery.sysfs.SysfsArchive} writes and reads the
 * {@code railyard topology collect} snapshot of exactly what the parser read. The node agent runs the same code on
 * the host's {@code /sys}.
 */
package dev.railyard.topology.discovery.sysfs;
