package dev.railyard.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The generated KubeSchedulerConfiguration with an extender, decoded and validated by the real kube-scheduler
 * ({@code --write-config-to} makes it load, default, validate and print the config, then exit without contacting
 * an API server). No extender is running: this checks the wiring, not the protocol.
 */
class KubeSchedulerConfIT {

    @TempDir
    Path dir;

    @Test
    void kubeSchedulerAcceptsTheExtenderConfigAsWritten() throws Exception {
        E2eBinaries bin = E2eBinaries.locate();
        bin.assumeAvailable(E2eBinaries.KUBE_SCHEDULER);
        Path kubeconfig = dir.resolve("kubeconfig");
        Files.writeString(kubeconfig, """
                apiVersion: v1
                kind: Config
                clusters: [{name: c, cluster: {server: "https://127.0.0.1:9"}}]
                contexts: [{name: c, context: {cluster: c}}]
                current-context: c
                """, StandardCharsets.UTF_8);
        var extender = new KubeSchedulerConf.Extender(URI.create("http://127.0.0.1:9/kube"), "filter", "prioritize",
                "bind", 2, true, false, List.of("nvidia.com/gpu"), Duration.ofMillis(500));
        Path conf = dir.resolve("kube-scheduler.yaml");
        Files.writeString(conf, KubeSchedulerConf.render(kubeconfig, Optional.of(extender)), StandardCharsets.UTF_8);
        Path out = dir.resolve("effective.yaml");

        Process p = new ProcessBuilder(bin.path(E2eBinaries.KUBE_SCHEDULER).toString(), "--config=" + conf,
                "--write-config-to=" + out, "--secure-port=0").redirectErrorStream(true).start();
        String log = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();

        assertThat(p.exitValue()).as(log).isZero();
        JsonNode x = new ObjectMapper(new YAMLFactory()).readTree(out.toFile()).get("extenders").get(0);
        assertThat(x.get("urlPrefix").asText()).isEqualTo("http://127.0.0.1:9/kube");
        assertThat(x.get("filterVerb").asText()).isEqualTo("filter");
        assertThat(x.get("prioritizeVerb").asText()).isEqualTo("prioritize");
        assertThat(x.get("bindVerb").asText()).isEqualTo("bind");
        assertThat(x.get("weight").asInt()).isEqualTo(2);
        assertThat(x.get("httpTimeout").asText()).isEqualTo("500ms");
        assertThat(x.get("nodeCacheCapable").asBoolean()).isTrue();
        assertThat(x.get("managedResources").get(0).get("name").asText()).isEqualTo("nvidia.com/gpu");
    }
}
