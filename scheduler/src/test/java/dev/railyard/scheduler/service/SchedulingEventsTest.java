package dev.railyard.scheduler.service;

import io.fabric8.kubernetes.api.model.Event;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.EnableKubernetesMockClient;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/** Events on refused pods: written once per pod and message within the interval, with the reason and the text. */
@EnableKubernetesMockClient(crud = true)
class SchedulingEventsTest {
    KubernetesClient client;

    @Test
    void oneWarningEventPerPodAndMessageWithinTheInterval() {
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        try (SchedulingEvents events = new SchedulingEvents(client, registry, Duration.ofMinutes(1))) {
            events.podUnschedulable("prod", "w-0", "uid-0", "0/2 nodes: 2 pool 192.168.16.0-22 exhausted");
            events.podUnschedulable("prod", "w-0", "uid-0", "0/2 nodes: 2 pool 192.168.16.0-22 exhausted");
            events.podUnschedulable("prod", "w-1", "uid-1", "0/2 nodes: 2 pool 192.168.16.0-22 exhausted");

            await().atMost(Duration.ofSeconds(10)).until(() ->
                    registry.counter("railyard_events_total", "outcome", "written").count() == 2.0);
            List<Event> written = client.v1().events().inNamespace("prod").list().getItems();
            assertThat(written).hasSize(2);
            assertThat(written).allSatisfy(e -> {
                assertThat(e.getType()).isEqualTo("Warning");
                assertThat(e.getReason()).isEqualTo(SchedulingEvents.UNSCHEDULABLE);
                assertThat(e.getMessage()).contains("192.168.16.0-22");
            });
            assertThat(written).extracting(e -> e.getInvolvedObject().getName()).containsExactlyInAnyOrder("w-0", "w-1");
        }
    }
}
