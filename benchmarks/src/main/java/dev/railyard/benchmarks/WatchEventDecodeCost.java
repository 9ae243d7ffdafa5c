package dev.railyard.benchmarks;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.railyard.scheduler.cluster.ClusterCache;
import dev.railyard.scheduler.cluster.ClusterState;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.WatchEvent;
import io.fabric8.kubernetes.client.ConfigBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * CPU per Pod watch event as serve's informers receive it: fabric8's default (decode the event's object as a typed
 * Pod, then convert it to the informers' {@link GenericKubernetesResource}, as its AbstractWatchManager does) against
 * a client a {@link ClusterCache} was made with (decoded straight into the generic type). The events are made from a
 * real pod list: {@code kubectl get --raw /api/v1/pods > pods.json} (the 5,000-node benchmark's cluster, held with
 * {@code ClusterScaleBenchmark --hold-seconds}, was the source of the figures in docs/performance.md).
 *
 * <p>Run: {@code java -cp benchmarks/target/benchmarks.jar dev.railyard.benchmarks.WatchEventDecodeCost pods.json
 * [events, default 2000]}; prints µs of CPU per event for each way, eight rounds each, with the machine's load.
 */
public final class WatchEventDecodeCost {
    private WatchEventDecodeCost() {
    }

    public static void main(String[] args) throws Exception {
        if (args.length < 1) {
            System.err.println("usage: WatchEventDecodeCost PODS.json [EVENTS]");
            System.exit(2);
        }
        int count = args.length > 1 ? Integer.parseInt(args[1]) : 2000;
        ObjectMapper json = new ObjectMapper();
        List<String> events = new ArrayList<>();
        for (JsonNode item : json.readTree(Files.readAllBytes(Path.of(args[0]))).path("items")) {
            if (events.size() == count) {
                break;
            }
            ((ObjectNode) item).put("apiVersion", "v1").put("kind", "Pod");
            ObjectNode event = json.createObjectNode().put("type", "MODIFIED");
            event.set("object", item);
            events.add(json.writeValueAsString(event));
        }
        var config = new ConfigBuilder().withMasterUrl("https://127.0.0.1:1").build();
        try (KubernetesClient typed = new KubernetesClientBuilder().withConfig(config).build();
             KubernetesClient generic = new KubernetesClientBuilder().withConfig(config).build();
             ClusterCache cache = new ClusterCache(generic, new SimpleMeterRegistry(), Clock.systemUTC(),
                     Duration.ZERO, Duration.ofMinutes(10), new ClusterState(null, null, null, Clock.systemUTC()))) {
            for (int round = 0; round < 8; round++) {
                System.out.printf(Locale.ROOT, "%d events: fabric8 default %.1f µs, ClusterCache's client %.1f µs"
                        + " of CPU per event (load %s)%n", events.size(), perEvent(typed, events),
                        perEvent(generic, events), StateCoreCost.load());
            }
        }
    }

    private static double perEvent(KubernetesClient client, List<String> events) {
        var cpu = java.lang.management.ManagementFactory.getThreadMXBean();
        long c0 = cpu.getCurrentThreadCpuTime();
        for (String e : events) {
            Object o = client.getKubernetesSerialization().unmarshal(e, WatchEvent.class).getObject();
            if (!(o instanceof GenericKubernetesResource)) {
                o = client.getKubernetesSerialization().convertValue(o, GenericKubernetesResource.class);
            }
            if (((GenericKubernetesResource) o).getMetadata() == null) {
                throw new IllegalStateException("event without metadata");
            }
        }
        return (cpu.getCurrentThreadCpuTime() - c0) / 1e3 / events.size();
    }
}
