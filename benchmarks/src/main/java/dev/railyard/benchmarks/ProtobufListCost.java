package dev.railyard.benchmarks;

import dev.railyard.scheduler.cluster.PodDecoding;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.GenericKubernetesResourceList;

import java.io.ByteArrayInputStream;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;

/**
 * CPU per pod of reading a kube-apiserver Pod list as serve's Pod informer reads it (JSON, {@link PodDecoding})
 * against reading the same list in the API server's protobuf encoding as far as the same fields
 * ({@link ProtobufPodList}): the measurement behind docs/adr/0026. Both readings are first compared pod by pod
 * (name, node, scheduler, phase, every container's requests and limits, label count); it refuses to time two
 * readings that disagree.
 *
 * <p>Run: {@code java -cp benchmarks/target/benchmarks.jar dev.railyard.benchmarks.ProtobufListCost pods.json
 * pods.pb}, the two files fetched from one cluster at one resourceVersion:
 * {@code curl ... -H 'Accept: application/json' "$API/api/v1/pods?resourceVersion=0" > pods.json} and the same with
 * {@code Accept: application/vnd.kubernetes.protobuf} (a User-Agent other than curl's, which the API server answers
 * with indented JSON). Prints eight rounds of µs of CPU and KiB allocated per pod for each, with the machine's load.
 * Exit 2 on bad arguments, 1 when the readings disagree.
 */
public final class ProtobufListCost {
    private ProtobufListCost() {
    }

    public static void main(String[] args) throws Exception {
        if (args.length != 2) {
            System.err.println("usage: ProtobufListCost PODS.json PODS.pb");
            System.exit(2);
        }
        byte[] json = Files.readAllBytes(Path.of(args[0]));
        byte[] proto = Files.readAllBytes(Path.of(args[1]));
        List<ProtobufPodList.PodFields> fromJson = fromJson(json);
        List<ProtobufPodList.PodFields> fromProto = ProtobufPodList.read(proto);
        String differs = firstDifference(fromJson, fromProto);
        if (differs != null) {
            System.err.println("the two readings disagree: " + differs);
            System.exit(1);
        }
        System.out.printf(Locale.ROOT, "%d pods, %,d bytes of JSON and %,d of protobuf, read alike%n",
                fromJson.size(), json.length, proto.length);
        for (int round = 0; round < 8; round++) {
            String j = perPod(() -> fromJson(json).size());
            String p = perPod(() -> ProtobufPodList.read(proto).size());
            System.out.printf(Locale.ROOT, "round %d, µs of CPU (KiB allocated) per pod: JSON as the Pod informer "
                    + "reads it %s, protobuf to the same fields %s (load %s)%n", round, j, p, StateCoreCost.load());
        }
    }

    /** @return the first pod whose two readings differ, described, or null */
    static String firstDifference(List<ProtobufPodList.PodFields> a, List<ProtobufPodList.PodFields> b) {
        if (a.size() != b.size()) {
            return a.size() + " pods in JSON, " + b.size() + " in protobuf";
        }
        for (int i = 0; i < a.size(); i++) {
            if (!a.get(i).equals(b.get(i))) {
                return "pod " + i + ": " + a.get(i) + " against " + b.get(i);
            }
        }
        return null;
    }

    /** The JSON list read by the Pod informer's decoding, then the compared fields taken from what it kept. */
    static List<ProtobufPodList.PodFields> fromJson(byte[] list) {
        List<ProtobufPodList.PodFields> out = new ArrayList<>();
        GenericKubernetesResourceList pods = PodDecoding.serialization()
                .unmarshal(new ByteArrayInputStream(list), GenericKubernetesResourceList.class);
        for (GenericKubernetesResource pod : pods.getItems()) {
            Map<String, Object> spec = map(pod.getAdditionalProperties().get("spec"));
            List<String> containers = new ArrayList<>();
            for (String kind : List.of("containers", "initContainers")) {
                for (Object c : list(spec.get(kind))) {
                    Map<String, Object> container = map(c);
                    Map<String, Object> resources = map(container.get("resources"));
                    containers.add(container.getOrDefault("name", "") + " " + strings(resources.get("requests"))
                            + " " + strings(resources.get("limits")));
                }
            }
            Map<String, String> labels = pod.getMetadata().getLabels();
            out.add(new ProtobufPodList.PodFields(pod.getMetadata().getNamespace() + "/" + pod.getMetadata().getName(),
                    (String) spec.getOrDefault("nodeName", ""), (String) spec.getOrDefault("schedulerName", ""),
                    (String) map(pod.getAdditionalProperties().get("status")).getOrDefault("phase", ""), containers,
                    labels == null ? 0 : labels.size()));
        }
        return out;
    }

    @SuppressWarnings("unchecked")
    private static Map<String, Object> map(Object o) {
        return o instanceof Map<?, ?> m ? (Map<String, Object>) m : Map.of();
    }

    private static List<?> list(Object o) {
        return o instanceof List<?> l ? l : List.of();
    }

    private static Map<String, String> strings(Object o) {
        Map<String, String> out = new TreeMap<>();
        map(o).forEach((k, v) -> out.put(k, String.valueOf(v)));
        return out;
    }

    private interface Reading {
        int pods() throws Exception;
    }

    private static String perPod(Reading reading) throws Exception {
        var cpu = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
        long c0 = cpu.getCurrentThreadCpuTime();
        long a0 = cpu.getCurrentThreadAllocatedBytes();
        int n = reading.pods();
        double micros = (cpu.getCurrentThreadCpuTime() - c0) / 1e3 / n;
        double kib = (cpu.getCurrentThreadAllocatedBytes() - a0) / 1024.0 / n;
        return String.format(Locale.ROOT, "%.1f (%.1f)", micros, kib);
    }
}
