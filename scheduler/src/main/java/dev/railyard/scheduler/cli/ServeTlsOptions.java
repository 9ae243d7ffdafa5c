package dev.railyard.scheduler.cli;

import dev.railyard.scheduler.server.ClientCertificateAuthority;
import dev.railyard.scheduler.server.TlsSettings;
import dev.railyard.topology.InputException;
import picocli.CommandLine.Option;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * {@code serve}'s TLS flags: the main listener's optional TLS ({@code --tls-*}) and the secure listener of the
 * kube-scheduler verbs and {@code /explain} ({@code --secure-port}, {@code --secure-tls-cert},
 * {@code --secure-tls-key}, {@code --client-ca}; docs/serve.md, docs/adr/0010-authenticated-callers.md). Flags win
 * over the config file's {@code server.tls} and {@code server.secure}.
 */
final class ServeTlsOptions {

    @Option(names = "--tls-cert", paramLabel = "FILE", description = "PEM certificate chain (with --tls-key).")
    Path tlsCert;

    @Option(names = "--tls-key", paramLabel = "FILE", description = "PEM PKCS#8 private key (with --tls-cert).")
    Path tlsKey;

    @Option(names = "--tls-keystore", paramLabel = "FILE", description = "PKCS#12 keystore (instead of PEM files).")
    Path tlsKeystore;

    @Option(names = "--tls-keystore-password-file", paramLabel = "FILE", description = "File holding the PKCS#12 password.")
    Path tlsKeystorePasswordFile;

    @Option(names = "--secure-port", paramLabel = "PORT",
            description = "HTTPS port for the kube-scheduler verbs (/kube/, client certificate required) and /explain "
                    + "(Kubernetes bearer token and RBAC); needs --secure-tls-cert, --secure-tls-key and --client-ca. "
                    + "Without it the kube-scheduler verbs are on the main port, unauthenticated.")
    Integer securePort;

    @Option(names = "--secure-tls-cert", paramLabel = "FILE", description = "PEM certificate chain of the secure port.")
    Path secureCert;

    @Option(names = "--secure-tls-key", paramLabel = "FILE", description = "PEM PKCS#8 private key of the secure port.")
    Path secureKey;

    @Option(names = "--client-ca", paramLabel = "FILE",
            description = "PEM CA bundle the secure port verifies client certificates with (a CA of its own, not the "
                    + "cluster CA).")
    Path clientCa;

    /**
     * The secure listener.
     *
     * @param port     TCP port (0: any free port)
     * @param tls      its serving certificate
     * @param clientCa CAs client certificates must chain to
     */
    record Secure(int port, TlsSettings tls, ClientCertificateAuthority clientCa) {
    }

    /** The main listener's TLS, or null for plain HTTP. @throws InputException for contradicting flags */
    TlsSettings mainTls(ServeConfig.Tls fileTls, String where) {
        Path cert = tlsCert, key = tlsKey, p12 = tlsKeystore, pwFile = tlsKeystorePasswordFile;
        boolean flagsGiven = cert != null || key != null || p12 != null;
        if (!flagsGiven && fileTls != null) {
            cert = path(fileTls.certFile());
            key = path(fileTls.keyFile());
            p12 = path(fileTls.pkcs12());
            pwFile = pwFile != null ? pwFile : path(fileTls.pkcs12PasswordFile());
        }
        if (p12 != null && (cert != null || key != null)) {
            throw new InputException("TLS: give either a PKCS#12 keystore or PEM cert and key files, not both" + where);
        }
        if (p12 != null) {
            char[] pw = new char[0];
            if (pwFile != null) {
                try {
                    pw = Files.readString(pwFile, StandardCharsets.UTF_8).strip().toCharArray();
                } catch (IOException e) {
                    throw new InputException("cannot read TLS keystore password file " + pwFile + ": " + e.getMessage());
                }
            }
            return new TlsSettings.Pkcs12(p12, pw);
        }
        if (cert != null || key != null) {
            if (cert == null || key == null) {
                throw new InputException("TLS: PEM needs both a certificate file and a key file" + where);
            }
            return new TlsSettings.Pem(cert, key);
        }
        return null;
    }

    /**
     * The secure listener, or null when no secure port is given.
     *
     * @throws InputException naming what is missing or out of range
     */
    Secure secure(ServeConfig.Secure file, String where) {
        Integer port = securePort != null ? securePort : file == null ? null : file.port();
        Path cert = secureCert != null ? secureCert : file == null ? null : path(file.certFile());
        Path key = secureKey != null ? secureKey : file == null ? null : path(file.keyFile());
        Path ca = clientCa != null ? clientCa : file == null ? null : path(file.clientCAFile());
        if (port == null) {
            if (cert != null || key != null || ca != null) {
                throw new InputException("--secure-tls-cert, --secure-tls-key and --client-ca only apply with "
                        + "--secure-port" + where);
            }
            return null;
        }
        if (port < 0 || port > 65535) {
            throw new InputException("secure port must be 0..65535, got " + port + where);
        }
        StringBuilder missing = new StringBuilder();
        for (var e : new Object[][]{{cert, "--secure-tls-cert"}, {key, "--secure-tls-key"}, {ca, "--client-ca"}}) {
            if (e[0] == null) {
                missing.append(missing.isEmpty() ? "" : ", ").append(e[1]);
            }
        }
        if (!missing.isEmpty()) {
            throw new InputException("--secure-port needs " + missing + " (the kube-scheduler verbs are served only "
                    + "to callers with a client certificate from that CA)" + where);
        }
        return new Secure(port, new TlsSettings.Pem(cert, key), new ClientCertificateAuthority(ca));
    }

    private static Path path(String s) {
        return s == null || s.isBlank() ? null : Path.of(s);
    }
}
