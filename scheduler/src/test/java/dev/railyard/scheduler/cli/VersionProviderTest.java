package dev.railyard.scheduler.cli;

import org.junit.jupiter.api.Test;
import org.w3c.dom.Element;
import picocli.CommandLine;

import javax.xml.parsers.DocumentBuilderFactory;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Path;

import static org.assertj.core.api.Assertions.assertThat;

/** {@code railyard --version} prints the version the build stamped in, the POM's (issue 19: it printed "dev"). */
class VersionProviderTest {
    /** @return {@code project/parent/version} of this module's POM: the version every module is built as */
    private static String pomVersion() throws Exception {
        Element project = DocumentBuilderFactory.newInstance().newDocumentBuilder().parse(Path.of("pom.xml").toFile())
                .getDocumentElement();
        Element parent = (Element) project.getElementsByTagName("parent").item(0);
        return parent.getElementsByTagName("version").item(0).getTextContent().strip();
    }

    @Test
    void versionIsTheOneTheBuildStampedIn() throws Exception {
        StringWriter out = new StringWriter();
        CommandLine cmd = RailyardCommand.commandLine();
        cmd.setOut(new PrintWriter(out));
        assertThat(cmd.execute("--version")).isZero();
        assertThat(out.toString()).isEqualTo("railyard " + pomVersion() + System.lineSeparator());
        assertThat(pomVersion()).isNotBlank().doesNotContain("$");
    }
}
