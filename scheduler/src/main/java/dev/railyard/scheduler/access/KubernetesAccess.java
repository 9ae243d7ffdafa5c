package dev.railyard.scheduler.access;

import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * Authentication of bearer tokens and authorization of requests by the Kubernetes API server, as kube-rbac-proxy
 * and the kubelet do: a {@code TokenReview} says who a token belongs to, a {@code SubjectAccessReview} whether
 * that user may do something (authentication.k8s.io/v1, authorization.k8s.io/v1). Implementations are thread-safe.
 */
public interface KubernetesAccess {

    /**
     * @return the token's user, or empty when the API server does not accept the token
     * @throws AccessException when the API server cannot be asked
     */
    Optional<User> authenticate(String token) throws AccessException;

    /**
     * @return whether {@code user} may do {@code what}, with the API server's reason
     * @throws AccessException when the API server cannot be asked
     */
    Decision authorize(User user, ResourceAttributes what) throws AccessException;

    /**
     * An authenticated user.
     *
     * @param name   user name, e.g. {@code system:serviceaccount:prod:trainer} or {@code alice}
     * @param uid    user UID, may be empty
     * @param groups groups, e.g. {@code system:authenticated}
     */
    record User(String name, String uid, List<String> groups) {
        public User {
            Objects.requireNonNull(name, "name");
            uid = uid == null ? "" : uid;
            groups = groups == null ? List.of() : List.copyOf(groups);
        }
    }

    /**
     * What is asked for, as RBAC sees it.
     *
     * @param verb      e.g. {@code get}
     * @param group     API group, e.g. {@code railyard.dev}
     * @param resource  resource, e.g. {@code explanations}
     * @param namespace namespace, empty for a cluster-wide question
     * @param name      object name, may be empty
     */
    record ResourceAttributes(String verb, String group, String resource, String namespace, String name) {
        public ResourceAttributes {
            Objects.requireNonNull(verb, "verb");
            Objects.requireNonNull(group, "group");
            Objects.requireNonNull(resource, "resource");
            namespace = namespace == null ? "" : namespace;
            name = name == null ? "" : name;
        }

        /** {@code get explanations.railyard.dev "name" in namespace "ns"}, for messages. */
        @Override
        public String toString() {
            return verb + " " + resource + (group.isEmpty() ? "" : "." + group)
                    + (name.isEmpty() ? "" : " \"" + name + "\"")
                    + (namespace.isEmpty() ? " (cluster-wide)" : " in namespace \"" + namespace + "\"");
        }
    }

    /**
     * The API server's answer.
     *
     * @param allowed whether the request is allowed
     * @param reason  the authorizer's reason, may be empty
     */
    record Decision(boolean allowed, String reason) {
        public Decision {
            reason = reason == null ? "" : reason;
        }
    }

    /** The API server could not be asked (unreachable, or it refused Railyard's own review request). */
    final class AccessException extends Exception {
        public AccessException(String message, Throwable cause) {
            super(message, cause);
        }
    }
}
