package dev.railyard.scheduler.protocol.volcano;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import dev.railyard.scheduler.protocol.ExtenderPod;
import dev.railyard.scheduler.protocol.GangJob;
import dev.railyard.scheduler.protocol.PodJson;
import dev.railyard.scheduler.protocol.VolcanoTask;
import dev.railyard.scheduler.protocol.WireFormatException;
import dev.railyard.scheduler.protocol.WireJson;

import dev.railyard.scheduler.input.ObjectNames;

import java.io.IOException;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Streaming readers for Volcano's extender request bodies (volcano-sh/volcano
 * pkg/scheduler/plugins/extender/argument.go; struct keys per pkg/scheduler/api/job_info.go and node_info.go,
 * marshalled with Go field names: docs/formats/volcano-extender.md §6).
 *
 * <p>Takes from TaskInfo: {@code UID}, {@code Job}, {@code Name}, {@code Namespace}, {@code TaskRole},
 * {@code NodeName}, {@code Status}, and from its {@code Pod} what {@link PodJson} keeps. From NodeInfo only
 * {@code Name} (or {@code Node.metadata.name} when {@code Name} is absent): the rest, including every pod on the
 * node, is skipped without being built. From JobInfo: identity, {@code MinAvailable}, {@code TaskMinAvailable}
 * and {@code Tasks}; {@code TaskStatusIndex}, {@code SubJobs} and {@code PodGroup} are skipped.
 *
 * <p>Refused (400): a key given twice in any object read here ({@link WireJson#unique}), node names and
 * {@code NodeName} that are not DNS-1123 subdomains, and what {@link PodJson} refuses. The {@link NodeNameScan}
 * fast path gives exactly the verdict of the full parse ({@code fast = false}) on every input: it returns
 * names only for a node list it has checked as strictly as Jackson would, and the name checks run after either.
 */
final class VolcanoRequestReader {

    /** A request's top-level values by key, e.g. {@code task} → the pod. */
    record TaskAndNodes(ExtenderPod task, List<String> nodes) {
    }

    private VolcanoRequestReader() {
    }

    /**
     * Reads {@code {"task": TaskInfo, <nodesKey>: ...}} where {@code nodesKey} is {@code "node"} (one NodeInfo),
     * {@code "nodes"} (an array of NodeInfo) or null (a task alone: allocateFunc / deallocateFunc).
     */
    static TaskAndNodes readTaskRequest(byte[] body, String verb, String nodesKey) throws WireFormatException {
        return readTaskRequest(body, verb, nodesKey, true);
    }

    /**
     * @param fast when true and the node list is the last key after {@code task} (Go's field order), its names
     *             are taken by {@link NodeNameScan} without tokenising the NodeInfos; anything unusual falls
     *             back to the full Jackson parse ({@code fast} false), which also gives the exact error
     */
    static TaskAndNodes readTaskRequest(byte[] body, String verb, String nodesKey, boolean fast)
            throws WireFormatException {
        TaskAndNodes read = readTaskAndNodes(body, verb, nodesKey, fast);
        checkNodeNames(verb, nodesKey, read.nodes());
        return read;
    }

    /** Node names, by either path: each must be a DNS-1123 subdomain (Kubernetes' rule for Node names). */
    private static void checkNodeNames(String verb, String nodesKey, List<String> names) throws WireFormatException {
        for (int i = 0; i < names.size(); i++) {
            String path = "node".equals(nodesKey) ? "node.Name" : nodesKey + "[" + i + "].Name";
            PodJson.checkName(verb, path, names.get(i), ObjectNames.subdomainProblem(names.get(i)));
        }
    }

    private static TaskAndNodes readTaskAndNodes(byte[] body, String verb, String nodesKey, boolean fast)
            throws WireFormatException {
        JsonParser p = WireJson.openObject(body, verb);
        try (p) {
            ExtenderPod task = null;
            boolean sawTask = false;
            List<String> nodes = null;
            Set<String> keys = new HashSet<>();
            while (p.nextToken() == JsonToken.FIELD_NAME) {
                WireJson.unique(keys, p, verb, "request");
                String key = p.currentName();
                p.nextToken();
                if ("task".equals(key)) {
                    sawTask = true;
                    if (p.currentToken() != JsonToken.VALUE_NULL) {
                        task = readTask(p, verb, "task");
                    }
                } else if (fast && task != null && key.equals(nodesKey) && p.currentToken() != JsonToken.VALUE_NULL) {
                    long at = p.currentTokenLocation().getByteOffset();
                    List<String> names = at < 0 || at > Integer.MAX_VALUE ? null
                            : NodeNameScan.scanLastValue(body, (int) at, "nodes".equals(nodesKey));
                    if (names != null) {
                        return new TaskAndNodes(task, names);
                    }
                    p.close();
                    return readTaskAndNodes(body, verb, nodesKey, false);
                } else if (key.equals(nodesKey) && "node".equals(nodesKey)) {
                    if (p.currentToken() != JsonToken.VALUE_NULL) {
                        nodes = List.of(readNodeName(p, verb, "node"));
                    }
                } else if (key.equals(nodesKey)) {
                    nodes = readNodeNames(p, verb, nodesKey);
                } else {
                    WireJson.skip(p);
                }
            }
            WireJson.expectEnd(p, verb);
            if (task == null) {
                throw WireJson.missing(verb, sawTask ? "\"task\" is null" : "request has no \"task\"");
            }
            if (nodesKey != null && nodes == null) {
                throw WireJson.missing(verb, "request has no \"" + nodesKey + "\" (or it is null)");
            }
            return new TaskAndNodes(task, nodes == null ? List.of() : nodes);
        } catch (IOException e) {
            throw WireJson.translate(e, verb);
        }
    }

    /** Reads {@code {"job": JobInfo}}. */
    static GangJob readJobRequest(byte[] body, String verb) throws WireFormatException {
        JsonParser p = WireJson.openObject(body, verb);
        try (p) {
            GangJob job = null;
            boolean sawJob = false;
            Set<String> keys = new HashSet<>();
            while (p.nextToken() == JsonToken.FIELD_NAME) {
                WireJson.unique(keys, p, verb, "request");
                String key = p.currentName();
                p.nextToken();
                if ("job".equals(key)) {
                    sawJob = true;
                    if (p.currentToken() != JsonToken.VALUE_NULL) {
                        job = readJob(p, verb, "job");
                    }
                } else {
                    WireJson.skip(p);
                }
            }
            WireJson.expectEnd(p, verb);
            if (job == null) {
                throw WireJson.missing(verb, sawJob ? "\"job\" is null" : "request has no \"job\"");
            }
            return job;
        } catch (IOException e) {
            throw WireJson.translate(e, verb);
        }
    }

    /** Reads one TaskInfo object (the parser is on its START_OBJECT). */
    static ExtenderPod readTask(JsonParser p, String verb, String path) throws IOException, WireFormatException {
        WireJson.object(p, verb, path);
        String uid = null, job = null, name = null, namespace = null, role = null, nodeName = null;
        int status = 0;
        PodJson.Fields pod = null;
        Set<String> keys = new HashSet<>();
        while (p.nextToken() == JsonToken.FIELD_NAME) {
            WireJson.unique(keys, p, verb, path);
            String key = p.currentName();
            p.nextToken();
            switch (key) {
                case "UID" -> uid = WireJson.string(p, verb, path + ".UID");
                case "Job" -> job = WireJson.string(p, verb, path + ".Job");
                case "Name" -> name = WireJson.string(p, verb, path + ".Name");
                case "Namespace" -> namespace = WireJson.string(p, verb, path + ".Namespace");
                case "TaskRole" -> role = WireJson.string(p, verb, path + ".TaskRole");
                case "NodeName" -> nodeName = WireJson.string(p, verb, path + ".NodeName");
                case "Status" -> status = WireJson.integer(p, verb, path + ".Status", 0);
                case "Pod" -> {
                    if (p.currentToken() != JsonToken.VALUE_NULL) {
                        pod = PodJson.read(p, verb, path + ".Pod");
                    }
                }
                default -> WireJson.skip(p);
            }
        }
        if (pod == null) {
            throw WireJson.missing(verb, path + " has no Pod");
        }
        if (nodeName != null && !nodeName.isEmpty()) {
            PodJson.checkName(verb, path + ".NodeName", nodeName, ObjectNames.subdomainProblem(nodeName));
        }
        return pod.toExtenderPod(verb, path + ".Pod", namespace, name, uid,
                new VolcanoTask(job, role, status, nodeName));
    }

    /** Reads one NodeInfo object and returns its node name. */
    static String readNodeName(JsonParser p, String verb, String path) throws IOException, WireFormatException {
        WireJson.object(p, verb, path);
        String name = null;
        Set<String> keys = new HashSet<>();
        while (p.nextToken() == JsonToken.FIELD_NAME) {
            WireJson.unique(keys, p, verb, path);
            String key = p.currentName();
            JsonToken t = p.nextToken();
            if ("Name".equals(key)) {
                name = WireJson.string(p, verb, path + ".Name");
            } else if ("Node".equals(key) && (name == null || name.isEmpty()) && t == JsonToken.START_OBJECT) {
                String fromNode = WireJson.metadataName(p, verb, path + ".Node");
                if (name == null || name.isEmpty()) {
                    name = fromNode;
                }
            } else if (t == JsonToken.START_OBJECT || t == JsonToken.START_ARRAY) {
                p.skipChildren();
            }
        }
        if (name == null || name.isEmpty()) {
            throw WireJson.missing(verb, path + " has no Name (nor Node.metadata.name)");
        }
        return name;
    }

    private static List<String> readNodeNames(JsonParser p, String verb, String key)
            throws IOException, WireFormatException {
        if (p.currentToken() == JsonToken.VALUE_NULL) {
            return null;
        }
        if (p.currentToken() != JsonToken.START_ARRAY) {
            throw WireJson.wrongType(p, verb, key, "an array of NodeInfo");
        }
        List<String> names = new ArrayList<>();
        while (p.nextToken() != JsonToken.END_ARRAY) {
            names.add(readNodeName(p, verb, key + "[" + names.size() + "]"));
        }
        return names;
    }

    /** Reads one JobInfo object. */
    static GangJob readJob(JsonParser p, String verb, String path) throws IOException, WireFormatException {
        WireJson.object(p, verb, path);
        String uid = null, pgUid = null, name = null, namespace = null, queue = null;
        int minAvailable = 0;
        Map<String, Integer> taskMin = Map.of();
        List<ExtenderPod> tasks = List.of();
        Set<String> keys = new HashSet<>();
        while (p.nextToken() == JsonToken.FIELD_NAME) {
            WireJson.unique(keys, p, verb, path);
            String key = p.currentName();
            p.nextToken();
            switch (key) {
                case "UID" -> uid = WireJson.string(p, verb, path + ".UID");
                case "PgUID" -> pgUid = WireJson.string(p, verb, path + ".PgUID");
                case "Name" -> name = WireJson.string(p, verb, path + ".Name");
                case "Namespace" -> namespace = WireJson.string(p, verb, path + ".Namespace");
                case "Queue" -> queue = WireJson.string(p, verb, path + ".Queue");
                case "MinAvailable" -> minAvailable = WireJson.integer(p, verb, path + ".MinAvailable", 0);
                case "TaskMinAvailable" -> taskMin = readIntMap(p, verb, path + ".TaskMinAvailable");
                case "Tasks" -> tasks = readTasks(p, verb, path + ".Tasks");
                default -> WireJson.skip(p);
            }
        }
        String id = uid != null && !uid.isEmpty() ? uid
                : namespace != null && name != null && !namespace.isEmpty() && !name.isEmpty() ? namespace + "/" + name
                : null;
        if (id == null) {
            throw WireJson.missing(verb, path + " has no UID (nor Namespace and Name)");
        }
        if (minAvailable < 0) {
            throw new WireFormatException(WireFormatException.Kind.WRONG_TYPE,
                    verb + ": " + path + ".MinAvailable must be >= 0, got " + minAvailable);
        }
        return new GangJob(id, pgUid, namespace, name, queue, minAvailable, taskMin, tasks);
    }

    private static List<ExtenderPod> readTasks(JsonParser p, String verb, String path)
            throws IOException, WireFormatException {
        if (p.currentToken() == JsonToken.VALUE_NULL) {
            return List.of();
        }
        WireJson.object(p, verb, path);
        List<ExtenderPod> out = new ArrayList<>();
        Set<String> keys = new HashSet<>();
        while (p.nextToken() == JsonToken.FIELD_NAME) {
            WireJson.unique(keys, p, verb, path);
            String uid = p.currentName();
            p.nextToken();
            out.add(readTask(p, verb, path + "." + uid));
        }
        return out;
    }

    private static Map<String, Integer> readIntMap(JsonParser p, String verb, String path)
            throws IOException, WireFormatException {
        if (p.currentToken() == JsonToken.VALUE_NULL) {
            return Map.of();
        }
        WireJson.object(p, verb, path);
        Map<String, Integer> out = new LinkedHashMap<>();
        while (p.nextToken() == JsonToken.FIELD_NAME) {
            String k = p.currentName();
            if (out.containsKey(k)) {
                throw WireJson.duplicate(p, verb, path);
            }
            p.nextToken();
            out.put(k, WireJson.integer(p, verb, path + "." + k, 0));
        }
        return out;
    }
}
