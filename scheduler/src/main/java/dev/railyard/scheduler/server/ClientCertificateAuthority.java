package dev.railyard.scheduler.server;

import javax.net.ssl.TrustManager;
import javax.net.ssl.TrustManagerFactory;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.security.cert.Certificate;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import java.util.Collection;
import java.util.Objects;

/**
 * The CA bundle a listener verifies client certificates with: kube-scheduler's extender {@code tlsConfig}
 * {@code certFile}/{@code keyFile} must hold a certificate issued by one of these CAs
 * (docs/adr/0010-authenticated-callers.md). Use a CA made for this purpose, not the cluster's CA, which signs
 * every kubelet's and user's client certificate too.
 *
 * @param caBundle PEM file with one or more CA certificates ({@code ca.crt} of a cert-manager Secret)
 */
public record ClientCertificateAuthority(Path caBundle) {
    public ClientCertificateAuthority {
        Objects.requireNonNull(caBundle, "caBundle");
    }

    /**
     * Trust managers that accept exactly the chains ending at a CA of the bundle (PKIX: signatures, validity,
     * basic constraints and key usage checked by the JDK).
     *
     * @throws TlsSettings.TlsException with a one-line reason naming the file when it cannot be read or holds no
     *                                  CA certificate
     */
    public TrustManager[] trustManagers() throws TlsSettings.TlsException {
        try (InputStream in = Files.newInputStream(caBundle)) {
            Collection<? extends Certificate> certs = CertificateFactory.getInstance("X.509").generateCertificates(in);
            KeyStore ks = KeyStore.getInstance("PKCS12");
            ks.load(null, null);
            int i = 0;
            for (Certificate c : certs) {
                if (c instanceof X509Certificate x && x.getBasicConstraints() >= 0) {
                    ks.setCertificateEntry("client-ca-" + i++, x);
                }
            }
            if (i == 0) {
                throw new TlsSettings.TlsException("client CA bundle " + caBundle + " holds no CA certificate "
                        + "(PEM, basicConstraints CA:true)");
            }
            TrustManagerFactory tmf = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
            tmf.init(ks);
            return tmf.getTrustManagers();
        } catch (NoSuchFileException e) {
            throw new TlsSettings.TlsException("cannot read client CA bundle " + caBundle + ": no such file");
        } catch (IOException | GeneralSecurityException e) {
            throw new TlsSettings.TlsException("cannot read client CA bundle " + caBundle + ": " + e.getMessage());
        }
    }
}
