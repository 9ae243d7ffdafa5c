package dev.railyard.e2e;

import javax.net.ssl.KeyManager;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManagerFactory;
import javax.net.ssl.X509ExtendedKeyManager;
import java.io.IOException;
import java.io.InputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyFactory;
import java.security.KeyStore;
import java.security.PrivateKey;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import java.security.spec.PKCS8EncodedKeySpec;
import java.time.Duration;
import java.util.Base64;

/** JDK HTTPS clients for Railyard's secure port, with or without a client certificate. */
final class SecureClients {
    private SecureClients() {
    }

    /**
     * @param ca     the CA that verifies the server
     * @param cert   client certificate (PEM), or null for none
     * @param key    its PKCS#8 EC key (PEM)
     * @param always present the certificate even when the server does not name its issuer as acceptable (the JDK
     *               and Go clients then send none; a hostile client sends it anyway)
     */
    static SSLContext context(Path ca, Path cert, Path key, boolean always) throws Exception {
        CertificateFactory cf = CertificateFactory.getInstance("X.509");
        KeyStore trust = KeyStore.getInstance("PKCS12");
        trust.load(null, null);
        try (InputStream in = Files.newInputStream(ca)) {
            trust.setCertificateEntry("ca", cf.generateCertificate(in));
        }
        TrustManagerFactory tmf = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
        tmf.init(trust);
        KeyManager[] keys = null;
        if (cert != null) {
            X509Certificate c;
            try (InputStream in = Files.newInputStream(cert)) {
                c = (X509Certificate) cf.generateCertificate(in);
            }
            String pem = Files.readString(key).replaceAll("-----[A-Z ]+-----", "").replaceAll("\\s", "");
            PrivateKey pk = KeyFactory.getInstance("EC").generatePrivate(new PKCS8EncodedKeySpec(Base64.getDecoder().decode(pem)));
            KeyStore ks = KeyStore.getInstance("PKCS12");
            ks.load(null, null);
            ks.setKeyEntry("client", pk, new char[0], new X509Certificate[]{c});
            KeyManagerFactory kmf = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
            kmf.init(ks, new char[0]);
            keys = kmf.getKeyManagers();
            if (always) {
                X509ExtendedKeyManager km = (X509ExtendedKeyManager) keys[0];
                keys = new KeyManager[]{new X509ExtendedKeyManager() {
                    @Override
                    public String[] getClientAliases(String t, java.security.Principal[] i) {
                        return new String[]{"client"};
                    }

                    @Override
                    public String chooseClientAlias(String[] t, java.security.Principal[] i, java.net.Socket s) {
                        return "client";
                    }

                    @Override
                    public String chooseEngineClientAlias(String[] t, java.security.Principal[] i, javax.net.ssl.SSLEngine e) {
                        return "client";
                    }

                    @Override
                    public String[] getServerAliases(String t, java.security.Principal[] i) {
                        return null;
                    }

                    @Override
                    public String chooseServerAlias(String t, java.security.Principal[] i, java.net.Socket s) {
                        return null;
                    }

                    @Override
                    public X509Certificate[] getCertificateChain(String alias) {
                        return km.getCertificateChain(alias);
                    }

                    @Override
                    public PrivateKey getPrivateKey(String alias) {
                        return km.getPrivateKey(alias);
                    }
                }};
            }
        }
        SSLContext ctx = SSLContext.getInstance("TLS");
        ctx.init(keys, tmf.getTrustManagers(), null);
        return ctx;
    }

    /** POSTs {@code body} to {@code https://127.0.0.1:<port><path>}. */
    static HttpResponse<String> post(SSLContext ctx, int port, String path, byte[] body) throws IOException {
        try (HttpClient http = HttpClient.newBuilder().sslContext(ctx).connectTimeout(Duration.ofSeconds(5)).build()) {
            return http.send(HttpRequest.newBuilder(URI.create("https://127.0.0.1:" + port + path))
                    .timeout(Duration.ofSeconds(10)).POST(HttpRequest.BodyPublishers.ofByteArray(body)).build(),
                    HttpResponse.BodyHandlers.ofString());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted", e);
        }
    }
}
