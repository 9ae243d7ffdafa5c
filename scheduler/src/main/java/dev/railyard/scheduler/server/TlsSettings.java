package dev.railyard.scheduler.server;

import javax.net.ssl.KeyManager;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManager;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyFactory;
import java.security.KeyStore;
import java.security.PrivateKey;
import java.security.cert.Certificate;
import java.security.cert.CertificateFactory;
import java.security.spec.PKCS8EncodedKeySpec;
import java.util.Base64;
import java.util.Collection;
import java.util.Objects;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Server TLS material: either a PKCS#12 keystore, or a PEM certificate chain plus a PEM PKCS#8 private key
 * (what cert-manager and {@code kubectl create secret tls} produce as {@code tls.crt} / {@code tls.key}), or a
 * key held in memory ({@link InMemory}, for a certificate kept in a Secret and rotated while serving).
 * Volcano's client verifies against the system roots only (docs/formats/volcano-extender.md §2); kube-scheduler's
 * {@code tlsConfig} can carry a CA.
 */
public sealed interface TlsSettings {

    /** Builds the server's SSL context. @throws TlsException with a one-line reason naming the file */
    default SSLContext sslContext() throws TlsException {
        return sslContext(null);
    }

    /**
     * Builds the server's SSL context, verifying client certificates with {@code clientTrust}.
     *
     * @param clientTrust trust managers for client certificates ({@link ClientCertificateAuthority}), or null
     * @throws TlsException with a one-line reason naming the file
     */
    SSLContext sslContext(TrustManager[] clientTrust) throws TlsException;

    /**
     * A PKCS#12 keystore holding one private key entry and its chain.
     *
     * @param keystore file path
     * @param password keystore (and key) password; empty for none
     */
    record Pkcs12(Path keystore, char[] password) implements TlsSettings {
        public Pkcs12 {
            Objects.requireNonNull(keystore, "keystore");
            password = password == null ? new char[0] : password.clone();
        }

        @Override
        public SSLContext sslContext(TrustManager[] clientTrust) throws TlsException {
            try (InputStream in = Files.newInputStream(keystore)) {
                KeyStore ks = KeyStore.getInstance("PKCS12");
                ks.load(in, password);
                return context(ks, password, clientTrust);
            } catch (java.nio.file.NoSuchFileException e) {
                throw new TlsException("cannot load PKCS#12 keystore " + keystore + ": no such file");
            } catch (IOException | GeneralSecurityException e) {
                throw new TlsException("cannot load PKCS#12 keystore " + keystore + ": " + e.getMessage());
            }
        }
    }

    /**
     * PEM files.
     *
     * @param certificateChain PEM certificates, leaf first
     * @param privateKey       PEM {@code PRIVATE KEY} (PKCS#8, unencrypted; RSA or EC)
     */
    record Pem(Path certificateChain, Path privateKey) implements TlsSettings {
        private static final Pattern PKCS8 = Pattern.compile(
                "-----BEGIN PRIVATE KEY-----([A-Za-z0-9+/=\\s]+)-----END PRIVATE KEY-----");

        public Pem {
            Objects.requireNonNull(certificateChain, "certificateChain");
            Objects.requireNonNull(privateKey, "privateKey");
        }

        @Override
        public SSLContext sslContext(TrustManager[] clientTrust) throws TlsException {
            Certificate[] chain;
            try (InputStream in = Files.newInputStream(certificateChain)) {
                Collection<? extends Certificate> certs = CertificateFactory.getInstance("X.509").generateCertificates(in);
                if (certs.isEmpty()) {
                    throw new TlsException("no PEM certificate in " + certificateChain);
                }
                chain = certs.toArray(new Certificate[0]);
            } catch (java.nio.file.NoSuchFileException e) {
                throw new TlsException("cannot read certificate chain " + certificateChain + ": no such file");
            } catch (IOException | GeneralSecurityException e) {
                throw new TlsException("cannot read certificate chain " + certificateChain + ": " + e.getMessage());
            }
            PrivateKey key = readKey();
            try {
                KeyStore ks = KeyStore.getInstance("PKCS12");
                ks.load(null, null);
                char[] none = new char[0];
                ks.setKeyEntry("railyard", key, none, chain);
                return context(ks, none, clientTrust);
            } catch (IOException | GeneralSecurityException e) {
                throw new TlsException("private key " + privateKey + " does not match certificate "
                        + certificateChain + ": " + e.getMessage());
            }
        }

        private PrivateKey readKey() throws TlsException {
            String text;
            try {
                text = Files.readString(privateKey, StandardCharsets.US_ASCII);
            } catch (java.nio.file.NoSuchFileException e) {
                throw new TlsException("cannot read private key " + privateKey + ": no such file");
            } catch (IOException e) {
                throw new TlsException("cannot read private key " + privateKey + ": " + e.getMessage());
            }
            Matcher m = PKCS8.matcher(text);
            if (!m.find()) {
                String hint = text.contains("BEGIN RSA PRIVATE KEY") || text.contains("BEGIN EC PRIVATE KEY")
                        ? " (it is PKCS#1/SEC1; convert with: openssl pkcs8 -topk8 -nocrypt -in KEY -out KEY.pk8)"
                        : text.contains("ENCRYPTED") ? " (encrypted keys are not supported)" : "";
                throw new TlsException("no unencrypted PEM \"PRIVATE KEY\" (PKCS#8) in " + privateKey + hint);
            }
            byte[] der = Base64.getMimeDecoder().decode(m.group(1));
            for (String alg : new String[]{"RSA", "EC", "Ed25519"}) {
                try {
                    return KeyFactory.getInstance(alg).generatePrivate(new PKCS8EncodedKeySpec(der));
                } catch (GeneralSecurityException ignored) {
                    // try the next algorithm
                }
            }
            throw new TlsException("private key in " + privateKey + " is not an RSA, EC or Ed25519 PKCS#8 key");
        }
    }

    /**
     * Key material held in memory and replaceable while the server runs (the self-signed webhook certificate,
     * which lives in a Secret and is rotated in place; see {@link ReloadableKeyManager}).
     *
     * @param keys the server key manager
     */
    record InMemory(ReloadableKeyManager keys) implements TlsSettings {
        public InMemory {
            Objects.requireNonNull(keys, "keys");
        }

        @Override
        public SSLContext sslContext(TrustManager[] clientTrust) throws TlsException {
            try {
                SSLContext ctx = SSLContext.getInstance("TLS");
                ctx.init(new KeyManager[]{keys}, clientTrust, null);
                return ctx;
            } catch (GeneralSecurityException e) {
                throw new TlsException("cannot set up TLS with the in-memory certificate: " + e.getMessage());
            }
        }
    }

    private static SSLContext context(KeyStore ks, char[] password, TrustManager[] clientTrust)
            throws GeneralSecurityException {
        KeyManagerFactory kmf = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
        kmf.init(ks, password);
        SSLContext ctx = SSLContext.getInstance("TLS");
        ctx.init(kmf.getKeyManagers(), clientTrust, null);
        return ctx;
    }

    /** TLS material that cannot be used; the message is one line naming the file. */
    final class TlsException extends Exception {
        public TlsException(String message) {
            super(message, null, false, false);
        }
    }
}
