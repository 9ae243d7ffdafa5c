package dev.railyard.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The paste-ready Volcano settings of {@code deploy/config/} as a real vc-scheduler (v1.14.1) takes them: the
 * {@code volcano-scheduler.conf} snippet (its URL pointed at a local port) and the node-search flags of
 * {@code vc-scheduler-node-search.patch.json} ({@code deploy/config/volcano-call-volume.md}). A flag vc-scheduler does
 * not know makes it exit at start (pflag), and a conf it cannot use makes it log "is invalid" and fall back to its
 * default conf (pkg/scheduler/scheduler.go, loadSchedulerConf), which has no extender: so the checks are that it stays
 * up, creates its queues, logs neither, and builds the extender plugin with the conf's URL every session
 * (pkg/scheduler/plugins/extender/extender.go New, at log level 4).
 */
class VolcanoDeployConfigIT {

    @RegisterExtension
    static final ControlPlaneExtension CLUSTER =
            new ControlPlaneExtension(ControlPlane.Options.apiOnly(List.of("gpu-deploy-1")));

    private static final Duration TIMEOUT = Duration.ofSeconds(90);

    @Test
    void vcSchedulerRunsTheDeploySnippetWithTheNodeSearchFlags() throws IOException {
        E2eBinaries bin = E2eBinaries.locate();
        bin.assumeAvailable(E2eBinaries.VC_SCHEDULER);
        ControlPlane cp = CLUSTER.controlPlane();
        Path deploy = Path.of(System.getProperty("railyard.e2e.deploy", "../deploy"));
        String url = "http://127.0.0.1:" + LoopbackPorts.pick(1)[0] + "/volcano";
        String conf = Files.readString(deploy.resolve("config/volcano-scheduler.conf"), StandardCharsets.UTF_8);
        assertThat(conf).contains("http://railyard.railyard-system.svc:8888/volcano");
        Path confDir = cp.runDir().resolve("vc-scheduler-deploy-conf");
        Files.createDirectories(confDir);
        Path confFile = confDir.resolve("volcano-scheduler.conf");
        Files.writeString(confFile, conf.replace("http://railyard.railyard-system.svc:8888/volcano", url),
                StandardCharsets.UTF_8);
        List<String> flags = patchedArgs(deploy.resolve("config/vc-scheduler-node-search.patch.json"));
        // the patch carries the three node-search flags with v1.14.1's defaults (cmd/scheduler/app/options/options.go)
        assertThat(flags).containsExactly("--minimum-feasible-nodes=100", "--minimum-percentage-nodes-to-find=5",
                "--percentage-nodes-to-find=0");

        List<String> cmd = new ArrayList<>(List.of(bin.path(E2eBinaries.VC_SCHEDULER).toString(),
                "--kubeconfig=" + cp.kubeconfig(), "--scheduler-conf=" + confFile, "--leader-elect=false",
                "--scheduler-name=volcano", "--schedule-period=1s", "--default-queue=default", "-v=4"));
        cmd.addAll(flags);
        Path sockets = cp.runDir().resolve("klog-socks-deploy");
        Files.createDirectories(sockets);
        ComponentProcess vcs = cp.launch("vc-scheduler-deploy", cmd, Map.of("DEBUG_SOCKET_DIR", sockets.toString()));

        await().atMost(TIMEOUT).pollInterval(Duration.ofMillis(250)).until(() -> {
            vcs.assertAlive();
            return cp.client().genericKubernetesResources("scheduling.volcano.sh/v1beta1", "Queue")
                    .withName("default").get() != null;
        });
        await().atMost(TIMEOUT).pollInterval(Duration.ofMillis(500)).until(() -> {
            vcs.assertAlive();
            return log(vcs).contains("Initialize extender plugin with endpoint address " + url);
        });
        String log = log(vcs);
        assertThat(log).doesNotContain("is invalid").doesNotContain("Failed to read the Scheduler config")
                .doesNotContain("unknown flag");
        assertThat(vcs.alive()).isTrue();
    }

    /** The {@code value}s of the patch's operations, each checked to append to the first container's args. */
    private static List<String> patchedArgs(Path patch) throws IOException {
        JsonNode ops = new ObjectMapper().readTree(Files.readString(patch, StandardCharsets.UTF_8));
        List<String> out = new ArrayList<>();
        for (JsonNode op : ops) {
            assertThat(op.path("op").asText()).isEqualTo("add");
            assertThat(op.path("path").asText()).isEqualTo("/spec/template/spec/containers/0/args/-");
            out.add(op.path("value").asText());
        }
        return out;
    }

    private static String log(ComponentProcess p) throws IOException {
        return Files.readString(p.log(), StandardCharsets.UTF_8);
    }
}
