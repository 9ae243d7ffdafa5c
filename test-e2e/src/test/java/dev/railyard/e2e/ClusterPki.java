package dev.railyard.e2e;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Certificates and keys for one test cluster, made with the {@code openssl} command line (OpenSSL 3): a
 * self-signed CA ({@code CN=railyard-e2e-ca}), a serving certificate for {@code IP:127.0.0.1, DNS:localhost}, an
 * admin client certificate {@code CN=e2e-admin, O=system:masters} (the group kube-apiserver's RBAC always allows),
 * also as a PKCS#12 bundle for Java clients, and an RSA key pair for service-account tokens.
 *
 * @param dir directory holding the files below
 */
public record ClusterPki(Path dir) {

    /** Password of {@link #adminP12()}; only protects a throw-away test key. */
    public static final String P12_PASSWORD = "railyard-e2e";

    /** CA certificate (PEM). */
    public Path caCert() {
        return dir.resolve("ca.crt");
    }

    /** Serving certificate (PEM), SAN 127.0.0.1 and localhost, signed by the CA. */
    public Path servingCert() {
        return dir.resolve("serving.crt");
    }

    /** Serving key (PEM, PKCS#8). */
    public Path servingKey() {
        return dir.resolve("serving.key");
    }

    /** Admin client certificate (PEM), {@code CN=e2e-admin, O=system:masters}. */
    public Path adminCert() {
        return dir.resolve("admin.crt");
    }

    /** Admin client key (PEM, PKCS#8). */
    public Path adminKey() {
        return dir.resolve("admin.key");
    }

    /** Admin certificate and key as PKCS#12, password {@link #P12_PASSWORD}. */
    public Path adminP12() {
        return dir.resolve("admin.p12");
    }

    /** Service-account signing key (PEM, PKCS#8 RSA). */
    public Path serviceAccountKey() {
        return dir.resolve("sa.key");
    }

    /** Service-account verification key (PEM public key). */
    public Path serviceAccountPub() {
        return dir.resolve("sa.pub");
    }

    /**
     * Creates every file in {@code dir} (about 1 s of openssl on this machine).
     *
     * @throws IOException if openssl is missing or one of its steps fails (its output is in the message)
     */
    public static ClusterPki create(Path dir) throws IOException {
        Files.createDirectories(dir);
        ClusterPki pki = new ClusterPki(dir);
        String days = "2";
        openssl(dir, "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", days, "-subj", "/CN=railyard-e2e-ca",
                "-keyout", "ca.key", "-out", "ca.crt",
                "-addext", "basicConstraints=critical,CA:TRUE", "-addext", "keyUsage=critical,keyCertSign,cRLSign");
        openssl(dir, "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", days, "-subj", "/CN=127.0.0.1",
                "-CA", "ca.crt", "-CAkey", "ca.key", "-keyout", "serving.key", "-out", "serving.crt",
                "-addext", "subjectAltName=IP:127.0.0.1,DNS:localhost",
                "-addext", "basicConstraints=critical,CA:FALSE",
                "-addext", "extendedKeyUsage=serverAuth");
        openssl(dir, "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", days,
                "-subj", "/O=system:masters/CN=e2e-admin",
                "-CA", "ca.crt", "-CAkey", "ca.key", "-keyout", "admin.key", "-out", "admin.crt",
                "-addext", "basicConstraints=critical,CA:FALSE",
                "-addext", "extendedKeyUsage=clientAuth");
        openssl(dir, "pkcs12", "-export", "-in", "admin.crt", "-inkey", "admin.key", "-name", "e2e-admin",
                "-out", "admin.p12", "-passout", "pass:" + P12_PASSWORD);
        openssl(dir, "genpkey", "-algorithm", "RSA", "-pkeyopt", "rsa_keygen_bits:2048", "-out", "sa.key");
        openssl(dir, "pkey", "-in", "sa.key", "-pubout", "-out", "sa.pub");
        return pki;
    }

    private static void openssl(Path dir, String... args) throws IOException {
        List<String> cmd = new ArrayList<>();
        cmd.add("openssl");
        cmd.addAll(List.of(args));
        Process p = new ProcessBuilder(cmd).directory(dir.toFile()).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        try {
            if (!p.waitFor(60, TimeUnit.SECONDS) || p.exitValue() != 0) {
                throw new IOException("openssl " + args[0] + " failed in " + dir + ": " + out.strip());
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted while running openssl " + args[0], e);
        }
    }
}
