package dev.railyard.scheduler.access;

import dev.railyard.scheduler.cluster.ClusterObjects;
import dev.railyard.scheduler.cluster.SnapshotDirectory;
import dev.railyard.scheduler.explain.Explainer;
import dev.railyard.scheduler.protocol.Caller;
import dev.railyard.scheduler.protocol.WireReply;
import dev.railyard.scheduler.service.ExplainEndpoint;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.EnableKubernetesMockClient;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import io.fabric8.mockwebserver.http.RecordedRequest;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.ObjectMapper;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code /explain} behind a TokenReview and a SubjectAccessReview, against fabric8's mock API server: the reviews
 * Railyard posts (token, user, groups, the {@code explanations.railyard.dev} attributes) and each answer: 401
 * without a token or with a rejected one, 403 when RBAC denies, the explanation when it allows; decisions are
 * cached (kubelet's webhook cache times).
 */
@EnableKubernetesMockClient
class ExplainAccessTest {
    KubernetesMockServer server;
    KubernetesClient client;

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final ClusterObjects DEMO = SnapshotDirectory.read(Path.of("src/test/resources/snapshots/demo"))
            .objects();
    private static final String TOKEN_REVIEWS = "/apis/authentication.k8s.io/v1/tokenreviews";
    private static final String ACCESS_REVIEWS = "/apis/authorization.k8s.io/v1/subjectaccessreviews";

    private ExplainAccess access() {
        return new ExplainAccess(new ExplainEndpoint(() -> DEMO, new Explainer()), new ApiServerAccess(client));
    }

    private static Caller bearer(String token) {
        return new Caller(List.of(), Optional.of(token), "127.0.0.1:5555");
    }

    private static byte[] body(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    private void tokenIs(boolean authenticated) {
        server.expect().post().withPath(TOKEN_REVIEWS).andReturn(201, "{\"apiVersion\":\"authentication.k8s.io/v1\","
                + "\"kind\":\"TokenReview\",\"status\":{\"authenticated\":" + authenticated + (authenticated
                ? ",\"user\":{\"username\":\"alice\",\"uid\":\"u-1\",\"groups\":[\"ml-team\",\"system:authenticated\"]}"
                : "") + "}}").once();
    }

    private void rbacSays(boolean allowed) {
        server.expect().post().withPath(ACCESS_REVIEWS).andReturn(201, "{\"apiVersion\":\"authorization.k8s.io/v1\","
                + "\"kind\":\"SubjectAccessReview\",\"status\":{\"allowed\":" + allowed + ",\"reason\":\""
                + (allowed ? "RBAC: allowed by RoleBinding" : "no RBAC policy matched") + "\"}}").once();
    }

    private JsonNode posted(String path) throws Exception {
        RecordedRequest r = server.takeRequest(5, TimeUnit.SECONDS);
        assertThat(r).isNotNull();
        assertThat(r.getPath()).isEqualTo(path);
        return JSON.readTree(r.getUtf8Body());
    }

    @Test
    void withoutATokenIs401BeforeAnyReview() throws Exception {
        ExplainAccess a = access();
        assertThat(a.refuse(Caller.ANONYMOUS)).map(WireReply::status).contains(401);
        assertThat(a.handle(body("{\"command\":\"pools\"}"), Caller.ANONYMOUS).bodyText())
                .startsWith("explain: send a Kubernetes bearer token");
        assertThat(server.getRequestCount()).isZero();
    }

    @Test
    void aRejectedTokenIs401() throws Exception {
        tokenIs(false);
        WireReply r = access().handle(body("{\"command\":\"pools\"}"), bearer("forged"));
        assertThat(r.status()).isEqualTo(401);
        assertThat(r.bodyText().strip()).isEqualTo("explain: the API server does not accept this bearer token (TokenReview)");
        assertThat(posted(TOKEN_REVIEWS).path("spec").path("token").asString()).isEqualTo("forged");
    }

    @Test
    void rbacDecidesPerNamespaceAndNameForJobsAndClusterWideForPools() throws Exception {
        tokenIs(true);
        rbacSays(false);
        ExplainAccess a = access();
        WireReply denied = a.handle(body("{\"command\":\"job\",\"namespace\":\"prod\",\"name\":\"rdma-test\"}"),
                bearer("t-alice"));
        assertThat(denied.status()).isEqualTo(403);
        assertThat(denied.bodyText().strip()).isEqualTo("explain: user \"alice\" may not get explanations.railyard.dev "
                + "\"rdma-test\" in namespace \"prod\" (no RBAC policy matched)");
        posted(TOKEN_REVIEWS);
        JsonNode sar = posted(ACCESS_REVIEWS).path("spec");
        assertThat(sar.path("user").asString()).isEqualTo("alice");
        assertThat(sar.path("uid").asString()).isEqualTo("u-1");
        assertThat(sar.path("groups").toString()).isEqualTo("[\"ml-team\",\"system:authenticated\"]");
        JsonNode attrs = sar.path("resourceAttributes");
        assertThat(attrs.path("verb").asString()).isEqualTo("get");
        assertThat(attrs.path("group").asString()).isEqualTo("railyard.dev");
        assertThat(attrs.path("resource").asString()).isEqualTo("explanations");
        assertThat(attrs.path("namespace").asString()).isEqualTo("prod");
        assertThat(attrs.path("name").asString()).isEqualTo("rdma-test");

        // pools: cluster-wide, allowed; the token's review is cached (no second TokenReview)
        rbacSays(true);
        WireReply pools = a.handle(body("{\"command\":\"pools\"}"), bearer("t-alice"));
        assertThat(pools.status()).isEqualTo(200);
        assertThat(pools.bodyText()).contains("rdma-net-ipam-lan5");
        JsonNode clusterWide = posted(ACCESS_REVIEWS).path("spec").path("resourceAttributes");
        assertThat(clusterWide.has("namespace")).isFalse();
        assertThat(clusterWide.has("name")).isFalse();

        // both decisions are cached: 30 s denied, 5 min allowed
        assertThat(a.handle(body("{\"command\":\"pools\"}"), bearer("t-alice")).status()).isEqualTo(200);
        assertThat(a.handle(body("{\"command\":\"job\",\"namespace\":\"prod\",\"name\":\"rdma-test\"}"),
                bearer("t-alice")).status()).isEqualTo(403);
        assertThat(server.getRequestCount()).isEqualTo(3);
    }

    @Test
    void anUnreachableApiServerIs503NotAnAnswer() throws Exception {
        // no expectation: the mock answers 404 to the TokenReview
        WireReply r = access().handle(body("{\"command\":\"pools\"}"), bearer("t"));
        assertThat(r.status()).isEqualTo(503);
        assertThat(r.bodyText()).startsWith("explain: cannot check the bearer token: TokenReview failed: HTTP 404");
    }
}
