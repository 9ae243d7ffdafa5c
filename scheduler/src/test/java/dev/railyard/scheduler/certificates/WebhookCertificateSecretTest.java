package dev.railyard.scheduler.certificates;

import dev.railyard.scheduler.server.ExtenderServer;
import dev.railyard.scheduler.server.ReadinessProbe;
import dev.railyard.scheduler.server.ReloadableKeyManager;
import dev.railyard.scheduler.server.ServerSettings;
import dev.railyard.scheduler.server.TlsSettings;
import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.api.model.SecretBuilder;
import io.fabric8.kubernetes.api.model.admissionregistration.v1.MutatingWebhook;
import io.fabric8.kubernetes.api.model.admissionregistration.v1.MutatingWebhookConfigurationBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.EnableKubernetesMockClient;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import javax.net.ssl.SNIHostName;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLParameters;
import javax.net.ssl.SSLSocket;
import javax.net.ssl.TrustManagerFactory;
import java.io.ByteArrayInputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.security.KeyStore;
import java.security.cert.Certificate;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The Secret and caBundle handling against fabric8's mock API server in CRUD mode (never a real API server). */
@EnableKubernetesMockClient(crud = true)
class WebhookCertificateSecretTest {
    static final String NS = "railyard-system";
    static final String SECRET = "railyard-webhook-tls";
    static final String CONFIG = "railyard-hints";
    static final String SERVICE = "railyard";

    KubernetesMockServer server;
    KubernetesClient client;

    @BeforeEach
    void chartObjects() {
        // what the Helm chart creates: the Secret empty, the webhook configuration without caBundle
        client.secrets().inNamespace(NS).resource(new SecretBuilder().withNewMetadata().withName(SECRET)
                .withNamespace(NS).endMetadata().withType("Opaque").build()).create();
        client.admissionRegistration().v1().mutatingWebhookConfigurations().resource(
                new MutatingWebhookConfigurationBuilder().withNewMetadata().withName(CONFIG).endMetadata()
                        .addNewWebhook().withName("pods-binding.hints.railyard.dev")
                        .withAdmissionReviewVersions("v1").withSideEffects("NoneOnDryRun")
                        .withNewClientConfig().withNewService().withName(SERVICE).withNamespace(NS).withPort(443)
                        .withPath("/admission/pods-binding").endService().endClientConfig().endWebhook()
                        .build()).create();
    }

    private WebhookCertificateSecret store() {
        return WebhookCertificateSecret.of(client, NS, SECRET, CONFIG, SERVICE, Clock.systemUTC());
    }

    private WebhookCertificateSecret store(WebhookCertificateSecret.Issuer issuer) {
        return new WebhookCertificateSecret(client, NS, SECRET, CONFIG, SERVICE, Clock.systemUTC(), issuer);
    }

    private Secret secret() {
        return client.secrets().inNamespace(NS).withName(SECRET).get();
    }

    private static String decoded(Secret s, String key) {
        return new String(Base64.getDecoder().decode(s.getData().get(key)), StandardCharsets.UTF_8);
    }

    private String caBundle() {
        List<MutatingWebhook> hooks = client.admissionRegistration().v1().mutatingWebhookConfigurations()
                .withName(CONFIG).get().getWebhooks();
        assertThat(hooks).hasSize(1);
        String b = hooks.getFirst().getClientConfig().getCaBundle();
        return b == null ? null : new String(Base64.getDecoder().decode(b), StandardCharsets.UTF_8);
    }

    @Test
    void emptySecretGetsACertificateTheCaBundleAndAServerThatVerifiesForTheServiceName() throws Exception {
        ServingCertificate c = store().ensure();

        Secret s = secret();
        assertThat(s.getData()).containsOnlyKeys("tls.crt", "tls.key", "ca.crt");
        assertThat(decoded(s, "tls.crt")).isEqualTo(c.certificatePem());
        assertThat(decoded(s, "tls.key")).isEqualTo(c.privateKeyPem()).startsWith("-----BEGIN PRIVATE KEY-----");
        assertThat(decoded(s, "ca.crt")).isEqualTo(c.caBundlePem());
        assertThat(s.getType()).isEqualTo("Opaque");                  // a Secret's type cannot change
        assertThat(caBundle()).isEqualTo(decoded(s, "ca.crt"));

        ReloadableKeyManager keys = new ReloadableKeyManager(c.key(), new X509Certificate[]{c.certificate()});
        try (ExtenderServer webhook = startServer(keys)) {
            X509Certificate seen = handshake(webhook.port(), decoded(s, "ca.crt"), "railyard.railyard-system.svc");
            assertThat(seen).isEqualTo(c.certificate());
            assertThat(seen.getSubjectAlternativeNames().stream().map(n -> (Object) n.get(1)).toList())
                    .contains("railyard.railyard-system.svc");
            // a name the certificate is not for fails the same check (so the pass above is the SAN match)
            assertThatThrownBy(() -> handshake(webhook.port(), decoded(s, "ca.crt"), "other.railyard-system.svc"))
                    .isInstanceOf(javax.net.ssl.SSLHandshakeException.class)
                    .hasMessageContaining("No subject alternative");
        }
    }

    @Test
    void aValidSecretIsReusedUnchanged() {
        ServingCertificate first = store().ensure();
        String version = secret().getMetadata().getResourceVersion();
        String bundle = caBundle();

        AtomicInteger issued = new AtomicInteger();
        ServingCertificate again = store((names, prev) -> {
            issued.incrementAndGet();
            return ServingCertificate.generate(names, Instant.now(), ServingCertificate.VALIDITY, prev);
        }).ensure();

        assertThat(issued).hasValue(0);
        assertThat(again.certificate()).isEqualTo(first.certificate());
        assertThat(again.key().getEncoded()).isEqualTo(first.key().getEncoded());
        assertThat(secret().getMetadata().getResourceVersion()).isEqualTo(version);
        assertThat(caBundle()).isEqualTo(bundle);
    }

    @Test
    void aNearlyExpiredCertificateIsRegeneratedAndTheOldCaStaysTrustedBesideTheNew() {
        // 250 days into a 365-day lifetime: 115 days left, less than a third (121.7 days)
        ServingCertificate old = store((names, prev) -> ServingCertificate.generate(names,
                Instant.now().minus(Duration.ofDays(250)), ServingCertificate.VALIDITY, prev)).ensure();

        ServingCertificate renewed = store().ensure();

        assertThat(renewed.certificate()).isNotEqualTo(old.certificate());
        assertThat(renewed.problem(store().dnsNames(), Instant.now())).isEmpty();
        assertThat(decoded(secret(), "tls.crt")).isEqualTo(renewed.certificatePem());
        assertThat(renewed.caBundle()).containsExactly(renewed.caBundle().getFirst(), old.caBundle().getFirst());
        assertThat(caBundle()).isEqualTo(renewed.caBundlePem());
    }

    @Test
    void onAConflictTheOtherWritersCertificateIsUsed() {
        WebhookCertificateSecret replicaA = store();
        AtomicInteger issued = new AtomicInteger();
        ServingCertificate[] fromA = new ServingCertificate[1];
        // replica B read the empty Secret; while it generates, replica A writes its certificate first
        WebhookCertificateSecret replicaB = store((names, prev) -> {
            issued.incrementAndGet();
            fromA[0] = replicaA.ensure();
            return ServingCertificate.generate(names, Instant.now(), ServingCertificate.VALIDITY, prev);
        });

        ServingCertificate b = replicaB.ensure();

        assertThat(issued).hasValue(1);                    // B's own certificate was never stored
        assertThat(b.certificate()).isEqualTo(fromA[0].certificate());
        assertThat(decoded(secret(), "tls.crt")).isEqualTo(fromA[0].certificatePem());
        assertThat(caBundle()).isEqualTo(fromA[0].caBundlePem());
    }

    @Test
    void rotationLoadsTheRenewedCertificateIntoTheRunningListener() throws Exception {
        ServingCertificate old = store((names, prev) -> ServingCertificate.generate(names,
                Instant.now().minus(Duration.ofDays(250)), ServingCertificate.VALIDITY, prev)).ensure();
        ReloadableKeyManager keys = new ReloadableKeyManager(old.key(), new X509Certificate[]{old.certificate()});
        try (ExtenderServer webhook = startServer(keys);
             WebhookCertificateRotation rotation = new WebhookCertificateRotation(store(), keys)) {
            assertThat(handshake(webhook.port(), old.caBundlePem(), "railyard.railyard-system.svc"))
                    .isEqualTo(old.certificate());

            assertThat(rotation.check()).isTrue();

            ServingCertificate renewed = ServingCertificate.fromPem(decoded(secret(), "tls.crt"),
                    decoded(secret(), "tls.key"), decoded(secret(), "ca.crt"));
            assertThat(renewed.certificate()).isNotEqualTo(old.certificate());
            // the same port now presents the renewed certificate, verified by the published bundle
            assertThat(handshake(webhook.port(), caBundle(), "railyard.railyard-system.svc"))
                    .isEqualTo(renewed.certificate());
            assertThat(rotation.check()).isFalse();        // nothing due: the served certificate stays
        }
    }

    @Test
    void missingSecretIsAOneLineError() {
        client.secrets().inNamespace(NS).withName(SECRET).delete();
        assertThatThrownBy(() -> store().ensure())
                .isInstanceOf(WebhookCertificateSecret.CertificateStoreException.class)
                .hasMessage("Secret railyard-system/railyard-webhook-tls does not exist: create it empty (the Helm "
                        + "chart does; by hand: kubectl -n railyard-system create secret generic railyard-webhook-tls)");
    }

    private static ExtenderServer startServer(ReloadableKeyManager keys) throws Exception {
        ServerSettings settings = new ServerSettings(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0),
                ServerSettings.DEFAULT_MAX_REQUEST_BYTES, new TlsSettings.InMemory(keys));
        return ExtenderServer.start(settings, Map.of(), ReadinessProbe.always(),
                new PrometheusMeterRegistry(PrometheusConfig.DEFAULT));
    }

    /**
     * TLS handshake trusting only {@code caPem}, with SNI and HTTPS endpoint identification for {@code host}: the
     * JDK checks the certificate against the SNI name (the certificate has no 127.0.0.1 SAN, so only a matching
     * DNS SAN passes), then a GET /healthz over the connection.
     */
    private static X509Certificate handshake(int port, String caPem, String host) throws Exception {
        KeyStore trust = KeyStore.getInstance("PKCS12");
        trust.load(null, null);
        int i = 0;
        for (Certificate ca : CertificateFactory.getInstance("X.509").generateCertificates(
                new ByteArrayInputStream(caPem.getBytes(StandardCharsets.US_ASCII)))) {
            trust.setCertificateEntry("ca-" + i++, ca);
        }
        TrustManagerFactory tmf = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
        tmf.init(trust);
        SSLContext ctx = SSLContext.getInstance("TLS");
        ctx.init(null, tmf.getTrustManagers(), null);
        try (SSLSocket socket = (SSLSocket) ctx.getSocketFactory().createSocket("127.0.0.1", port)) {
            SSLParameters p = socket.getSSLParameters();
            p.setServerNames(List.of(new SNIHostName(host)));
            p.setEndpointIdentificationAlgorithm("HTTPS");
            socket.setSSLParameters(p);
            socket.setSoTimeout(5000);
            socket.startHandshake();
            socket.getOutputStream().write("GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"
                    .getBytes(StandardCharsets.US_ASCII));
            String reply = new String(socket.getInputStream().readAllBytes(), StandardCharsets.US_ASCII);
            assertThat(reply).startsWith("HTTP/1.1 200");
            return (X509Certificate) socket.getSession().getPeerCertificates()[0];
        }
    }
}
