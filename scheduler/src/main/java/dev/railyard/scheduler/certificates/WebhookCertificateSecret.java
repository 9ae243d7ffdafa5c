package dev.railyard.scheduler.certificates;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.api.model.SecretBuilder;
import io.fabric8.kubernetes.api.model.admissionregistration.v1.MutatingWebhook;
import io.fabric8.kubernetes.api.model.admissionregistration.v1.MutatingWebhookConfiguration;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.nio.charset.StandardCharsets;
import java.security.cert.X509Certificate;
import java.time.Clock;
import java.util.ArrayList;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * Keeps the webhook's self-signed certificate in a Secret and its CA in the MutatingWebhookConfiguration.
 *
 * <p>{@link #ensure()}: reads the Secret; when its {@code tls.crt}, {@code tls.key} and {@code ca.crt} form a
 * certificate for the Service's DNS names with more than a third of its lifetime left, uses it; otherwise
 * generates a new CA and serving certificate and writes them with an update carrying the Secret's
 * resourceVersion. Replicas racing each other therefore converge: the loser gets 409 Conflict, re-reads and
 * uses the winner's certificate. Then every webhook of the configuration whose {@code clientConfig.caBundle}
 * differs gets it through one JSON patch (RFC 6902; a {@code test} of each webhook's name guards against a
 * reordered list).
 *
 * <p>Needs get and update on the Secret and get and patch on the webhook configuration (what the Helm chart
 * grants); the Secret must exist (the chart creates it empty).
 */
public final class WebhookCertificateSecret {
    private static final Logger LOG = LoggerFactory.getLogger(WebhookCertificateSecret.class);
    private static final ObjectMapper JSON = new ObjectMapper();
    /** Read-check-write rounds before giving up when other writers keep changing the Secret. */
    static final int MAX_ROUNDS = 3;
    /** Secret key of the PEM serving certificate. */
    public static final String TLS_CRT = "tls.crt";
    /** Secret key of the PEM PKCS#8 private key. */
    public static final String TLS_KEY = "tls.key";
    /** Secret key of the PEM CA bundle (also the webhook's caBundle). */
    public static final String CA_CRT = "ca.crt";

    /** Makes a new certificate; {@link ServingCertificate#generate} outside tests. */
    @FunctionalInterface
    public interface Issuer {
        /**
         * @param dnsNames   SAN DNS names, the first the CN
         * @param previousCa the CA of the certificate being replaced, or null
         */
        ServingCertificate issue(List<String> dnsNames, X509Certificate previousCa);
    }

    /** A one-line reason why the certificate could not be read, written or published. */
    public static final class CertificateStoreException extends RuntimeException {
        public CertificateStoreException(String message) {
            super(message, null, false, false);
        }
    }

    private final KubernetesClient client;
    private final String namespace;
    private final String secretName;
    private final String webhookConfiguration;
    private final List<String> dnsNames;
    private final Clock clock;
    private final Issuer issuer;

    /**
     * @param namespace            namespace of the Secret and the Service
     * @param secretName           the Secret that holds the certificate
     * @param webhookConfiguration the MutatingWebhookConfiguration whose caBundle to keep
     * @param service              the Service the API server calls: the certificate is for
     *                             {@code <service>.<namespace>.svc}, {@code ...svc.cluster.local} and {@code <service>}
     * @param clock                the time the certificate's lifetime is judged against
     * @param issuer               makes new certificates
     */
    public WebhookCertificateSecret(KubernetesClient client, String namespace, String secretName,
                                    String webhookConfiguration, String service, Clock clock, Issuer issuer) {
        this.client = Objects.requireNonNull(client, "client");
        this.namespace = Objects.requireNonNull(namespace, "namespace");
        this.secretName = Objects.requireNonNull(secretName, "secretName");
        this.webhookConfiguration = Objects.requireNonNull(webhookConfiguration, "webhookConfiguration");
        this.dnsNames = dnsNames(service, namespace);
        this.clock = Objects.requireNonNull(clock, "clock");
        this.issuer = Objects.requireNonNull(issuer, "issuer");
    }

    /** With {@link ServingCertificate#generate} at {@code clock}'s time, valid for {@link ServingCertificate#VALIDITY}. */
    public static WebhookCertificateSecret of(KubernetesClient client, String namespace, String secretName,
                                              String webhookConfiguration, String service, Clock clock) {
        return new WebhookCertificateSecret(client, namespace, secretName, webhookConfiguration, service, clock,
                (names, previousCa) -> ServingCertificate.generate(names, clock.instant(),
                        ServingCertificate.VALIDITY, previousCa));
    }

    /** The names a serving certificate for the Service must carry, the first also its CN. */
    public static List<String> dnsNames(String service, String namespace) {
        return List.of(service + "." + namespace + ".svc", service + "." + namespace + ".svc.cluster.local", service);
    }

    /** The DNS names this certificate is for. */
    public List<String> dnsNames() {
        return dnsNames;
    }

    private String secretRef() {
        return "Secret " + namespace + "/" + secretName;
    }

    /**
     * Returns a usable certificate, generating and storing one when the Secret holds none, and makes sure the
     * webhook configuration trusts its CA.
     *
     * @throws CertificateStoreException when the Secret or the webhook configuration is missing, cannot be read
     *                                   or written (e.g. RBAC), or other writers changed the Secret {@value MAX_ROUNDS}
     *                                   times in a row
     */
    public ServingCertificate ensure() {
        for (int round = 1; round <= MAX_ROUNDS; round++) {
            Secret secret = readSecret();
            ServingCertificate current = null;
            String reason;
            Map<String, String> data = secret.getData() == null ? Map.of() : secret.getData();
            if (!data.containsKey(TLS_CRT) || !data.containsKey(TLS_KEY) || !data.containsKey(CA_CRT)) {
                reason = "it has no " + TLS_CRT + ", " + TLS_KEY + " and " + CA_CRT;
            } else {
                try {
                    current = ServingCertificate.fromPem(decode(data, TLS_CRT), decode(data, TLS_KEY), decode(data, CA_CRT));
                    reason = current.problem(dnsNames, clock.instant()).orElse(null);
                } catch (IllegalArgumentException e) {
                    reason = e.getMessage();
                }
            }
            if (reason == null) {
                publishCaBundle(current);
                return current;
            }
            LOG.info("generating a new webhook certificate for {}: the certificate in {} is not usable: {}",
                    dnsNames.getFirst(), secretRef(), reason);
            ServingCertificate fresh = issuer.issue(dnsNames, current == null ? null : current.caBundle().getFirst());
            Map<String, String> newData = new LinkedHashMap<>(data);
            newData.put(TLS_CRT, encode(fresh.certificatePem()));
            newData.put(TLS_KEY, encode(fresh.privateKeyPem()));
            newData.put(CA_CRT, encode(fresh.caBundlePem()));
            Secret updated = new SecretBuilder(secret).withData(newData).build();   // keeps metadata.resourceVersion
            try {
                client.secrets().inNamespace(namespace).resource(updated).update();
            } catch (KubernetesClientException e) {
                if (e.getCode() == 409) {
                    LOG.info("{} was changed by another writer (another replica?); reading it again", secretRef());
                    continue;
                }
                throw new CertificateStoreException("cannot update " + secretRef() + ": " + message(e));
            }
            LOG.info("stored a new webhook certificate in {} for {}, valid until {}", secretRef(), dnsNames,
                    fresh.certificate().getNotAfter().toInstant());
            publishCaBundle(fresh);
            return fresh;
        }
        throw new CertificateStoreException(secretRef() + " changed " + MAX_ROUNDS
                + " times while the webhook certificate was being written; giving up");
    }

    private Secret readSecret() {
        Secret secret;
        try {
            secret = client.secrets().inNamespace(namespace).withName(secretName).get();
        } catch (KubernetesClientException e) {
            throw new CertificateStoreException("cannot read " + secretRef() + ": " + message(e));
        }
        if (secret == null) {
            throw new CertificateStoreException(secretRef() + " does not exist: create it empty (the Helm chart does; "
                    + "by hand: kubectl -n " + namespace + " create secret generic " + secretName + ")");
        }
        return secret;
    }

    /** Patches {@code clientConfig.caBundle} of every webhook in the configuration that lacks this CA bundle. */
    void publishCaBundle(ServingCertificate certificate) {
        String want = encode(certificate.caBundlePem());
        String ref = "MutatingWebhookConfiguration " + webhookConfiguration;
        MutatingWebhookConfiguration config;
        try {
            config = client.admissionRegistration().v1().mutatingWebhookConfigurations()
                    .withName(webhookConfiguration).get();
        } catch (KubernetesClientException e) {
            throw new CertificateStoreException("cannot read " + ref + ": " + message(e));
        }
        if (config == null) {
            throw new CertificateStoreException(ref + " does not exist");
        }
        List<MutatingWebhook> hooks = config.getWebhooks() == null ? List.of() : config.getWebhooks();
        List<Map<String, Object>> ops = new ArrayList<>();
        for (int i = 0; i < hooks.size(); i++) {
            MutatingWebhook hook = hooks.get(i);
            String have = hook.getClientConfig() == null ? null : hook.getClientConfig().getCaBundle();
            if (want.equals(have)) {
                continue;
            }
            ops.add(Map.of("op", "test", "path", "/webhooks/" + i + "/name", "value", hook.getName()));
            if (hook.getClientConfig() == null) {
                ops.add(Map.of("op", "add", "path", "/webhooks/" + i + "/clientConfig", "value", Map.of("caBundle", want)));
            } else {
                ops.add(Map.of("op", "add", "path", "/webhooks/" + i + "/clientConfig/caBundle", "value", want));
            }
        }
        if (ops.isEmpty()) {
            return;
        }
        try {
            client.admissionRegistration().v1().mutatingWebhookConfigurations().withName(webhookConfiguration)
                    .patch(PatchContext.of(PatchType.JSON), JSON.writeValueAsString(ops));
        } catch (KubernetesClientException e) {
            throw new CertificateStoreException("cannot patch the caBundle of " + ref + ": " + message(e));
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("cannot write a JSON patch", e);   // plain maps of strings always serialise
        }
        LOG.info("wrote the webhook CA into {} ({} webhook(s))", ref, ops.size() / 2);
    }

    private String decode(Map<String, String> data, String key) {
        try {
            return new String(Base64.getDecoder().decode(data.get(key)), StandardCharsets.UTF_8);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException(key + " is not base64: " + e.getMessage());
        }
    }

    private static String encode(String text) {
        return Base64.getEncoder().encodeToString(text.getBytes(StandardCharsets.UTF_8));
    }

    private static String message(KubernetesClientException e) {
        String m = e.getStatus() != null && e.getStatus().getMessage() != null ? e.getStatus().getMessage() : e.getMessage();
        m = m == null ? e.getClass().getSimpleName() : m.replace('\n', ' ');
        return (e.getCode() > 0 ? "HTTP " + e.getCode() + ": " : "") + m;
    }
}
