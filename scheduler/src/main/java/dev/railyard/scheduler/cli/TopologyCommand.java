package dev.railyard.scheduler.cli;

import picocli.CommandLine.Command;

/** {@code railyard topology ...}: read a node's discovery data and show its GPU–HCA pairing. */
@Command(name = "topology", mixinStandardHelpOptions = true,
        description = "Parse node discovery data (nvidia-smi topo -m, sysfs, NCCL XML, lspci -tv) and pair GPUs with HCAs.",
        subcommands = {TopologyPairCommand.class, TopologyCollectCommand.class})
final class TopologyCommand implements Runnable {
    @picocli.CommandLine.Spec
    picocli.CommandLine.Model.CommandSpec spec;

    @Override
    public void run() {
        spec.commandLine().usage(System.out);
    }
}
