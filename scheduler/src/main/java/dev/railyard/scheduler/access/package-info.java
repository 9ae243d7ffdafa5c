/**
 * Who may call the service's verbs (docs/adr/0010-authenticated-callers.md): kube-scheduler's verbs need a client
 * certificate from the client CA ({@link dev.railyard.scheduler.access.ClientCertificateRequired}); {@code /explain}
 * needs a Kubernetes bearer token whose user may {@code get} {@code explanations.railyard.dev}, checked with a
 * TokenReview and a SubjectAccessReview as kube-rbac-proxy does
 * ({@link dev.railyard.scheduler.access.KubernetesAccess}, {@link dev.railyard.scheduler.access.ExplainAccess}).
 */
package dev.railyard.scheduler.access;
