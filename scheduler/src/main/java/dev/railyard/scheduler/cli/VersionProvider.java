package dev.railyard.scheduler.cli;

import picocli.CommandLine;

import java.io.IOException;
import java.io.InputStream;
import java.util.Properties;

/**
 * Reports the version the build stamped into {@code railyard-build.properties} (Maven resource filtering of
 * {@code ${project.version}}, scheduler/pom.xml); the jar manifest's {@code Implementation-Version} when that file is
 * missing; "unknown" when neither is there.
 */
final class VersionProvider implements CommandLine.IVersionProvider {
    static final String RESOURCE = "/railyard-build.properties";

    @Override
    public String[] getVersion() {
        return new String[]{"railyard " + version()};
    }

    /** @return the build's version, e.g. {@code 0.1.0-SNAPSHOT} */
    static String version() {
        try (InputStream in = VersionProvider.class.getResourceAsStream(RESOURCE)) {
            if (in != null) {
                Properties p = new Properties();
                p.load(in);
                String v = p.getProperty("version", "");
                if (!v.isBlank() && !v.startsWith("${")) {
                    return v;
                }
            }
        } catch (IOException e) {
            // fall through to the manifest
        }
        String v = RailyardCommand.class.getPackage().getImplementationVersion();
        return v == null ? "unknown" : v;
    }
}
