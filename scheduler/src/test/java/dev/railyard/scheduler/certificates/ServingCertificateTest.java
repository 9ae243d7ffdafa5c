package dev.railyard.scheduler.certificates;

import dev.railyard.scheduler.server.TlsSettings;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.ByteArrayInputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import java.security.interfaces.ECPublicKey;
import java.time.Duration;
import java.time.Instant;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class ServingCertificateTest {
    static final List<String> NAMES = WebhookCertificateSecret.dnsNames("railyard", "railyard-system");
    static final Instant NOW = Instant.parse("2026-11-30T08:00:00Z");

    @Test
    void generatedCertificateIsAnEcP256ServerCertificateForTheServiceNamesSignedByItsCa() throws Exception {
        ServingCertificate c = ServingCertificate.generate(NAMES, NOW, ServingCertificate.VALIDITY, null);
        X509Certificate leaf = c.certificate();
        assertThat(NAMES).containsExactly("railyard.railyard-system.svc", "railyard.railyard-system.svc.cluster.local",
                "railyard");
        assertThat(leaf.getSubjectAlternativeNames().stream().map(n -> (Object) n.get(1)).toList()).containsExactlyElementsOf(NAMES);
        assertThat(leaf.getSubjectX500Principal().getName()).isEqualTo("CN=railyard.railyard-system.svc");
        // P-256: a 256-bit prime field (SEC 2 secp256r1)
        assertThat(((ECPublicKey) leaf.getPublicKey()).getParams().getCurve().getField().getFieldSize()).isEqualTo(256);
        assertThat(leaf.getSigAlgName()).isEqualTo("SHA256withECDSA");
        assertThat(leaf.getExtendedKeyUsage()).containsExactly("1.3.6.1.5.5.7.3.1");      // id-kp-serverAuth
        assertThat(leaf.getBasicConstraints()).isEqualTo(-1);                             // not a CA
        assertThat(leaf.getNotBefore().toInstant()).isEqualTo(NOW.minus(Duration.ofMinutes(5)));
        assertThat(leaf.getNotAfter().toInstant()).isEqualTo(NOW.plus(Duration.ofDays(365)));
        X509Certificate ca = c.caBundle().getFirst();
        assertThat(c.caBundle()).hasSize(1);
        assertThat(ca.getBasicConstraints()).isZero();                                    // CA, pathlen 0
        leaf.verify(ca.getPublicKey());                                                   // throws if not signed by it
        ca.verify(ca.getPublicKey());                                                     // self-signed
        assertThat(leaf.getIssuerX500Principal()).isEqualTo(ca.getSubjectX500Principal());
    }

    @Test
    void pemRoundTripsAndTheKeyIsPkcs8AsTheServerReadsIt(@TempDir Path dir) throws Exception {
        ServingCertificate c = ServingCertificate.generate(NAMES, NOW, ServingCertificate.VALIDITY, null);
        assertThat(c.privateKeyPem()).startsWith("-----BEGIN PRIVATE KEY-----\n");
        assertThat(c.certificatePem()).startsWith("-----BEGIN CERTIFICATE-----\n");
        ServingCertificate back = ServingCertificate.fromPem(c.certificatePem(), c.privateKeyPem(), c.caBundlePem());
        assertThat(back.certificate()).isEqualTo(c.certificate());
        assertThat(back.caBundle()).isEqualTo(c.caBundle());
        assertThat(back.key().getEncoded()).isEqualTo(c.key().getEncoded());
        // the JDK reads the PEM, and the --webhook-tls-cert/--webhook-tls-key reader accepts the pair
        var jdk = CertificateFactory.getInstance("X.509").generateCertificate(
                new ByteArrayInputStream(c.certificatePem().getBytes(StandardCharsets.US_ASCII)));
        assertThat(jdk).isEqualTo(c.certificate());
        Path crt = Files.writeString(dir.resolve("tls.crt"), c.certificatePem());
        Path key = Files.writeString(dir.resolve("tls.key"), c.privateKeyPem());
        assertThat(new TlsSettings.Pem(crt, key).sslContext()).isNotNull();
    }

    @Test
    void aThirdOfTheLifetimeLeftIsTheRenewalLine() {
        Duration validity = ServingCertificate.VALIDITY;
        // lifetime = 365 d + 5 min (backdated 5 min); a third of it = 121 d 16 h 1 min 40 s
        ServingCertificate aged240 = ServingCertificate.generate(NAMES, NOW.minus(Duration.ofDays(240)), validity, null);
        // 125 days left: 3 x 125 d = 375 d > 365 d 5 min, still fine
        assertThat(aged240.problem(NAMES, NOW)).isEmpty();
        ServingCertificate aged250 = ServingCertificate.generate(NAMES, NOW.minus(Duration.ofDays(250)), validity, null);
        // 115 days left: 3 x 115 d = 345 d < 365 d 5 min, due
        assertThat(aged250.problem(NAMES, NOW)).contains("the serving certificate expires 2027-03-25T08:00:00Z, "
                + "less than a third of its lifetime left");
        ServingCertificate future = ServingCertificate.generate(NAMES, NOW.plus(Duration.ofDays(1)), validity, null);
        assertThat(future.problem(NAMES, NOW)).contains("the serving certificate is not valid before 2026-12-01T07:55:00Z");
    }

    @Test
    void aCertificateForAnotherServiceOrAMismatchedKeyIsRefused() {
        ServingCertificate other = ServingCertificate.generate(WebhookCertificateSecret.dnsNames("old", "railyard-system"),
                NOW, ServingCertificate.VALIDITY, null);
        assertThat(other.problem(NAMES, NOW)).contains("it is not for railyard.railyard-system.svc (SANs [old, "
                + "old.railyard-system.svc, old.railyard-system.svc.cluster.local])");
        ServingCertificate mine = ServingCertificate.generate(NAMES, NOW, ServingCertificate.VALIDITY, null);
        assertThatThrownBy(() -> ServingCertificate.fromPem(mine.certificatePem(), other.privateKeyPem(), mine.caBundlePem()))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("tls.key does not match the certificate in tls.crt");
        assertThatThrownBy(() -> ServingCertificate.fromPem(mine.certificatePem(), mine.privateKeyPem(), other.caBundlePem()))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("no CA in ca.crt signed the certificate in tls.crt");
        assertThatThrownBy(() -> ServingCertificate.fromPem("", mine.privateKeyPem(), mine.caBundlePem()))
                .isInstanceOf(IllegalArgumentException.class).hasMessage("tls.crt holds no PEM certificate");
    }

    @Test
    void renewalKeepsThePreviousCaInTheBundleWhileItIsValid() {
        ServingCertificate old = ServingCertificate.generate(NAMES, NOW.minus(Duration.ofDays(250)),
                ServingCertificate.VALIDITY, null);
        ServingCertificate renewed = ServingCertificate.generate(NAMES, NOW, ServingCertificate.VALIDITY,
                old.caBundle().getFirst());
        assertThat(renewed.caBundle()).hasSize(2);
        assertThat(renewed.caBundle().get(1)).isEqualTo(old.caBundle().getFirst());
        // fromPem puts the issuer first whatever the order in ca.crt
        ServingCertificate back = ServingCertificate.fromPem(renewed.certificatePem(), renewed.privateKeyPem(),
                renewed.caBundlePem());
        assertThat(back.caBundle()).containsExactlyElementsOf(renewed.caBundle());
        // an expired previous CA is dropped
        ServingCertificate expired = ServingCertificate.generate(NAMES, NOW.minus(Duration.ofDays(400)),
                ServingCertificate.VALIDITY, null);
        assertThat(ServingCertificate.generate(NAMES, NOW, ServingCertificate.VALIDITY,
                expired.caBundle().getFirst()).caBundle()).hasSize(1);
    }
}
