package dev.railyard.scheduler.certificates;

import org.bouncycastle.asn1.x500.X500Name;
import org.bouncycastle.asn1.x509.BasicConstraints;
import org.bouncycastle.asn1.x509.ExtendedKeyUsage;
import org.bouncycastle.asn1.x509.Extension;
import org.bouncycastle.asn1.x509.GeneralName;
import org.bouncycastle.asn1.x509.GeneralNames;
import org.bouncycastle.asn1.x509.KeyPurposeId;
import org.bouncycastle.asn1.x509.KeyUsage;
import org.bouncycastle.asn1.pkcs.PrivateKeyInfo;
import org.bouncycastle.cert.X509CertificateHolder;
import org.bouncycastle.cert.X509v3CertificateBuilder;
import org.bouncycastle.cert.jcajce.JcaX509CertificateConverter;
import org.bouncycastle.cert.jcajce.JcaX509ExtensionUtils;
import org.bouncycastle.cert.jcajce.JcaX509v3CertificateBuilder;
import org.bouncycastle.openssl.PEMKeyPair;
import org.bouncycastle.openssl.PEMParser;
import org.bouncycastle.openssl.jcajce.JcaPEMKeyConverter;
import org.bouncycastle.operator.OperatorCreationException;
import org.bouncycastle.operator.jcajce.JcaContentSignerBuilder;
import org.bouncycastle.util.io.pem.PemObject;
import org.bouncycastle.util.io.pem.PemWriter;

import java.io.IOException;
import java.io.StringReader;
import java.io.StringWriter;
import java.math.BigInteger;
import java.security.GeneralSecurityException;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.PrivateKey;
import java.security.SecureRandom;
import java.security.Signature;
import java.security.cert.CertificateParsingException;
import java.security.cert.X509Certificate;
import java.security.spec.ECGenParameterSpec;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Date;
import java.util.HashSet;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;

/**
 * A serving certificate, its private key and the CA bundle that verifies it: the {@code tls.crt},
 * {@code tls.key} (PEM PKCS#8) and {@code ca.crt} keys of a Secret, as cert-manager lays them out.
 *
 * @param certificate the serving (leaf) certificate
 * @param key         its private key
 * @param caBundle    trusted CAs, the issuer of {@code certificate} first; during a rotation the previous CA
 *                    follows so replicas still serving the old certificate stay verifiable
 */
public record ServingCertificate(X509Certificate certificate, PrivateKey key, List<X509Certificate> caBundle) {
    /** Validity of a generated CA and serving certificate: one year. */
    public static final Duration VALIDITY = Duration.ofDays(365);
    /** A generated certificate's notBefore lies this far before now, for clocks slightly behind ours. */
    static final Duration BACKDATE = Duration.ofMinutes(5);
    private static final SecureRandom RANDOM = new SecureRandom();

    public ServingCertificate {
        Objects.requireNonNull(certificate, "certificate");
        Objects.requireNonNull(key, "key");
        caBundle = List.copyOf(caBundle);
        if (caBundle.isEmpty()) {
            throw new IllegalArgumentException("empty CA bundle");
        }
    }

    /**
     * Generates a new self-signed CA and a serving certificate it signs: ECDSA P-256 keys, SHA256withECDSA,
     * valid from {@code now - 5 min} for {@code validity}. The serving certificate has CN = the first DNS name,
     * every DNS name as a SAN, key usage digitalSignature and extended key usage serverAuth; the CA has
     * basicConstraints CA:true, pathlen 0 and key usage keyCertSign, cRLSign (RFC 5280 §4.2.1).
     *
     * @param dnsNames   SAN DNS names, the first also the subject CN
     * @param previousCa the CA being replaced, appended to the new bundle while it is unexpired; or null
     * @throws IllegalStateException when the JDK cannot make EC keys or sign (never on a standard JDK)
     */
    public static ServingCertificate generate(List<String> dnsNames, Instant now, Duration validity,
                                              X509Certificate previousCa) {
        if (dnsNames.isEmpty()) {
            throw new IllegalArgumentException("no DNS names");
        }
        try {
            KeyPairGenerator gen = KeyPairGenerator.getInstance("EC");
            gen.initialize(new ECGenParameterSpec("secp256r1"), RANDOM);
            KeyPair caKeys = gen.generateKeyPair();
            KeyPair leafKeys = gen.generateKeyPair();
            Date notBefore = Date.from(now.minus(BACKDATE));
            Date notAfter = Date.from(now.plus(validity));
            JcaX509ExtensionUtils ext = new JcaX509ExtensionUtils();

            X500Name caName = new X500Name("CN=railyard-webhook-ca@" + now.getEpochSecond());
            X509v3CertificateBuilder ca = new JcaX509v3CertificateBuilder(caName, serial(), notBefore, notAfter,
                    caName, caKeys.getPublic())
                    .addExtension(Extension.basicConstraints, true, new BasicConstraints(0))
                    .addExtension(Extension.keyUsage, true, new KeyUsage(KeyUsage.keyCertSign | KeyUsage.cRLSign))
                    .addExtension(Extension.subjectKeyIdentifier, false,
                            ext.createSubjectKeyIdentifier(caKeys.getPublic()));
            X509Certificate caCert = sign(ca, caKeys.getPrivate());

            GeneralName[] sans = dnsNames.stream().map(n -> new GeneralName(GeneralName.dNSName, n))
                    .toArray(GeneralName[]::new);
            X509v3CertificateBuilder leaf = new JcaX509v3CertificateBuilder(caName, serial(), notBefore, notAfter,
                    new X500Name("CN=" + dnsNames.getFirst()), leafKeys.getPublic())
                    .addExtension(Extension.basicConstraints, true, new BasicConstraints(false))
                    .addExtension(Extension.keyUsage, true, new KeyUsage(KeyUsage.digitalSignature))
                    .addExtension(Extension.extendedKeyUsage, false, new ExtendedKeyUsage(KeyPurposeId.id_kp_serverAuth))
                    .addExtension(Extension.subjectAlternativeName, false, new GeneralNames(sans))
                    .addExtension(Extension.subjectKeyIdentifier, false,
                            ext.createSubjectKeyIdentifier(leafKeys.getPublic()))
                    .addExtension(Extension.authorityKeyIdentifier, false,
                            ext.createAuthorityKeyIdentifier(caCert));
            X509Certificate leafCert = sign(leaf, caKeys.getPrivate());

            List<X509Certificate> bundle = new ArrayList<>(List.of(caCert));
            if (previousCa != null && previousCa.getNotAfter().toInstant().isAfter(now)) {
                bundle.add(previousCa);
            }
            return new ServingCertificate(leafCert, leafKeys.getPrivate(), bundle);
        } catch (GeneralSecurityException | IOException | OperatorCreationException e) {
            throw new IllegalStateException("cannot generate the webhook certificate: " + e.getMessage(), e);
        }
    }

    private static BigInteger serial() {
        return new BigInteger(159, RANDOM).setBit(0);
    }

    private static X509Certificate sign(X509v3CertificateBuilder b, PrivateKey signer)
            throws OperatorCreationException, GeneralSecurityException {
        X509CertificateHolder holder = b.build(new JcaContentSignerBuilder("SHA256withECDSA").build(signer));
        return new JcaX509CertificateConverter().getCertificate(holder);
    }

    /**
     * Reads the three PEM texts and checks they belong together: the key signs what the certificate's public
     * key verifies, and a CA in the bundle signed the certificate.
     *
     * @param certificatePem {@code tls.crt}: the serving certificate first (further certificates are ignored)
     * @param keyPem         {@code tls.key}: PKCS#8 {@code PRIVATE KEY} (a SEC1/PKCS#1 key is read too)
     * @param caPem          {@code ca.crt}: one or more CA certificates
     * @throws IllegalArgumentException with a one-line reason naming the Secret key at fault
     */
    public static ServingCertificate fromPem(String certificatePem, String keyPem, String caPem) {
        List<X509Certificate> leafChain = certificates(certificatePem, "tls.crt");
        List<X509Certificate> cas = certificates(caPem, "ca.crt");
        PrivateKey key = privateKey(keyPem);
        X509Certificate leaf = leafChain.getFirst();
        try {
            Signature s = Signature.getInstance(leaf.getPublicKey().getAlgorithm().equals("EC")
                    ? "SHA256withECDSA" : "SHA256with" + leaf.getPublicKey().getAlgorithm());
            byte[] probe = "railyard key check".getBytes(java.nio.charset.StandardCharsets.US_ASCII);
            s.initSign(key);
            s.update(probe);
            byte[] sig = s.sign();
            s.initVerify(leaf.getPublicKey());
            s.update(probe);
            if (!s.verify(sig)) {
                throw new IllegalArgumentException("tls.key does not match the certificate in tls.crt");
            }
        } catch (GeneralSecurityException e) {
            throw new IllegalArgumentException("tls.key does not match the certificate in tls.crt: " + e.getMessage());
        }
        X509Certificate issuer = cas.stream().filter(ca -> signedBy(leaf, ca)).findFirst().orElseThrow(() ->
                new IllegalArgumentException("no CA in ca.crt signed the certificate in tls.crt"));
        List<X509Certificate> bundle = new ArrayList<>(List.of(issuer));     // the issuer first, as generate() does
        cas.stream().filter(ca -> ca != issuer).forEach(bundle::add);
        return new ServingCertificate(leaf, key, bundle);
    }

    private static boolean signedBy(X509Certificate leaf, X509Certificate ca) {
        try {
            leaf.verify(ca.getPublicKey());
            return true;
        } catch (GeneralSecurityException e) {
            return false;
        }
    }

    private static List<X509Certificate> certificates(String pem, String where) {
        List<X509Certificate> out = new ArrayList<>();
        try (PEMParser p = new PEMParser(new StringReader(pem))) {
            JcaX509CertificateConverter conv = new JcaX509CertificateConverter();
            for (Object o = p.readObject(); o != null; o = p.readObject()) {
                if (o instanceof X509CertificateHolder h) {
                    out.add(conv.getCertificate(h));
                }
            }
        } catch (IOException | GeneralSecurityException | RuntimeException e) {
            throw new IllegalArgumentException(where + " is not PEM certificates: " + e.getMessage());
        }
        if (out.isEmpty()) {
            throw new IllegalArgumentException(where + " holds no PEM certificate");
        }
        return out;
    }

    private static PrivateKey privateKey(String pem) {
        try (PEMParser p = new PEMParser(new StringReader(pem))) {
            JcaPEMKeyConverter conv = new JcaPEMKeyConverter();
            for (Object o = p.readObject(); o != null; o = p.readObject()) {
                if (o instanceof PrivateKeyInfo info) {
                    return conv.getPrivateKey(info);
                }
                if (o instanceof PEMKeyPair pair) {
                    return conv.getKeyPair(pair).getPrivate();
                }
            }
        } catch (IOException | RuntimeException e) {
            throw new IllegalArgumentException("tls.key is not a PEM private key: " + e.getMessage());
        }
        throw new IllegalArgumentException("tls.key holds no unencrypted PEM private key");
    }

    /**
     * Why this certificate should not be served for {@code dnsNames} at {@code now}, or empty when it can: a
     * DNS name missing from its SANs, not yet valid, or less than a third of its lifetime (notBefore to
     * notAfter) left, for the serving certificate or its issuing CA.
     */
    public Optional<String> problem(List<String> dnsNames, Instant now) {
        Set<String> sans = new HashSet<>();
        try {
            var names = certificate.getSubjectAlternativeNames();
            if (names != null) {
                for (List<?> n : names) {
                    if (Integer.valueOf(GeneralName.dNSName).equals(n.get(0))) {
                        sans.add(String.valueOf(n.get(1)));
                    }
                }
            }
        } catch (CertificateParsingException e) {
            return Optional.of("its subjectAltName cannot be read: " + e.getMessage());
        }
        for (String name : dnsNames) {
            if (!sans.contains(name)) {
                return Optional.of("it is not for " + name + " (SANs " + sans.stream().sorted().toList() + ")");
            }
        }
        for (X509Certificate c : List.of(certificate, caBundle.getFirst())) {
            String what = c == certificate ? "the serving certificate" : "its CA";
            Instant from = c.getNotBefore().toInstant();
            Instant to = c.getNotAfter().toInstant();
            if (now.isBefore(from)) {
                return Optional.of(what + " is not valid before " + from);
            }
            Duration left = Duration.between(now, to);
            Duration lifetime = Duration.between(from, to);
            if (left.multipliedBy(3).compareTo(lifetime) <= 0) {
                return Optional.of(what + " expires " + to + ", less than a third of its lifetime left");
            }
        }
        return Optional.empty();
    }

    /** {@code tls.crt}: the serving certificate as PEM. */
    public String certificatePem() {
        return pem(List.of(new PemObject("CERTIFICATE", encoded(certificate))));
    }

    /** {@code tls.key}: the private key as PEM PKCS#8 ({@code PRIVATE KEY}). */
    public String privateKeyPem() {
        return pem(List.of(new PemObject("PRIVATE KEY", key.getEncoded())));
    }

    /** {@code ca.crt} and the webhook's {@code caBundle}: the CA certificates as PEM, issuer first. */
    public String caBundlePem() {
        return pem(caBundle.stream().map(c -> new PemObject("CERTIFICATE", encoded(c))).toList());
    }

    private static byte[] encoded(X509Certificate c) {
        try {
            return c.getEncoded();
        } catch (java.security.cert.CertificateEncodingException e) {
            throw new IllegalStateException("cannot encode certificate " + c.getSubjectX500Principal(), e);
        }
    }

    private static String pem(List<PemObject> objects) {
        StringWriter out = new StringWriter();
        try (PemWriter w = new PemWriter(out)) {
            for (PemObject o : objects) {
                w.writeObject(o);
            }
        } catch (IOException e) {
            throw new IllegalStateException("cannot write PEM", e);   // a StringWriter does not fail
        }
        return out.toString();
    }
}
