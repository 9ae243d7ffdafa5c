package dev.railyard.scheduler.cli;

import dev.railyard.api.topology.NodeTopologySpec;
import dev.railyard.topology.discovery.sysfs.SysfsArchive;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.concurrent.Callable;

/**
 * {@code railyard topology collect --out FILE.tar.gz [--root /]}: archives the part of a host's sysfs that the
 * topology parser reads (PCI functions of GPUs and HCAs with the bridges above them, {@code class/infiniband} ports
 * and GID tables, {@code class/net} links, NUMA node CPU lists), symlinks as symlinks, so a bug report reproduces
 * what the node agent saw: {@code railyard topology pair FILE.tar.gz} reads it back. The work is done by
 * {@link SysfsArchive#collect(Path, Path)}, the same discovery code the agent runs.
 *
 * <p>Prints one summary line (counts of files, symlinks and directories, GPUs and HCAs found), then any warnings
 * the read produced. Exit 0 when the archive was written, 2 with one line on stderr when the root is not a sysfs
 * tree or the file cannot be written.
 */
@Command(name = "collect",
        mixinStandardHelpOptions = true,
        description = {"Archive the sysfs files the topology parser reads (for a bug report).",
                "Read it back with: railyard topology pair FILE.tar.gz"})
final class TopologyCollectCommand implements Callable<Integer> {

    @Option(names = "--out", required = true, paramLabel = "FILE.tar.gz", description = "Archive to write.")
    Path out;

    @Option(names = "--root", paramLabel = "DIR", defaultValue = "/",
            description = "Root directory containing sys/ (default: ${DEFAULT-VALUE}); or a sys directory itself.")
    Path root;

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @Override
    public Integer call() {
        String name = out.getFileName() == null ? "" : out.getFileName().toString();
        if (!name.endsWith(".tar.gz") && !name.endsWith(".tgz")) {
            // `topology pair` knows an archive by this ending; `-` would be a file named "-", not standard output
            throw new dev.railyard.topology.InputException("--out " + out + ": the archive is a .tar.gz; give a name "
                    + "ending in .tar.gz or .tgz (topology pair detects archives by it)");
        }
        SysfsArchive.Summary summary = SysfsArchive.collect(root, out);
        NodeTopologySpec node = summary.discovery().spec();
        PrintWriter w = spec.commandLine().getOut();
        w.printf("wrote %s: %s, %s, %s (%s) from %s; %s, %s%n", out, count(summary.files(), "file"),
                count(summary.symlinks(), "symlink"), count(summary.directories(), "directory"),
                count(summary.bytes(), "byte"), root, count(node.gpus().size(), "GPU"),
                count(node.hcas().size(), "HCA"));
        for (String warning : node.warnings()) {
            w.println("warning: " + warning);
        }
        w.flush();
        return 0;
    }

    /** @return {@code "1 GPU"}, {@code "2 GPUs"}, {@code "1 directory"}, {@code "0 directories"} */
    static String count(long n, String noun) {
        if (n == 1) {
            return n + " " + noun;
        }
        return n + " " + (noun.endsWith("y") ? noun.substring(0, noun.length() - 1) + "ies" : noun + "s");
    }
}
