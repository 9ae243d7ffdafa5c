package dev.railyard.benchmarks;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.railyard.scheduler.cluster.ClusterCache;
import dev.railyard.scheduler.cluster.InformerDecoding;
import dev.railyard.scheduler.cluster.PodDecoding;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.WatchEvent;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * CPU per Pod watch event as serve's informers receive it, four ways: fabric8's default (decode the event's object
 * as a typed Pod, then convert it to the informers' {@link GenericKubernetesResource}, as its AbstractWatchManager
 * does); decoded straight into the generic type with fabric8's mapper; {@link InformerDecoding}, the
 * {@link ClusterCache}'s own (the generic type, without {@code managedFields}); and {@link PodDecoding}, the Pod
 * informer's (only what {@code PodView} reads). Then CPU per pod of decoding the whole list, as an informer's first
 * list, with the last two. The events are made from a
 * real pod list: {@code kubectl get --raw /api/v1/pods > pods.json} (the 5,000-node benchmark's cluster, held with
 * {@code ClusterScaleBenchmark --hold-seconds}, was the source of the figures in docs/performance.md).
 *
 * <p>Run: {@code java -cp benchmarks/target/benchmarks.jar dev.railyard.benchmarks.WatchEventDecodeCost pods.json
 * [events, default 2000]}; prints µs of CPU per event for each way, eight rounds each, with the machine's load,
 * and the bytes each way allocates per event; then the same per pod for the list.
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
        KubernetesSerialization typed = new KubernetesSerialization();
        KubernetesSerialization generic = new KubernetesSerialization();
        generic.registerKubernetesResource("v1", "Pod", GenericKubernetesResource.class);
        KubernetesSerialization informers = InformerDecoding.serialization();
        KubernetesSerialization pods = PodDecoding.serialization();
        for (int round = 0; round < 8; round++) {
            System.out.printf(Locale.ROOT, "%d events, µs of CPU (KiB allocated) per event: fabric8 default %s, "
                    + "generic %s, informers' decoding %s, Pod informer's %s (load %s)%n", events.size(),
                    perEvent(typed, events), perEvent(generic, events), perEvent(informers, events),
                    perEvent(pods, events), StateCoreCost.load());
        }
        byte[] list = Files.readAllBytes(Path.of(args[0]));
        for (int round = 0; round < 8; round++) {
            System.out.printf(Locale.ROOT, "the whole list, µs of CPU (KiB allocated) per pod: informers' decoding %s, "
                    + "Pod informer's %s (load %s)%n", perItem(informers, list), perItem(pods, list),
                    StateCoreCost.load());
        }
    }

    private static String perItem(KubernetesSerialization serialization, byte[] list) {
        var cpu = (com.sun.management.ThreadMXBean) java.lang.management.ManagementFactory.getThreadMXBean();
        long c0 = cpu.getCurrentThreadCpuTime();
        long a0 = cpu.getCurrentThreadAllocatedBytes();
        int n = serialization.unmarshal(new java.io.ByteArrayInputStream(list),
                io.fabric8.kubernetes.api.model.GenericKubernetesResourceList.class).getItems().size();
        double micros = (cpu.getCurrentThreadCpuTime() - c0) / 1e3 / n;
        double kib = (cpu.getCurrentThreadAllocatedBytes() - a0) / 1024.0 / n;
        return String.format(Locale.ROOT, "%.1f (%.1f)", micros, kib);
    }

    private static String perEvent(KubernetesSerialization serialization, List<String> events) {
        var cpu = (com.sun.management.ThreadMXBean) java.lang.management.ManagementFactory.getThreadMXBean();
        long c0 = cpu.getCurrentThreadCpuTime();
        long a0 = cpu.getCurrentThreadAllocatedBytes();
        for (String e : events) {
            Object o = serialization.unmarshal(e, WatchEvent.class).getObject();
            if (!(o instanceof GenericKubernetesResource)) {
                o = serialization.convertValue(o, GenericKubernetesResource.class);
            }
            if (((GenericKubernetesResource) o).getMetadata() == null) {
                throw new IllegalStateException("event without metadata");
            }
        }
        double micros = (cpu.getCurrentThreadCpuTime() - c0) / 1e3 / events.size();
        double kib = (cpu.getCurrentThreadAllocatedBytes() - a0) / 1024.0 / events.size();
        return String.format(Locale.ROOT, "%.1f (%.1f)", micros, kib);
    }
}
