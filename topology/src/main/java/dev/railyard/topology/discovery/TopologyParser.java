package dev.railyard.topology.discovery;

import dev.railyard.api.topology.NodeTopologySpec;
import dev.railyard.topology.InputException;

import java.nio.file.Path;

/**
 * Reads one discovery source into the node model. One implementation per source format.
 *
 * <p>The returned spec has devices, PCIe tree (where the source has one), NUMA nodes and GPU–HCA distance
 * classes filled in; {@code pairs} and {@code excluded} are left empty for
 * {@code dev.railyard.topology.pairing.RailPairing} to fill.
 */
public interface TopologyParser {
    /**
     * @param input a file (nvidia-smi text, NCCL XML) or directory (sysfs snapshot)
     * @return the parsed model; {@code complete == false} with warnings when the input was damaged but usable
     * @throws InputException when nothing usable can be read; the message names the file, line and column
     */
    NodeTopologySpec parse(Path input);
}
