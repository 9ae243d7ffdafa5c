package dev.railyard.benchmarks.scale;

import com.fasterxml.jackson.core.JsonGenerator;
import dev.railyard.benchmarks.JsonBodies;
import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;

import java.io.IOException;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * Volcano extender request bodies built from objects as the API server returned them: a {@code TaskInfo} around a
 * real Pod and a {@code NodeInfo} around a real Node with its real pods as tasks, in the shape vc-scheduler marshals
 * them (Go field names; volcano-sh/volcano v1.14 {@code pkg/scheduler/api/job_info.go} TaskInfo,
 * {@code node_info.go} NodeInfo, {@code resource_info.go} Resource; the same layout as
 * {@code dev.railyard.benchmarks.SyntheticWireBodies}, whose pods and nodes are invented). Railyard reads the task's
 * identity and Pod and each node's {@code Name}; the rest is there for the parse cost.
 *
 * <p>TaskInfo {@code Status} is Volcano's bitmask ({@code pkg/scheduler/api/types.go}): 1 Pending, 32 Running.
 */
public final class VolcanoWire {
    /** TaskStatus Pending. */
    public static final int PENDING = 1;
    /** TaskStatus Running. */
    public static final int RUNNING = 32;

    private VolcanoWire() {
    }

    /** Resource requests of a pod summed over its containers, as Volcano's Resource: milli-CPU, bytes, milli-units. */
    record Requests(long milliCpu, long memory, Map<String, Long> scalarMilli) {
        static Requests of(Pod pod) {
            long cpu = 0;
            long mem = 0;
            Map<String, Long> scalars = new TreeMap<>();
            for (Container c : pod.getSpec().getContainers()) {
                if (c.getResources() == null || c.getResources().getRequests() == null) {
                    continue;
                }
                for (var e : c.getResources().getRequests().entrySet()) {
                    BigDecimal v = Quantity.getAmountInBytes(e.getValue());
                    switch (e.getKey()) {
                        case "cpu" -> cpu += v.movePointRight(3).longValue();
                        case "memory" -> mem += v.longValue();
                        default -> scalars.merge(e.getKey(), v.movePointRight(3).longValue(), Long::sum);
                    }
                }
            }
            return new Requests(cpu, mem, scalars);
        }

        Requests plus(Requests o) {
            Map<String, Long> s = new TreeMap<>(scalarMilli);
            o.scalarMilli.forEach((k, v) -> s.merge(k, v, Long::sum));
            return new Requests(milliCpu + o.milliCpu, memory + o.memory, s);
        }

        Requests minus(Requests o) {
            Map<String, Long> s = new TreeMap<>(scalarMilli);
            o.scalarMilli.forEach((k, v) -> s.merge(k, -v, Long::sum));
            return new Requests(milliCpu - o.milliCpu, memory - o.memory, s);
        }

        static Requests allocatable(Node node) {
            long cpu = 0;
            long mem = 0;
            Map<String, Long> scalars = new TreeMap<>();
            for (var e : node.getStatus().getAllocatable().entrySet()) {
                BigDecimal v = Quantity.getAmountInBytes(e.getValue());
                switch (e.getKey()) {
                    case "cpu" -> cpu = v.movePointRight(3).longValue();
                    case "memory" -> mem = v.longValue();
                    case "pods", "ephemeral-storage" -> { }
                    default -> scalars.put(e.getKey(), v.movePointRight(3).longValue());
                }
            }
            return new Requests(cpu, mem, scalars);
        }
    }

    /**
     * One task as Volcano sends it.
     *
     * @param podJson the pod as the API server returned it
     * @param pod     the same pod, parsed
     * @param job     TaskInfo {@code Job}: {@code namespace/podgroup}, or empty for a pod without a PodGroup
     * @param role    TaskInfo {@code TaskRole} (the {@code volcano.sh/task-spec} label), or empty
     * @param status  {@link #PENDING} or {@link #RUNNING}
     */
    public static byte[] taskInfo(String podJson, Pod pod, String job, String role, int status) {
        Requests r = Requests.of(pod);
        String node = pod.getSpec().getNodeName() == null ? "" : pod.getSpec().getNodeName();
        return JsonBodies.write(1 << 14, g -> {
            g.writeStartObject();
            g.writeStringField("UID", pod.getMetadata().getUid());
            g.writeStringField("Job", job);
            g.writeStringField("Name", pod.getMetadata().getName());
            g.writeStringField("Namespace", pod.getMetadata().getNamespace());
            g.writeStringField("TaskRole", role);
            resource(g, "Resreq", r, 0);
            resource(g, "InitResreq", r, 0);
            g.writeNullField("DRAResreq");
            g.writeNullField("ResourceClaimKeys");
            g.writeNullField("ResourceClaimDRAResreq");
            g.writeStringField("NodeName", node);
            g.writeBooleanField("EvictionOccurred", false);
            g.writeStringField("JobAllocatedHyperNode", "");
            g.writeNumberField("Status", status);
            g.writeNullField("LastTransaction");
            g.writeNumberField("Priority", 0);
            for (String b : new String[]{"VolumeReady", "Preemptable", "BestEffort", "HasRestartableInitContainer",
                    "SchGated"}) {
                g.writeBooleanField(b, false);
            }
            g.writeStringField("RevocableZone", "");
            g.writeNullField("NumaInfo");
            g.writeFieldName("Pod");
            g.writeRawValue(podJson);
            g.writeBooleanField("CustomBindErrHandlerSucceeded", false);
            g.writeEndObject();
        });
    }

    /**
     * One node as Volcano sends it, with its tasks.
     *
     * @param nodeJson the Node as the API server returned it
     * @param node     the same Node, parsed
     * @param pods     the node's pods: their TaskInfo JSON ({@link #taskInfo}) and parsed form, for Used/Idle
     */
    public static byte[] nodeInfo(String nodeJson, Node node, List<byte[]> taskInfos, List<Pod> pods) {
        Requests sum = new Requests(0, 0, Map.of());
        for (Pod p : pods) {
            sum = sum.plus(Requests.of(p));
        }
        Requests used = sum;
        Requests alloc = Requests.allocatable(node);
        Requests idle = alloc.minus(used);
        Requests zero = new Requests(0, 0, Map.of());
        int maxPods = Quantity.getAmountInBytes(node.getStatus().getAllocatable().get("pods")).intValue();
        return JsonBodies.write(1 << 14, g -> {
            g.writeStartObject();
            g.writeStringField("Name", node.getMetadata().getName());
            g.writeFieldName("Node");
            g.writeRawValue(nodeJson);
            g.writeObjectFieldStart("State");
            g.writeNumberField("Phase", 1);
            g.writeStringField("Reason", "");
            g.writeEndObject();
            resource(g, "Releasing", zero, 0);
            resource(g, "Pipelined", zero, 0);
            resource(g, "Idle", idle, maxPods);
            resource(g, "Used", used, 0);
            resource(g, "Allocatable", alloc, maxPods);
            resource(g, "Capacity", alloc, maxPods);
            g.writeObjectFieldStart("ResourceUsage");
            g.writeStringField("MetricsTime", "0001-01-01T00:00:00Z");
            g.writeNullField("CPUUsageAvg");
            g.writeNullField("MEMUsageAvg");
            g.writeEndObject();
            g.writeObjectFieldStart("Tasks");
            for (int i = 0; i < pods.size(); i++) {
                g.writeFieldName(pods.get(i).getMetadata().getUid());
                g.writeRawValue(new String(taskInfos.get(i), StandardCharsets.UTF_8));
            }
            g.writeEndObject();
            g.writeNullField("NumaInfo");
            g.writeNumberField("NumaChgFlag", 0);
            g.writeNullField("NumaSchedulerInfo");
            g.writeStringField("RevocableZone", "");
            g.writeObjectFieldStart("Others");
            g.writeEndObject();
            g.writeBooleanField("OversubscriptionNode", false);
            g.writeBooleanField("OfflineJobEvicting", false);
            resource(g, "OversubscriptionResource", zero, 0);
            g.writeObjectFieldStart("ImageStates");
            g.writeEndObject();
            g.writeNumberField("Generation", pods.size() + 1);
            g.writeNumberField("BindGeneration", pods.size());
            g.writeEndObject();
        });
    }

    /** The kube-scheduler filter request in nodeCacheCapable mode ({@code ExtenderArgs}: Pod, Nodes null, NodeNames). */
    public static byte[] kubeFilter(String podJson, List<String> nodeNames) {
        return JsonBodies.write(1 << 14, g -> {
            g.writeStartObject();
            g.writeFieldName("Pod");
            g.writeRawValue(podJson);
            g.writeNullField("Nodes");
            g.writeArrayFieldStart("NodeNames");
            for (String n : nodeNames) {
                g.writeString(n);
            }
            g.writeEndArray();
            g.writeEndObject();
        });
    }

    /** JSON of an object as the API server returned it (fabric8's serialization keeps every field it read). */
    static String json(KubernetesSerialization s, Object o) {
        return s.asJson(o);
    }

    private static void resource(JsonGenerator g, String field, Requests r, int maxTasks) throws IOException {
        g.writeObjectFieldStart(field);
        g.writeNumberField("MilliCPU", r.milliCpu());
        g.writeNumberField("Memory", r.memory());
        if (r.scalarMilli().isEmpty()) {
            g.writeNullField("ScalarResources");
        } else {
            g.writeObjectFieldStart("ScalarResources");
            for (var e : r.scalarMilli().entrySet()) {
                g.writeNumberField(e.getKey(), e.getValue());
            }
            g.writeEndObject();
        }
        g.writeNumberField("MaxTaskNum", maxTasks);
        g.writeEndObject();
    }

}
