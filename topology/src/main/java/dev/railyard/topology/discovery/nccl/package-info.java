/**
 * Topology discovery from NCCL's topology XML ({@code NCCL_TOPO_DUMP_FILE}):
 * {@link dev.railyard.topology.discovery.nccl.NcclTopoXmlParser}.
 */
package dev.railyard.topology.discovery.nccl;
