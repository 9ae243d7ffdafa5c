package dev.railyard.scheduler.cli;

import dev.railyard.scheduler.protocol.volcano.VolcanoReplyDialect;
import dev.railyard.scheduler.server.ConnectionTimeouts;
import dev.railyard.scheduler.server.TlsSettings;
import dev.railyard.scheduler.service.LeaderElection;
import dev.railyard.topology.InputException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class ServeCommandTest {
    @Test
    void fabric8sInformerLoggerIsTheOneServeTurnsOff() throws Exception {
        // serve's logging config names fabric8's Reflector (a stack trace per failed list or watch; ClusterCache says
        // it in one line instead): the class must exist under that name in the fabric8 version on the classpath
        String logger = ServeLogging.FABRIC8_REFLECTOR_LOG.substring("org.slf4j.simpleLogger.log.".length());
        assertThat(Class.forName(logger).getSimpleName()).isEqualTo("Reflector");
        assertThat(ServeLogging.FABRIC8_REFLECTOR_LOG).startsWith("org.slf4j.simpleLogger.log.io.fabric8.");
    }


    static ServeCommand parse(String... args) {
        ServeCommand cmd = new ServeCommand();
        new CommandLine(cmd).parseArgs(args);
        return cmd;
    }

    @Test
    void defaultsWithoutFlagsOrFile() {
        var r = parse().resolve();
        assertThat(r.server().address().getPort()).isEqualTo(8888);
        // loopback by default: a bare serve is reachable from this host only (the chart binds the pod IP)
        assertThat(r.server().address().getAddress().isLoopbackAddress()).isTrue();
        assertThat(r.secure()).isNull();
        assertThat(r.server().maxRequestBytes()).isEqualTo(64L << 20);
        assertThat(r.server().tls()).isNull();
        assertThat(r.neutralScore()).isEqualTo(50);
        assertThat(r.volcano().scoreWeight()).isEqualTo(1.0);
        assertThat(r.volcano().dialect()).isEqualTo(VolcanoReplyDialect.V1_10);
        assertThat(r.logLevel()).isEqualTo("info");
        assertThat(r.server().connections()).isEqualTo(ConnectionTimeouts.DEFAULTS);
        assertThat(r.leaderTiming()).isEqualTo(LeaderElection.Timing.DEFAULTS);
    }

    @Test
    void connectionTimeoutsFromFileAndFlags(@TempDir Path dir) throws Exception {
        Path cfg = dir.resolve("serve.yaml");
        Files.writeString(cfg, """
                server:
                  requestReadTimeout: 20s
                  idleTimeout: 3m
                  maxIdleConnections: 50
                """);
        assertThat(parse("--config", cfg.toString()).resolve().server().connections())
                .isEqualTo(new ConnectionTimeouts(Duration.ofSeconds(20), Duration.ofMinutes(3), 50));
        assertThat(parse("--config", cfg.toString(), "--idle-timeout=95s", "--max-idle-connections=0").resolve()
                .server().connections())
                .isEqualTo(new ConnectionTimeouts(Duration.ofSeconds(20), Duration.ofSeconds(95), 0));
        // the JDK server counted these in whole seconds; the Netty listener's timers take milliseconds from 100 ms
        assertThat(parse("--request-read-timeout=1500ms").resolve().server().connections().requestRead())
                .isEqualTo(Duration.ofMillis(1500));
        assertThatThrownBy(() -> parse("--request-read-timeout=50ms").resolve())
                .isInstanceOf(InputException.class)
                .hasMessage("request read timeout must be from 100ms to 24h, got 50 ms");
        Path bad = dir.resolve("bad.yaml");
        Files.writeString(bad, "server:\n  idleTimeout: soon\n");
        assertThatThrownBy(() -> parse("--config", bad.toString()).resolve())
                .isInstanceOf(InputException.class)
                .hasMessage("server.idleTimeout: 'soon' is not a duration (use 500ms, 30s, 5m, 1h or PT30S) (flag or "
                        + bad + ")");
    }

    @Test
    void securePortNeedsItsCertificateKeyAndClientCa(@TempDir Path dir) throws Exception {
        var r = parse("--secure-port=8444", "--secure-tls-cert=/s/tls.crt", "--secure-tls-key=/s/tls.key",
                "--client-ca=/s/ca.crt").resolve();
        assertThat(r.secure().port()).isEqualTo(8444);
        assertThat(r.secure().clientCa().caBundle()).isEqualTo(Path.of("/s/ca.crt"));
        assertThat(r.secure().tls()).isEqualTo(new dev.railyard.scheduler.server.TlsSettings.Pem(
                Path.of("/s/tls.crt"), Path.of("/s/tls.key")));
        assertThatThrownBy(() -> parse("--secure-port=8444", "--secure-tls-cert=/s/tls.crt").resolve())
                .isInstanceOf(InputException.class)
                .hasMessageStartingWith("--secure-port needs --secure-tls-key, --client-ca (the kube-scheduler verbs");
        assertThatThrownBy(() -> parse("--client-ca=/s/ca.crt").resolve()).isInstanceOf(InputException.class)
                .hasMessage("--secure-tls-cert, --secure-tls-key and --client-ca only apply with --secure-port");
        assertThatThrownBy(() -> parse("--secure-port=70000", "--secure-tls-cert=a", "--secure-tls-key=b",
                "--client-ca=c").resolve()).hasMessage("secure port must be 0..65535, got 70000");
        // the config file's server.secure, flags winning
        Path cfg = dir.resolve("serve.yaml");
        Files.writeString(cfg, """
                server:
                  secure:
                    port: 9443
                    certFile: /f/tls.crt
                    keyFile: /f/tls.key
                    clientCAFile: /f/ca.crt
                """);
        var f = parse("--config", cfg.toString(), "--secure-port=9444").resolve();
        assertThat(f.secure().port()).isEqualTo(9444);
        assertThat(f.secure().clientCa().caBundle()).isEqualTo(Path.of("/f/ca.crt"));
    }

    @Test
    void leaderElectionTimingFlags() {
        var r = parse("--leader-elect", "--leader-elect-lease-duration=4s", "--leader-elect-renew-deadline=3s",
                "--leader-elect-retry-period=500ms").resolve();
        assertThat(r.leaderTiming()).isEqualTo(new LeaderElection.Timing(Duration.ofSeconds(4), Duration.ofSeconds(3),
                Duration.ofMillis(500)));
        assertThatThrownBy(() -> parse("--leader-elect", "--leader-elect-lease-duration=8s").resolve())
                .isInstanceOf(InputException.class)
                .hasMessage("leader election lease duration (8000 ms) must be longer than the renew deadline (10000 ms) "
                        + "(--leader-elect-lease-duration, --leader-elect-renew-deadline, --leader-elect-retry-period)");
        assertThatThrownBy(() -> parse("--leader-elect-retry-period=1s", "--leader-label=railyard.dev/leader").resolve())
                .isInstanceOf(InputException.class)
                .hasMessage("--leader-elect-retry-period, --leader-label only apply with --leader-elect");
        assertThatThrownBy(() -> parse("--leader-elect", "--no-cluster").resolve())
                .isInstanceOf(InputException.class)
                .hasMessage("--leader-elect has no effect with --no-cluster (every answer is neutral); drop one of them");
    }

    @Test
    void fileValuesApplyAndFlagsWin(@TempDir Path dir) throws Exception {
        Path cfg = dir.resolve("serve.yaml");
        Files.writeString(cfg, """
                server:
                  address: 127.0.0.1
                  port: 9443
                  maxRequestSize: 32Mi
                  tls:
                    certFile: /etc/railyard/tls/tls.crt
                    keyFile: /etc/railyard/tls/tls.key
                placement:
                  neutralScore: 40
                volcano:
                  scoreWeight: 2.5
                  replyDialect: v1.8
                logging:
                  level: debug
                """);
        var r = parse("--config", cfg.toString(), "--port", "0", "--volcano-reply-dialect", "v1.7").resolve();
        assertThat(r.server().address().getHostString()).isEqualTo("127.0.0.1");
        assertThat(r.server().address().getPort()).isZero();                       // flag wins
        assertThat(r.server().maxRequestBytes()).isEqualTo(32L << 20);             // 32Mi = 33554432 bytes
        assertThat(r.server().tls()).isEqualTo(new TlsSettings.Pem(Path.of("/etc/railyard/tls/tls.crt"), Path.of("/etc/railyard/tls/tls.key")));
        assertThat(r.neutralScore()).isEqualTo(40);
        assertThat(r.volcano().neutralScore()).isEqualTo(40);
        assertThat(r.volcano().scoreWeight()).isEqualTo(2.5);
        assertThat(r.volcano().dialect()).isEqualTo(VolcanoReplyDialect.V1_6);    // flag v1.7 -> v1.6 shape
        assertThat(r.logLevel()).isEqualTo("debug");
    }

    @Test
    void unknownConfigKeyNamesFileLineAndKnownKeys(@TempDir Path dir) throws Exception {
        Path cfg = dir.resolve("serve.yaml");
        Files.writeString(cfg, "server:\n  port: 8888\n  prot: 9\n");
        assertThatThrownBy(() -> parse("--config", cfg.toString()).resolve())
                .isInstanceOf(InputException.class)
                .hasMessage(cfg + ": unknown key \"server.prot\" (known here: address, idleTimeout, maxIdleConnections, "
                        + "maxRequestSize, port, requestReadTimeout, secure, tls)");
    }

    @Test
    void badValuesAreOneLineErrors(@TempDir Path dir) throws Exception {
        assertThatThrownBy(() -> parse("--neutral-score", "101").resolve())
                .isInstanceOf(InputException.class).hasMessage("neutral score must be 0..100, got 101");
        assertThatThrownBy(() -> parse("--volcano-reply-dialect", "v2.0").resolve())
                .isInstanceOf(InputException.class)
                .hasMessageStartingWith("unknown Volcano reply dialect \"v2.0\"");
        assertThatThrownBy(() -> parse("--max-request-size", "huge").resolve())
                .isInstanceOf(InputException.class)
                .hasMessage("max request size \"huge\" is not a byte count or quantity like 64Mi");
        assertThatThrownBy(() -> parse("--tls-cert", "/x.crt").resolve())
                .isInstanceOf(InputException.class).hasMessage("TLS: PEM needs both a certificate file and a key file");
        assertThatThrownBy(() -> parse("--log-level", "loud").resolve())
                .isInstanceOf(InputException.class)
                .hasMessage("log level must be one of error, warn, info, debug, trace; got \"loud\"");
        Path cfg = dir.resolve("bad.yaml");
        Files.writeString(cfg, "placement:\n  neutralScore: lots\n");
        assertThatThrownBy(() -> parse("--config", cfg.toString()).resolve())
                .isInstanceOf(InputException.class)
                .hasMessage(cfg + ":2:17: bad value for \"placement.neutralScore\": not a valid integer");
        Files.writeString(cfg, "logging:\n  level: bogus\n");
        assertThatThrownBy(() -> parse("--config", cfg.toString()).resolve())
                .isInstanceOf(InputException.class).hasMessage("log level must be one of error, warn, info, debug, "
                        + "trace; got \"bogus\" (--log-level or logging.level in " + cfg + ")");
        assertThatThrownBy(() -> parse("--config", dir.resolve("missing.yaml").toString()).resolve())
                .isInstanceOf(InputException.class).hasMessage(dir.resolve("missing.yaml") + ": no such config file");
    }

    @Test
    void sizesTakeBytesOrQuantities() {
        assertThat(ServeCommand.parseSize("1048576", "")).isEqualTo(1L << 20);
        assertThat(ServeCommand.parseSize("64Mi", "")).isEqualTo(64L << 20);
        assertThat(ServeCommand.parseSize("100M", "")).isEqualTo(100_000_000L);
    }

    @Test
    void selfSignedWebhookFlagsGoTogether() {
        // the set the Helm chart passes without cert-manager (templates/extender-deployment.yaml)
        parse("--webhook-port=8443", "--webhook-self-signed", "--webhook-secret=railyard-webhook-tls",
                "--webhook-configuration=railyard-hints", "--webhook-service=railyard").checkWebhookFlags();
        parse("--webhook-port=8443", "--webhook-tls-cert=/t/tls.crt", "--webhook-tls-key=/t/tls.key")
                .checkWebhookFlags();
        assertThatThrownBy(() -> parse("--webhook-self-signed", "--webhook-secret=s").checkWebhookFlags())
                .isInstanceOf(InputException.class)
                .hasMessage("--webhook-self-signed needs --webhook-port, --webhook-configuration, --webhook-service");
        assertThatThrownBy(() -> parse("--webhook-port=8443", "--webhook-self-signed", "--webhook-secret=s",
                "--webhook-configuration=c", "--webhook-service=svc", "--webhook-tls-cert=/t/tls.crt")
                .checkWebhookFlags())
                .isInstanceOf(InputException.class)
                .hasMessage("--webhook-self-signed and --webhook-tls-cert/--webhook-tls-key exclude each other: "
                        + "give either PEM files or --webhook-self-signed");
        assertThatThrownBy(() -> parse("--webhook-port=8443", "--webhook-service=svc").checkWebhookFlags())
                .isInstanceOf(InputException.class)
                .hasMessage("--webhook-secret, --webhook-configuration and --webhook-service only apply with "
                        + "--webhook-self-signed");
    }

    @Test
    void conflictingWebhookFlagsExitTwoWithOneLine() {
        java.io.StringWriter err = new java.io.StringWriter();
        CommandLine cli = RailyardCommand.commandLine();
        cli.setErr(new java.io.PrintWriter(err, true));
        int rc = cli.execute("serve", "--kubeconfig=/nonexistent/kubeconfig", "--webhook-port=8443", "--webhook-self-signed",
                "--webhook-secret=s", "--webhook-configuration=c", "--webhook-service=svc",
                "--webhook-tls-cert=/t/tls.crt", "--webhook-tls-key=/t/tls.key");
        assertThat(rc).isEqualTo(2);
        assertThat(err.toString().strip()).contains("--webhook-self-signed and --webhook-tls-cert/--webhook-tls-key "
                + "exclude each other").doesNotContain("\n").doesNotContain("at dev.railyard");
    }

    /** Without a cluster, /explain is mounted to say why it cannot answer, not left to the generic 404. */
    @Test
    void noClusterExplainSaysItNeedsACluster() throws Exception {
        var r = parse("--no-cluster").resolve();
        var registry = new io.micrometer.prometheusmetrics.PrometheusMeterRegistry(
                io.micrometer.prometheusmetrics.PrometheusConfig.DEFAULT);
        java.util.Map<String, dev.railyard.scheduler.protocol.VerbHandler> routes = new java.util.LinkedHashMap<>();
        ServeCommand.mountVerbs(r, null, new dev.railyard.scheduler.protocol.NeutralPlacementDecisions(50, "test"),
                dev.railyard.scheduler.protocol.kube.Binder.unwired(), registry, routes, new java.util.LinkedHashMap<>());
        var reply = routes.get("/explain").handle("{\"command\":\"pools\"}".getBytes(java.nio.charset.StandardCharsets.UTF_8));
        assertThat(reply.status()).isEqualTo(404);
        assertThat(reply.bodyText().strip()).isEqualTo("/explain needs a cluster (serve without --no-cluster)");
    }

    @Test
    void requestBytesInFlightFlag() {
        assertThat(parse("--request-bytes-in-flight=256Mi").resolve().server().bodyBudget().bytes()).isEqualTo(256L << 20);
        // default: a quarter of this JVM's heap (RequestBodyBudget.defaultBytes)
        assertThat(parse().resolve().server().bodyBudget().bytes())
                .isEqualTo(Math.max(Runtime.getRuntime().maxMemory() / 4, 16L << 20));
        assertThatThrownBy(() -> parse("--request-bytes-in-flight=lots").resolve()).isInstanceOf(InputException.class)
                .hasMessage("request bytes in flight \"lots\" is not a byte count or quantity like 64Mi");
    }
}
