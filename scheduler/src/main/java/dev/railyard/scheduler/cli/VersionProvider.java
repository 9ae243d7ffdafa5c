package dev.railyard.scheduler.cli;

import picocli.CommandLine;

/** Reports the version from the jar manifest ({@code Implementation-Version}), or "dev" when run from classes. */
final class VersionProvider implements CommandLine.IVersionProvider {
    @Override
    public String[] getVersion() {
        String v = RailyardCommand.class.getPackage().getImplementationVersion();
        return new String[]{"railyard " + (v == null ? "dev" : v)};
    }
}
