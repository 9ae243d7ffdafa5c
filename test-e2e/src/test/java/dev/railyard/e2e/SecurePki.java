package dev.railyard.e2e;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * The certificates of Railyard's secure port for a test, made with the {@code openssl} command line (OpenSSL 3), as
 * the chart's cert-manager objects lay them out: a CA of its own ({@code CN=railyard-secure-ca}, not the cluster's),
 * a serving certificate for {@code IP:127.0.0.1} and kube-scheduler's client certificate ({@code CN=kube-scheduler},
 * extended key usage clientAuth), ECDSA P-256 keys in PKCS#8; plus a second CA with a client certificate of its own,
 * to show a stranger is refused.
 *
 * @param dir directory holding the files below
 */
public record SecurePki(Path dir) {

    /** The CA (PEM): Railyard's {@code --client-ca}, kube-scheduler's {@code tlsConfig.caFile}. */
    public Path caCert() {
        return dir.resolve("ca.crt");
    }

    /** Serving certificate for 127.0.0.1 (PEM): {@code --secure-tls-cert}. */
    public Path servingCert() {
        return dir.resolve("tls.crt");
    }

    /** Serving key (PEM PKCS#8): {@code --secure-tls-key}. */
    public Path servingKey() {
        return dir.resolve("tls.key");
    }

    /** kube-scheduler's client certificate (PEM): {@code tlsConfig.certFile}. */
    public Path clientCert() {
        return dir.resolve("client.crt");
    }

    /** kube-scheduler's client key (PEM PKCS#8): {@code tlsConfig.keyFile}. */
    public Path clientKey() {
        return dir.resolve("client.key");
    }

    /** A client certificate from another CA (PEM). */
    public Path strangerCert() {
        return dir.resolve("stranger.crt");
    }

    /** Its key (PEM PKCS#8). */
    public Path strangerKey() {
        return dir.resolve("stranger.key");
    }

    /** {@code serve} flags for a secure port on {@code port} with these files. */
    public List<String> serveArgs(int port) {
        return List.of("--secure-port=" + port, "--secure-tls-cert=" + servingCert(),
                "--secure-tls-key=" + servingKey(), "--client-ca=" + caCert());
    }

    /**
     * Creates every file in {@code dir}.
     *
     * @throws IOException if openssl is missing or a step fails (its output is in the message)
     */
    public static SecurePki create(Path dir) throws IOException {
        Files.createDirectories(dir);
        String[] ec = {"-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes", "-days", "2"};
        openssl(dir, concat(new String[]{"req", "-x509"}, ec, "-subj", "/CN=railyard-secure-ca", "-keyout", "ca.key",
                "-out", "ca.crt", "-addext", "basicConstraints=critical,CA:TRUE",
                "-addext", "keyUsage=critical,keyCertSign,cRLSign"));
        openssl(dir, concat(new String[]{"req", "-x509"}, ec, "-subj", "/CN=127.0.0.1", "-CA", "ca.crt", "-CAkey",
                "ca.key", "-keyout", "tls.key", "-out", "tls.crt", "-addext", "subjectAltName=IP:127.0.0.1,DNS:localhost",
                "-addext", "basicConstraints=critical,CA:FALSE", "-addext", "extendedKeyUsage=serverAuth"));
        openssl(dir, concat(new String[]{"req", "-x509"}, ec, "-subj", "/CN=kube-scheduler", "-CA", "ca.crt",
                "-CAkey", "ca.key", "-keyout", "client.key", "-out", "client.crt",
                "-addext", "basicConstraints=critical,CA:FALSE", "-addext", "extendedKeyUsage=clientAuth"));
        openssl(dir, concat(new String[]{"req", "-x509"}, ec, "-subj", "/CN=stranger-ca", "-keyout", "sca.key",
                "-out", "sca.crt", "-addext", "basicConstraints=critical,CA:TRUE",
                "-addext", "keyUsage=critical,keyCertSign,cRLSign"));
        openssl(dir, concat(new String[]{"req", "-x509"}, ec, "-subj", "/CN=kube-scheduler", "-CA", "sca.crt",
                "-CAkey", "sca.key", "-keyout", "stranger.key", "-out", "stranger.crt",
                "-addext", "basicConstraints=critical,CA:FALSE", "-addext", "extendedKeyUsage=clientAuth"));
        return new SecurePki(dir);
    }

    private static String[] concat(String[] a, String[] b, String... c) {
        List<String> out = new ArrayList<>(List.of(a));
        out.addAll(List.of(b));
        out.addAll(List.of(c));
        return out.toArray(String[]::new);
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
