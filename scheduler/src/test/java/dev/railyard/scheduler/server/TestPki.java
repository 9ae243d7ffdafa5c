package dev.railyard.scheduler.server;

import org.bouncycastle.asn1.x500.X500Name;
import org.bouncycastle.asn1.x509.BasicConstraints;
import org.bouncycastle.asn1.x509.ExtendedKeyUsage;
import org.bouncycastle.asn1.x509.Extension;
import org.bouncycastle.asn1.x509.GeneralName;
import org.bouncycastle.asn1.x509.GeneralNames;
import org.bouncycastle.asn1.x509.KeyPurposeId;
import org.bouncycastle.asn1.x509.KeyUsage;
import org.bouncycastle.cert.jcajce.JcaX509CertificateConverter;
import org.bouncycastle.cert.jcajce.JcaX509v3CertificateBuilder;
import org.bouncycastle.operator.jcajce.JcaContentSignerBuilder;

import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManagerFactory;
import java.math.BigInteger;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.KeyStore;
import java.security.SecureRandom;
import java.security.cert.X509Certificate;
import java.security.spec.ECGenParameterSpec;
import java.time.Duration;
import java.time.Instant;
import java.util.Base64;
import java.util.Date;

/**
 * A throw-away CA with a serving certificate for 127.0.0.1 and a client certificate, as PEM files, plus JDK client
 * contexts that trust the CA and present (or not) the client certificate. For tests of the secure listener.
 */
public final class TestPki {
    private static final SecureRandom RANDOM = new SecureRandom();

    /** One issued certificate and its key. */
    public record Issued(X509Certificate certificate, KeyPair keys) {
    }

    public final Issued ca;
    public final Issued server;
    public final Issued client;
    public final Path dir;

    private TestPki(Path dir, String name) throws Exception {
        this.dir = dir;
        this.ca = issue(null, "CN=" + name + "-ca", true, null);
        this.server = issue(ca, "CN=127.0.0.1", false, KeyPurposeId.id_kp_serverAuth);
        this.client = issue(ca, "CN=kube-scheduler", false, KeyPurposeId.id_kp_clientAuth);
        Files.writeString(caFile(), pem("CERTIFICATE", ca.certificate().getEncoded()));
        Files.writeString(serverCert(), pem("CERTIFICATE", server.certificate().getEncoded()));
        Files.writeString(serverKey(), pem("PRIVATE KEY", server.keys().getPrivate().getEncoded()));
        Files.writeString(clientCert(), pem("CERTIFICATE", client.certificate().getEncoded()));
        Files.writeString(clientKey(), pem("PRIVATE KEY", client.keys().getPrivate().getEncoded()));
    }

    /** Makes the CA and both certificates (ECDSA P-256) and writes their PEM files into {@code dir}. */
    public static TestPki create(Path dir, String name) throws Exception {
        Files.createDirectories(dir);
        return new TestPki(dir, name);
    }

    public Path caFile() {
        return dir.resolve("ca.crt");
    }

    public Path serverCert() {
        return dir.resolve("tls.crt");
    }

    public Path serverKey() {
        return dir.resolve("tls.key");
    }

    public Path clientCert() {
        return dir.resolve("client.crt");
    }

    public Path clientKey() {
        return dir.resolve("client.key");
    }

    /**
     * A client context trusting {@code trusted}'s CA, presenting {@code presented}'s client certificate (or none).
     */
    public static SSLContext clientContext(TestPki trusted, TestPki presented) throws Exception {
        return clientContext(trusted, presented, false);
    }

    /**
     * @param always present the certificate even when the server's list of acceptable CAs does not name its issuer
     *               (the JDK's and Go's clients then send none; a hostile client sends it anyway)
     */
    public static SSLContext clientContext(TestPki trusted, TestPki presented, boolean always) throws Exception {
        return clientContext(trusted, presented == null ? null : presented.client, always);
    }

    /** A client context trusting {@code trusted}'s CA, presenting {@code presented} (or none). */
    public static SSLContext clientContext(TestPki trusted, Issued presented, boolean always) throws Exception {
        KeyStore trust = KeyStore.getInstance("PKCS12");
        trust.load(null, null);
        trust.setCertificateEntry("ca", trusted.ca.certificate());
        TrustManagerFactory tmf = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
        tmf.init(trust);
        javax.net.ssl.KeyManager[] keys = null;
        if (presented != null) {
            KeyStore ks = KeyStore.getInstance("PKCS12");
            ks.load(null, null);
            ks.setKeyEntry("client", presented.keys().getPrivate(), new char[0],
                    new X509Certificate[]{presented.certificate()});
            KeyManagerFactory kmf = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
            kmf.init(ks, new char[0]);
            keys = kmf.getKeyManagers();
            if (always) {
                var km = (javax.net.ssl.X509ExtendedKeyManager) keys[0];
                keys = new javax.net.ssl.KeyManager[]{new javax.net.ssl.X509ExtendedKeyManager() {
                    @Override
                    public String[] getClientAliases(String keyType, java.security.Principal[] issuers) {
                        return new String[]{"client"};
                    }

                    @Override
                    public String chooseClientAlias(String[] keyType, java.security.Principal[] issuers,
                                                    java.net.Socket socket) {
                        return "client";
                    }

                    @Override
                    public String chooseEngineClientAlias(String[] keyType, java.security.Principal[] issuers,
                                                          javax.net.ssl.SSLEngine engine) {
                        return "client";
                    }

                    @Override
                    public String[] getServerAliases(String keyType, java.security.Principal[] issuers) {
                        return null;
                    }

                    @Override
                    public String chooseServerAlias(String keyType, java.security.Principal[] issuers,
                                                    java.net.Socket socket) {
                        return null;
                    }

                    @Override
                    public X509Certificate[] getCertificateChain(String alias) {
                        return km.getCertificateChain(alias);
                    }

                    @Override
                    public java.security.PrivateKey getPrivateKey(String alias) {
                        return km.getPrivateKey(alias);
                    }
                }};
            }
        }
        SSLContext ctx = SSLContext.getInstance("TLS");
        ctx.init(keys, tmf.getTrustManagers(), null);
        return ctx;
    }

    /**
     * Issues another client certificate from this CA.
     *
     * @param notBefore start of validity
     * @param notAfter  end of validity
     * @param purpose   its one extended key usage (clientAuth for kube-scheduler's)
     */
    public Issued issueClient(String subject, Instant notBefore, Instant notAfter, KeyPurposeId purpose)
            throws Exception {
        return issue(ca, subject, false, purpose, notBefore, notAfter);
    }

    private static Issued issue(Issued issuer, String subject, boolean isCa, KeyPurposeId purpose) throws Exception {
        Instant now = Instant.now();
        return issue(issuer, subject, isCa, purpose, now.minus(Duration.ofMinutes(5)), now.plus(Duration.ofDays(1)));
    }

    private static Issued issue(Issued issuer, String subject, boolean isCa, KeyPurposeId purpose, Instant notBefore,
                                Instant notAfter) throws Exception {
        KeyPairGenerator gen = KeyPairGenerator.getInstance("EC");
        gen.initialize(new ECGenParameterSpec("secp256r1"), RANDOM);
        KeyPair keys = gen.generateKeyPair();
        X500Name issuerName = new X500Name(issuer == null ? subject
                : issuer.certificate().getSubjectX500Principal().getName());
        var b = new JcaX509v3CertificateBuilder(issuerName, new BigInteger(64, RANDOM).setBit(0),
                Date.from(notBefore), Date.from(notAfter), new X500Name(subject), keys.getPublic());
        if (isCa) {
            b.addExtension(Extension.basicConstraints, true, new BasicConstraints(0))
                    .addExtension(Extension.keyUsage, true, new KeyUsage(KeyUsage.keyCertSign | KeyUsage.cRLSign));
        } else {
            b.addExtension(Extension.basicConstraints, true, new BasicConstraints(false))
                    .addExtension(Extension.keyUsage, true, new KeyUsage(KeyUsage.digitalSignature))
                    .addExtension(Extension.extendedKeyUsage, false, new ExtendedKeyUsage(purpose))
                    .addExtension(Extension.subjectAlternativeName, false, new GeneralNames(new GeneralName[]{
                            new GeneralName(GeneralName.iPAddress, "127.0.0.1"),
                            new GeneralName(GeneralName.dNSName, "localhost")}));
        }
        var signer = new JcaContentSignerBuilder("SHA256withECDSA")
                .build(issuer == null ? keys.getPrivate() : issuer.keys().getPrivate());
        return new Issued(new JcaX509CertificateConverter().getCertificate(b.build(signer)), keys);
    }

    private static String pem(String type, byte[] der) {
        return "-----BEGIN " + type + "-----\n" + Base64.getMimeEncoder(64, "\n".getBytes()).encodeToString(der)
                + "\n-----END " + type + "-----\n";
    }
}
