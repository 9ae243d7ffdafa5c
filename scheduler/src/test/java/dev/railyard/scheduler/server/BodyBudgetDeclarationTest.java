package dev.railyard.scheduler.server;

import dev.railyard.scheduler.access.ClientCertificateRequired;
import dev.railyard.scheduler.access.ExplainAccess;
import dev.railyard.scheduler.access.KubernetesAccess;
import dev.railyard.scheduler.explain.Explainer;
import dev.railyard.scheduler.hints.delivery.BindingHintWebhook;
import dev.railyard.scheduler.hints.delivery.HintLookup;
import dev.railyard.scheduler.protocol.VerbHandler;
import dev.railyard.scheduler.protocol.VerbHandler.BodyBudget;
import dev.railyard.scheduler.protocol.WireReply;
import dev.railyard.scheduler.service.ExplainEndpoint;
import dev.railyard.scheduler.service.LeaderOnlyVerbs;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Which routes take the small budget of callers not authenticated before the body, how large it is, and that the
 * wrappers keep the declaration (a wrapper that dropped it would put the webhook or {@code /explain} back on the
 * schedulers' budget).
 */
class BodyBudgetDeclarationTest {
    static final VerbHandler EXPLAIN = new ExplainAccess(new ExplainEndpoint(() -> null, new Explainer()),
            new KubernetesAccess() {
                @Override
                public Optional<User> authenticate(String token) {
                    return Optional.empty();
                }

                @Override
                public Decision authorize(User user, ResourceAttributes what) {
                    return new Decision(false, "test");
                }
            });
    static final VerbHandler WEBHOOK = new BindingHintWebhook((pod, node) -> new HintLookup.NotApplicable("test"),
            null, Duration.ofSeconds(1), null);

    @Test
    void theWebhookAndExplainDeclareUnauthenticatedBodiesTheSchedulersVerbsDoNot() {
        assertThat(WEBHOOK.bodyBudget()).isEqualTo(BodyBudget.UNAUTHENTICATED);
        assertThat(EXPLAIN.bodyBudget()).isEqualTo(BodyBudget.UNAUTHENTICATED);
        assertThat(((VerbHandler) body -> WireReply.text(200, "ok")).bodyBudget()).isEqualTo(BodyBudget.SCHEDULERS);
    }

    @Test
    void wrappersKeepTheDeclarationExceptTheClientCertificateCheck() {
        assertThat(VerbHandler.offIoThread(EXPLAIN).bodyBudget()).isEqualTo(BodyBudget.UNAUTHENTICATED);
        assertThat(VerbHandler.onIoThread(WEBHOOK).bodyBudget()).isEqualTo(BodyBudget.UNAUTHENTICATED);
        Map<String, VerbHandler> gated = new LeaderOnlyVerbs(Optional::empty, new SimpleMeterRegistry())
                .gate("railyard", Map.of("explain", EXPLAIN), Set.of("explain"));
        assertThat(gated.get("explain").bodyBudget()).isEqualTo(BodyBudget.UNAUTHENTICATED);
        // the certificate is checked before the body: the route is authenticated whatever it wraps
        assertThat(ClientCertificateRequired.wrap("railyard", Map.of("explain", EXPLAIN)).get("explain").bodyBudget())
                .isEqualTo(BodyBudget.SCHEDULERS);
    }

    @Test
    void anUnauthenticatedRouteGetsASixteenthOfTheBudgetBetween1And16MiB() {
        assertThat(budget(32L << 20).unauthenticatedRouteBytes()).isEqualTo(2L << 20);
        assertThat(budget(40L << 20).unauthenticatedRouteBytes()).isEqualTo(40L << 16); // 2.5 MiB (160 MiB heap)
        // the chart's default: 2 GiB limit, 70 % heap (1.4 GiB), a quarter of it
        long chart = RequestBodyBudget.defaultBytes((long) (0.7 * (2L << 30)));
        assertThat(budget(chart).unauthenticatedRouteBytes()).isEqualTo(16L << 20);
        assertThat(budget(16L << 20).unauthenticatedRouteBytes()).isEqualTo(1L << 20);
        assertThat(budget(1L << 10).unauthenticatedRouteBytes()).isEqualTo(1L << 20);
        assertThat(RequestBodyBudget.UNAUTHENTICATED_MAX_BODY).isEqualTo(1L << 20);
    }

    private static RequestBodyBudget budget(long bytes) {
        return new RequestBodyBudget(bytes, Duration.ZERO);
    }
}
