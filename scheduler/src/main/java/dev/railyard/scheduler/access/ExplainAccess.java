package dev.railyard.scheduler.access;

import dev.railyard.scheduler.explain.ExplainRequest;
import dev.railyard.scheduler.input.LogText;
import dev.railyard.scheduler.protocol.Caller;
import dev.railyard.scheduler.protocol.VerbHandler;
import dev.railyard.scheduler.protocol.WireFormatException;
import dev.railyard.scheduler.protocol.WireReply;
import dev.railyard.scheduler.service.ExplainEndpoint;

import java.util.Objects;
import java.util.Optional;

/**
 * {@code POST /explain} behind Kubernetes authentication and RBAC: the caller sends a bearer token
 * ({@code Authorization: Bearer <token>}, e.g. from {@code kubectl create token}); a TokenReview says whose it is,
 * and a SubjectAccessReview whether that user may {@code get} {@value #RESOURCE}.{@value #GROUP}: in the job's or
 * pod's namespace, with the job's or pod's name, for {@code job} and {@code pod}; cluster-wide for {@code pools}
 * (docs/adr/0010-authenticated-callers.md). The chart's ClusterRole {@code <release>-explain} grants it.
 *
 * <p>Answers 401 without a token or with one the API server does not accept, 403 when RBAC denies, 503 when the
 * API server cannot be asked, and otherwise what {@link ExplainEndpoint} answers. Thread-safe.
 */
public final class ExplainAccess implements VerbHandler {
    /** API group of the resource RBAC rules name. */
    public static final String GROUP = "railyard.dev";
    /** Resource RBAC rules name ({@code explanations.railyard.dev}); there is no such object, only the rule. */
    public static final String RESOURCE = "explanations";
    /** The verb checked. */
    public static final String VERB = "get";

    private final ExplainEndpoint endpoint;
    private final KubernetesAccess access;

    public ExplainAccess(ExplainEndpoint endpoint, KubernetesAccess access) {
        this.endpoint = Objects.requireNonNull(endpoint, "endpoint");
        this.access = Objects.requireNonNull(access, "access");
    }

    @Override
    public Optional<WireReply> refuse(Caller caller) {
        if (caller.bearerToken().isEmpty()) {
            return Optional.of(WireReply.text(401, "explain: send a Kubernetes bearer token (Authorization: Bearer "
                    + "<token>, e.g. from kubectl create token); its user needs get on " + RESOURCE + "." + GROUP));
        }
        return Optional.empty();
    }

    /**
     * The token is reviewed after the body is read (a TokenReview is an API call, which {@link #refuse} must not
     * make), so anyone may send a body with any token: {@link BodyBudget#UNAUTHENTICATED}.
     */
    @Override
    public BodyBudget bodyBudget() {
        return BodyBudget.UNAUTHENTICATED;
    }

    @Override
    public WireReply handle(byte[] body) {
        return refuse(Caller.ANONYMOUS).orElseThrow();
    }

    @Override
    public WireReply handle(byte[] body, Caller caller) throws WireFormatException {
        Optional<WireReply> refused = refuse(caller);
        if (refused.isPresent()) {
            return refused.get();
        }
        KubernetesAccess.User user;
        try {
            Optional<KubernetesAccess.User> u = access.authenticate(caller.bearerToken().orElseThrow());
            if (u.isEmpty()) {
                return WireReply.text(401, "explain: the API server does not accept this bearer token (TokenReview)");
            }
            user = u.get();
        } catch (KubernetesAccess.AccessException e) {
            return WireReply.text(503, "explain: cannot check the bearer token: " + LogText.escape(e.getMessage()));
        }
        ExplainRequest request = ExplainEndpoint.parse(body);
        KubernetesAccess.ResourceAttributes what = attributes(request);
        try {
            KubernetesAccess.Decision d = access.authorize(user, what);
            if (!d.allowed()) {
                return WireReply.text(403, "explain: user \"" + LogText.escape(user.name()) + "\" may not " + what
                        + (d.reason().isEmpty() ? "" : " (" + LogText.escape(d.reason()) + ")"));
            }
        } catch (KubernetesAccess.AccessException e) {
            return WireReply.text(503, "explain: cannot check RBAC: " + LogText.escape(e.getMessage()));
        }
        return endpoint.answer(request);
    }

    /** What RBAC is asked for a request: namespaced with its name for job and pod, cluster-wide for pools. */
    static KubernetesAccess.ResourceAttributes attributes(ExplainRequest r) {
        boolean pools = ExplainRequest.POOLS.equals(r.command());
        return new KubernetesAccess.ResourceAttributes(VERB, GROUP, RESOURCE, pools ? "" : r.namespace(),
                pools ? "" : r.name());
    }
}
