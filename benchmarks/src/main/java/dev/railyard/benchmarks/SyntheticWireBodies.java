package dev.railyard.benchmarks;

import com.fasterxml.jackson.core.JsonGenerator;

import java.io.IOException;

/**
 * Large request bodies in the shape Volcano and kube-scheduler send (docs/formats/volcano-extender.md §6–§7,
 * kube-extender.md §1): Go field-name keys, full core/v1 Node objects with 50 images and managedFields, every pod
 * on a node as a full TaskInfo with its Pod (managedFields included). Sizes follow the payload arithmetic of
 * docs/formats/volcano-extender.md §7: a GPU node with ~15 pods makes a predicate of ~130 KB; 100 such NodeInfos
 * make a ~20 MB prioritize.
 *
 * <p>Deterministic: the same arguments always give the same bytes.
 */
public final class SyntheticWireBodies {

    private SyntheticWireBodies() {
    }

    /** A Volcano predicate request: one 8-GPU worker task and one NodeInfo carrying {@code podsOnNode} pods. */
    public static byte[] volcanoPredicate(int podsOnNode) {
        return JsonBodies.write(1 << 16, g -> {
            g.writeStartObject();
            g.writeFieldName("task");
            taskInfo(g, 3, "", 1);
            g.writeFieldName("node");
            nodeInfo(g, "gpu-a-017", podsOnNode);
            g.writeEndObject();
        });
    }

    /** A Volcano prioritize request: one task and {@code nodes} NodeInfos of {@code podsPerNode} pods each. */
    public static byte[] volcanoPrioritize(int nodes, int podsPerNode) {
        return JsonBodies.write(1 << 16, g -> {
            g.writeStartObject();
            g.writeFieldName("task");
            taskInfo(g, 3, "", 1);
            g.writeArrayFieldStart("nodes");
            for (int i = 0; i < nodes; i++) {
                nodeInfo(g, String.format("gpu-%c-%03d", 'a' + i / 100, i % 100), podsPerNode);
            }
            g.writeEndArray();
            g.writeEndObject();
        });
    }

    /** A kube-scheduler filter request in nodeCacheCapable mode: a full Pod and {@code nodes} node names. */
    public static byte[] kubeFilterNodeNames(int nodes) {
        return JsonBodies.write(1 << 16, g -> {
            g.writeStartObject();
            g.writeFieldName("Pod");
            pod(g, "ml", "bert-finetune-0", "3c4d5e6f-7a8b-4c9d-8e0f-1a2b3c4d5e6f", "default-scheduler", 4, "", true);
            g.writeNullField("Nodes");
            g.writeArrayFieldStart("NodeNames");
            for (int i = 0; i < nodes; i++) {
                g.writeString(String.format("gpu-%c-%04d", 'a' + i / 1000, i % 1000));
            }
            g.writeEndArray();
            g.writeEndObject();
        });
    }


    private static void resource(JsonGenerator g, String field, long milliCpu, long memory, long gpuMilli, int maxTasks)
            throws IOException {
        g.writeObjectFieldStart(field);
        g.writeNumberField("MilliCPU", milliCpu);
        g.writeNumberField("Memory", memory);
        if (gpuMilli < 0) {
            g.writeNullField("ScalarResources");
        } else {
            g.writeObjectFieldStart("ScalarResources");
            if (gpuMilli > 0) {
                g.writeNumberField("nvidia.com/gpu", gpuMilli);
                for (int k = 0; k < 8; k++) {
                    g.writeNumberField("nvidia.com/mlx5_" + k, 1000);
                }
            }
            g.writeEndObject();
        }
        g.writeNumberField("MaxTaskNum", maxTasks);
        g.writeEndObject();
    }

    private static void taskInfo(JsonGenerator g, int index, String node, int status) throws IOException {
        String uid = String.format("6f1c2b7e-2d0a-4c55-9a8e-1b2f3c4d%04d", index);
        taskInfo(g, uid, "llm/pretrain-7b-0c1e5b7a", "pretrain-7b-worker-" + index, "llm", "worker", node, status,
                96000, 1030792151040L, 8000, true);
    }

    private static void taskInfo(JsonGenerator g, String uid, String job, String name, String ns, String role,
                                 String node, int status, long milliCpu, long memory, long gpuMilli, boolean gpuPod)
            throws IOException {
        g.writeStartObject();
        g.writeStringField("UID", uid);
        g.writeStringField("Job", job);
        g.writeStringField("Name", name);
        g.writeStringField("Namespace", ns);
        g.writeStringField("TaskRole", role);
        resource(g, "Resreq", milliCpu, memory, gpuMilli, 0);
        resource(g, "InitResreq", milliCpu, memory, gpuMilli, 0);
        g.writeNullField("DRAResreq");
        g.writeNullField("ResourceClaimKeys");
        g.writeNullField("ResourceClaimDRAResreq");
        g.writeStringField("NodeName", node);
        g.writeBooleanField("EvictionOccurred", false);
        g.writeStringField("JobAllocatedHyperNode", "");
        g.writeNumberField("Status", status);
        g.writeNullField("LastTransaction");
        g.writeNumberField("Priority", 0);
        for (String b : new String[]{"VolumeReady", "Preemptable", "BestEffort", "HasRestartableInitContainer", "SchGated"}) {
            g.writeBooleanField(b, false);
        }
        g.writeStringField("RevocableZone", "");
        g.writeNullField("NumaInfo");
        g.writeFieldName("Pod");
        pod(g, ns, name, uid, gpuPod ? "volcano" : "default-scheduler", gpuPod ? 8 : 0, node, gpuPod);
        g.writeBooleanField("CustomBindErrHandlerSucceeded", false);
        g.writeEndObject();
    }

    /** One core/v1 Pod as the API server serialises it: metadata (with managedFields), spec, status. */
    private static void pod(JsonGenerator g, String ns, String name, String uid, String scheduler, int gpus, String node,
                            boolean gang) throws IOException {
        g.writeStartObject();
        podMetadata(g, ns, name, uid, gang);
        podSpec(g, scheduler, gpus, node);
        podStatus(g, node);
        g.writeEndObject();
    }

    private static void podMetadata(JsonGenerator g, String ns, String name, String uid, boolean gang)
            throws IOException {
        g.writeObjectFieldStart("metadata");
        g.writeStringField("name", name);
        g.writeStringField("namespace", ns);
        g.writeStringField("uid", uid);
        g.writeStringField("resourceVersion", "48213377");
        g.writeStringField("creationTimestamp", "2026-08-20T09:14:07Z");
        g.writeObjectFieldStart("labels");
        g.writeStringField("app.kubernetes.io/name", name.replaceAll("-\\w+$", ""));
        g.writeStringField("pod-template-hash", "7d9f8c6b5");
        if (gang) {
            g.writeStringField("volcano.sh/job-name", "pretrain-7b");
            g.writeStringField("volcano.sh/task-spec", "worker");
        }
        g.writeEndObject();
        g.writeObjectFieldStart("annotations");
        g.writeStringField("k8s.v1.cni.cncf.io/networks", gang ? "rail0,rail1,rail2,rail3,rail4,rail5,rail6,rail7" : "");
        if (gang) {
            g.writeStringField("scheduling.k8s.io/group-name", "pretrain-7b-0c1e5b7a");
        }
        g.writeStringField("kubectl.kubernetes.io/last-applied-configuration",
                "{\"apiVersion\":\"v1\",\"kind\":\"Pod\",\"metadata\":{\"name\":\"" + name + "\"},\"spec\":{\"containers\":"
                        + "[{\"command\":[\"sh\",\"-c\",\"test $RANK -lt 8 && exec torchrun --nproc-per-node=8 train.py\"]}]}}");
        g.writeEndObject();
        g.writeArrayFieldStart("ownerReferences");
        g.writeStartObject();
        g.writeStringField("apiVersion", "batch.volcano.sh/v1alpha1");
        g.writeStringField("kind", "Job");
        g.writeStringField("name", "pretrain-7b");
        g.writeStringField("uid", "0c1e5b7a-93f2-4b7e-a1d4-5e6f7a8b9c0d");
        g.writeBooleanField("controller", true);
        g.writeEndObject();
        g.writeEndArray();
        managedFields(g);
        g.writeEndObject();
    }

    /** Three managers' managedFields entries, as kube-controller-manager, the kubelet and multus leave them. */
    private static void managedFields(JsonGenerator g) throws IOException {
        g.writeArrayFieldStart("managedFields");
        for (String manager : new String[]{"kube-controller-manager", "kubelet", "multus"}) {
            g.writeStartObject();
            g.writeStringField("manager", manager);
            g.writeStringField("operation", "Update");
            g.writeStringField("apiVersion", "v1");
            g.writeStringField("time", "2026-08-20T09:14:07Z");
            g.writeStringField("fieldsType", "FieldsV1");
            g.writeObjectFieldStart("fieldsV1");
            g.writeObjectFieldStart("f:metadata");
            for (String f : new String[]{"f:annotations", "f:labels", "f:ownerReferences"}) {
                g.writeObjectFieldStart(f);
                g.writeObjectFieldStart(".");
                g.writeEndObject();
                for (int k = 0; k < 4; k++) {
                    g.writeObjectFieldStart("f:example.com/key-" + k);
                    g.writeEndObject();
                }
                g.writeEndObject();
            }
            g.writeEndObject();
            g.writeObjectFieldStart("f:spec");
            g.writeObjectFieldStart("f:containers");
            g.writeObjectFieldStart("k:{\"name\":\"trainer\"}");
            for (String f : new String[]{".", "f:command", "f:env", "f:image", "f:imagePullPolicy", "f:name",
                    "f:resources", "f:terminationMessagePath", "f:volumeMounts"}) {
                g.writeObjectFieldStart(f);
                g.writeEndObject();
            }
            g.writeEndObject();
            g.writeEndObject();
            g.writeEndObject();
            g.writeEndObject();
            g.writeEndObject();
        }
        g.writeEndArray();
    }

    private static void podSpec(JsonGenerator g, String scheduler, int gpus, String node) throws IOException {
        g.writeObjectFieldStart("spec");
        g.writeArrayFieldStart("volumes");
        for (int v = 0; v < 3; v++) {
            g.writeStartObject();
            g.writeStringField("name", "vol-" + v);
            g.writeObjectFieldStart("projected");
            g.writeArrayFieldStart("sources");
            g.writeStartObject();
            g.writeObjectFieldStart("serviceAccountToken");
            g.writeNumberField("expirationSeconds", 3607);
            g.writeStringField("path", "token");
            g.writeEndObject();
            g.writeEndObject();
            g.writeEndArray();
            g.writeNumberField("defaultMode", 420);
            g.writeEndObject();
            g.writeEndObject();
        }
        g.writeEndArray();
        g.writeArrayFieldStart("containers");
        g.writeStartObject();
        g.writeStringField("name", "trainer");
        g.writeStringField("image", "nvcr.io/nvidia/pytorch:25.07-py3");
        g.writeArrayFieldStart("env");
        for (int e = 0; e < 12; e++) {
            g.writeStartObject();
            g.writeStringField("name", "NCCL_SETTING_" + e);
            g.writeStringField("value", "value-" + e);
            g.writeEndObject();
        }
        g.writeEndArray();
        g.writeObjectFieldStart("resources");
        for (String kind : new String[]{"limits", "requests"}) {
            g.writeObjectFieldStart(kind);
            g.writeStringField("cpu", gpus > 0 ? "96" : "500m");
            g.writeStringField("memory", gpus > 0 ? "960Gi" : "512Mi");
            if (gpus > 0) {
                g.writeStringField("nvidia.com/gpu", Integer.toString(gpus));
                for (int k = 0; k < 8; k++) {
                    g.writeStringField("nvidia.com/mlx5_" + k, "1");
                }
            }
            g.writeEndObject();
        }
        g.writeEndObject();
        g.writeStringField("terminationMessagePath", "/dev/termination-log");
        g.writeStringField("imagePullPolicy", "IfNotPresent");
        g.writeEndObject();
        g.writeEndArray();
        g.writeStringField("restartPolicy", "Never");
        g.writeStringField("dnsPolicy", "ClusterFirst");
        g.writeStringField("serviceAccountName", "default");
        if (!node.isEmpty()) {
            g.writeStringField("nodeName", node);
        }
        g.writeStringField("schedulerName", scheduler);
        g.writeArrayFieldStart("tolerations");
        for (String key : new String[]{"node.kubernetes.io/not-ready", "node.kubernetes.io/unreachable", "nvidia.com/gpu"}) {
            g.writeStartObject();
            g.writeStringField("key", key);
            g.writeStringField("operator", "Exists");
            g.writeStringField("effect", "NoExecute");
            g.writeNumberField("tolerationSeconds", 300);
            g.writeEndObject();
        }
        g.writeEndArray();
        g.writeEndObject();
    }

    private static void podStatus(JsonGenerator g, String node) throws IOException {
        g.writeObjectFieldStart("status");
        g.writeStringField("phase", node.isEmpty() ? "Pending" : "Running");
        g.writeArrayFieldStart("conditions");
        for (String type : new String[]{"PodReadyToStartContainers", "Initialized", "Ready", "ContainersReady", "PodScheduled"}) {
            g.writeStartObject();
            g.writeStringField("type", type);
            g.writeStringField("status", "True");
            g.writeNullField("lastProbeTime");
            g.writeStringField("lastTransitionTime", "2026-08-20T09:14:07Z");
            g.writeEndObject();
        }
        g.writeEndArray();
        g.writeStringField("qosClass", "Burstable");
        g.writeEndObject();
    }

    private static void nodeInfo(JsonGenerator g, String name, int pods) throws IOException {
        g.writeStartObject();
        g.writeStringField("Name", name);
        g.writeFieldName("Node");
        node(g, name);
        g.writeObjectFieldStart("State");
        g.writeNumberField("Phase", 1);
        g.writeStringField("Reason", "");
        g.writeEndObject();
        resource(g, "Releasing", 0, 0, -1, 0);
        resource(g, "Pipelined", 0, 0, -1, 0);
        resource(g, "Idle", 189500, 2146946777088L, 8000, 110);
        resource(g, "Used", 500, 536870912, -1, 0);
        resource(g, "Allocatable", 190000, 2147483648000L, 8000, 110);
        resource(g, "Capacity", 192000, 2164663517184L, 8000, 110);
        g.writeObjectFieldStart("ResourceUsage");
        g.writeStringField("MetricsTime", "0001-01-01T00:00:00Z");
        g.writeNullField("CPUUsageAvg");
        g.writeNullField("MEMUsageAvg");
        g.writeEndObject();
        g.writeObjectFieldStart("Tasks");
        for (int p = 0; p < pods; p++) {
            String uid = String.format("0b7d9c1e-5a44-4e0a-9d3f-%s%04d", Integer.toHexString(name.hashCode() & 0xffff), p);
            g.writeFieldName(uid);
            taskInfo(g, uid, "", "daemon-" + name + "-" + p, "gpu-operator", "", name, 32, 500, 536870912, 0, false);
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
        resource(g, "OversubscriptionResource", 0, 0, -1, 0);
        g.writeObjectFieldStart("ImageStates");
        g.writeEndObject();
        g.writeNumberField("Generation", 42);
        g.writeNumberField("BindGeneration", 7);
        g.writeEndObject();
    }

    private static void node(JsonGenerator g, String name) throws IOException {
        g.writeStartObject();
        g.writeObjectFieldStart("metadata");
        g.writeStringField("name", name);
        g.writeStringField("uid", "9a0b1c2d-3e4f-5a6b-7c8d-" + String.format("%012x", name.hashCode() & 0xffffffffL));
        g.writeStringField("resourceVersion", "48210001");
        g.writeObjectFieldStart("labels");
        g.writeStringField("kubernetes.io/hostname", name);
        g.writeStringField("volcano.sh/tor", "leaf-sw-07");
        g.writeStringField("nvidia.com/gpu.product", "NVIDIA-H100-80GB-HBM3");
        g.writeEndObject();
        g.writeArrayFieldStart("managedFields");
        g.writeStartObject();
        g.writeStringField("manager", "kubelet");
        g.writeStringField("operation", "Update");
        g.writeObjectFieldStart("fieldsV1");
        g.writeObjectFieldStart("f:status");
        for (int i = 0; i < 40; i++) {
            g.writeObjectFieldStart("f:field-" + i);
            g.writeEndObject();
        }
        g.writeEndObject();
        g.writeEndObject();
        g.writeEndObject();
        g.writeEndArray();
        g.writeEndObject();
        g.writeObjectFieldStart("spec");
        g.writeStringField("podCIDR", "10.244.17.0/24");
        g.writeEndObject();
        g.writeObjectFieldStart("status");
        for (String kind : new String[]{"capacity", "allocatable"}) {
            g.writeObjectFieldStart(kind);
            g.writeStringField("cpu", "192");
            g.writeStringField("memory", "2113929216Ki");
            g.writeStringField("nvidia.com/gpu", "8");
            for (int k = 0; k < 8; k++) {
                g.writeStringField("nvidia.com/mlx5_" + k, "1k");
            }
            g.writeStringField("pods", "110");
            g.writeEndObject();
        }
        g.writeArrayFieldStart("conditions");
        for (String type : new String[]{"MemoryPressure", "DiskPressure", "PIDPressure", "Ready"}) {
            g.writeStartObject();
            g.writeStringField("type", type);
            g.writeStringField("status", "Ready".equals(type) ? "True" : "False");
            g.writeStringField("lastHeartbeatTime", "2026-08-20T09:14:07Z");
            g.writeStringField("reason", "KubeletHasSufficient" + type);
            g.writeStringField("message", "kubelet has sufficient resources for " + type);
            g.writeEndObject();
        }
        g.writeEndArray();
        g.writeArrayFieldStart("images");
        for (int i = 0; i < 50; i++) {
            g.writeStartObject();
            g.writeArrayFieldStart("names");
            g.writeString(String.format("registry.example.com/team/image-%02d@sha256:%064x", i, (long) i * 7919));
            g.writeString(String.format("registry.example.com/team/image-%02d:v1.%d", i, i));
            g.writeEndArray();
            g.writeNumberField("sizeBytes", 1_000_000_000L + i);
            g.writeEndObject();
        }
        g.writeEndArray();
        g.writeEndObject();
        g.writeEndObject();
    }

    /** Prints the sizes the benchmarks use. */
    public static void main(String[] args) {
        System.out.printf("predicate, 18 pods on node:      %,d bytes%n", volcanoPredicate(18).length);
        System.out.printf("prioritize, 100 nodes x 30 pods: %,d bytes%n", volcanoPrioritize(100, 30).length);
        System.out.printf("kube filter, 5000 node names:    %,d bytes%n", kubeFilterNodeNames(5000).length);
    }
}
