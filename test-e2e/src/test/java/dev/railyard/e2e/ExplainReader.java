package dev.railyard.e2e;

import io.fabric8.kubernetes.api.model.ServiceAccountBuilder;
import io.fabric8.kubernetes.api.model.authentication.TokenRequestBuilder;
import io.fabric8.kubernetes.api.model.rbac.ClusterRoleBindingBuilder;
import io.fabric8.kubernetes.api.model.rbac.ClusterRoleBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;

/**
 * A caller of {@code /explain} as an operator would be one: ServiceAccount {@value #NAME} in namespace
 * {@value #NAMESPACE}, bound to a ClusterRole that grants {@code get} on {@code explanations.railyard.dev}
 * cluster-wide (what the chart's {@code <release>-explain} ClusterRole grants; docs/adr/0010-authenticated-callers.md),
 * with a real token from a TokenRequest. Railyard checks it with a TokenReview and a SubjectAccessReview against the
 * same API server, so the harness goes through the whole authorizer.
 */
final class ExplainReader {
    static final String NAME = "railyard-e2e-explain";
    static final String NAMESPACE = "default";

    private ExplainReader() {
    }

    /**
     * Creates the ServiceAccount, ClusterRole and ClusterRoleBinding when missing, and mints a token.
     *
     * @return a bearer token valid for one hour
     */
    static String token(KubernetesClient client) {
        createIfMissing(() -> client.serviceAccounts().inNamespace(NAMESPACE).resource(new ServiceAccountBuilder()
                .withNewMetadata().withName(NAME).endMetadata().build()).create());
        createIfMissing(() -> client.rbac().clusterRoles().resource(new ClusterRoleBuilder().withNewMetadata()
                .withName(NAME).endMetadata().addNewRule().withApiGroups("railyard.dev")
                .withResources("explanations").withVerbs("get").endRule().build()).create());
        createIfMissing(() -> client.rbac().clusterRoleBindings().resource(new ClusterRoleBindingBuilder()
                .withNewMetadata().withName(NAME).endMetadata()
                .withNewRoleRef("rbac.authorization.k8s.io", "ClusterRole", NAME)
                .addNewSubject().withKind("ServiceAccount").withName(NAME).withNamespace(NAMESPACE).endSubject()
                .build()).create());
        return client.serviceAccounts().inNamespace(NAMESPACE).withName(NAME).tokenRequest(new TokenRequestBuilder()
                .withNewSpec().withExpirationSeconds(3600L).endSpec().build()).getStatus().getToken();
    }

    private static void createIfMissing(Runnable create) {
        try {
            create.run();
        } catch (KubernetesClientException e) {
            if (e.getCode() != 409) {
                throw e;
            }
        }
    }
}
