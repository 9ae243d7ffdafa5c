package dev.railyard.scheduler.service;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.railyard.scheduler.cluster.ClusterObjects;
import dev.railyard.scheduler.cluster.SnapshotDirectory;
import dev.railyard.scheduler.explain.Explainer;
import dev.railyard.scheduler.protocol.WireFormatException;
import dev.railyard.scheduler.protocol.WireReply;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** {@code POST /explain} on the demo cluster exported as a snapshot (scheduler/src/test/resources/snapshots/demo). */
class ExplainEndpointTest {
    private static final ClusterObjects DEMO = SnapshotDirectory.read(Path.of("src/test/resources/snapshots/demo"))
            .objects();
    private final ExplainEndpoint endpoint = new ExplainEndpoint(() -> DEMO, new Explainer());

    private static JsonNode json(WireReply reply) throws Exception {
        assertThat(reply.status()).isEqualTo(200);
        return new ObjectMapper().readTree(reply.body());
    }

    private static byte[] body(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    @Test
    void poolsNameTheDryRailPool() throws Exception {
        JsonNode pools = json(endpoint.handle(body("{\"command\":\"pools\"}"))).get("pools");

        // the demo's lan5 pool 192.168.16.0/22 has 1,015 of its 1,022 usable addresses allocated (demo output)
        assertThat(pools.findValuesAsText("pool")).contains("192.168.16.0-22");
        assertThat(pools.toString()).contains("rdma-net-ipam-lan5");
    }

    @Test
    void unknownJobIs404AndBadBodiesAre400() throws Exception {
        WireReply missing = endpoint.handle(body("{\"command\":\"job\",\"namespace\":\"prod\",\"name\":\"nope\"}"));
        assertThat(missing.status()).isEqualTo(404);
        assertThat(new String(missing.body(), StandardCharsets.UTF_8)).contains("nope");

        assertThatThrownBy(() -> endpoint.handle(body("{\"command\":\"job\"}")))
                .isInstanceOf(WireFormatException.class).hasMessageContaining("namespace");
        assertThatThrownBy(() -> endpoint.handle(body("{\"command\":\"jobs\"}")))
                .isInstanceOf(WireFormatException.class).hasMessageContaining("unknown command");
        assertThatThrownBy(() -> endpoint.handle(body("[1,2")))
                .isInstanceOf(WireFormatException.class);
        // found by an attacker review: a number was read as the string "1" and went on to the RBAC check
        for (String wrong : new String[] {"1", "1.5", "true"}) {
            assertThatThrownBy(() -> endpoint.handle(body("{\"command\":\"pod\",\"namespace\":" + wrong
                    + ",\"name\":\"x\"}"))).as(wrong).isInstanceOf(WireFormatException.class);
        }
    }

    @Test
    void coldCacheIs503() throws Exception {
        ClusterObjects cold = new ClusterObjects(DEMO.takenAt(), 0, DEMO.objects(), DEMO.disabled(), false);
        WireReply reply = new ExplainEndpoint(() -> cold, new Explainer()).handle(body("{\"command\":\"pools\"}"));
        assertThat(reply.status()).isEqualTo(503);
    }
}
