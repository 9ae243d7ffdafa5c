package dev.railyard.scheduler.protocol;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import dev.railyard.scheduler.input.ObjectNames;
import dev.railyard.scheduler.input.Quantities;

import java.io.IOException;
import java.math.BigDecimal;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;

/**
 * Reads a core/v1 Pod (Kubernetes camelCase JSON, as both Volcano's {@code TaskInfo.Pod} and kube-scheduler's
 * {@code ExtenderArgs.Pod} embed it) and keeps only {@code metadata.{name,namespace,uid,labels,annotations}},
 * {@code spec.schedulerName}, container and init-container {@code resources.requests} with their
 * {@code restartPolicy}, and {@code spec.overhead}. Everything else, {@code managedFields} and {@code status}
 * included, is skipped without being built.
 *
 * <p>Refused with a {@link WireFormatException}: a key given twice in any object read here, a quantity that is
 * not one or lies outside {@link Quantities}' bounds, more than {@link Quantities#MAX_DEVICES} GPUs or devices of
 * one HCA resource in the pod's effective requests, and a pod name or namespace Kubernetes would not admit
 * ({@link ObjectNames}).
 */
public final class PodJson {

    /**
     * What a pod contributes to an {@link ExtenderPod}.
     *
     * @param namespace     {@code metadata.namespace}, null when absent
     * @param name          {@code metadata.name}, null when absent
     * @param uid           {@code metadata.uid}, null when absent
     * @param labels        {@code metadata.labels}
     * @param annotations   {@code metadata.annotations}
     * @param schedulerName {@code spec.schedulerName}, null when absent
     * @param requests      effective requests (see {@link ResourceRequests})
     */
    public record Fields(String namespace, String name, String uid, Map<String, String> labels,
                         Map<String, String> annotations, String schedulerName, ResourceRequests requests) {

        /**
         * Builds the pod, falling back to the given identity for whatever the Pod's metadata lacks.
         *
         * @throws WireFormatException when neither the Pod nor the fallback names the pod's namespace and name, or
         *                             when the name is not a DNS-1123 subdomain or the namespace not a DNS-1123 label
         */
        public ExtenderPod toExtenderPod(String verb, String path, String fallbackNamespace, String fallbackName,
                                         String fallbackUid, VolcanoTask task) throws WireFormatException {
            String ns = firstNonBlank(namespace, fallbackNamespace);
            String n = firstNonBlank(name, fallbackName);
            if (ns == null || n == null) {
                throw WireJson.missing(verb, path + " has no metadata.namespace and metadata.name");
            }
            checkName(verb, path + ".metadata.namespace", ns, ObjectNames.labelProblem(ns));
            checkName(verb, path + ".metadata.name", n, ObjectNames.subdomainProblem(n));
            String u = firstNonBlank(uid, fallbackUid);
            return new ExtenderPod(new PodRef(ns, n, u), labels, annotations, schedulerName, requests,
                    GangRef.of(ns, labels, annotations), task);
        }
    }

    private PodJson() {
    }

    /**
     * @throws WireFormatException ({@code INVALID_NAME}) naming the key path and the name when {@code problem}
     *                             holds one
     */
    public static void checkName(String verb, String path, String name, Optional<String> problem)
            throws WireFormatException {
        if (problem.isPresent()) {
            throw new WireFormatException(WireFormatException.Kind.INVALID_NAME, verb + ": " + path + " "
                    + ObjectNames.quote(name) + " " + problem.get());
        }
    }

    /**
     * Reads the Pod object the parser is on (its START_OBJECT); leaves the parser on its END_OBJECT.
     *
     * @param verb for error messages, e.g. {@code "volcano predicate"}
     * @param path key path of the Pod in the request, e.g. {@code "task.Pod"}
     * @throws WireFormatException on wrong types or a quantity that is not a Kubernetes quantity
     */
    public static Fields read(JsonParser p, String verb, String path) throws IOException, WireFormatException {
        WireJson.object(p, verb, path);
        Read r = new Read();
        WireJson.fields(p, verb, path, key -> {
            switch (key) {
                case "metadata" -> WireJson.fields(p, verb, path + ".metadata", k -> r.metadata(p, verb, path, k));
                case "spec" -> WireJson.fields(p, verb, path + ".spec", k -> r.spec(p, verb, path, k));
                default -> WireJson.skip(p);
            }
        });
        return new Fields(r.namespace, r.name, r.uid, r.labels, r.annotations, r.schedulerName,
                r.requests.effective(verb, path));
    }

    /** What {@link #read} has found so far. */
    private static final class Read {
        String namespace, name, uid, schedulerName;
        Map<String, String> labels = Map.of(), annotations = Map.of();
        final Requests requests = new Requests();

        void metadata(JsonParser p, String verb, String path, String key) throws IOException, WireFormatException {
            switch (key) {
                case "name" -> name = WireJson.string(p, verb, path + ".metadata.name");
                case "namespace" -> namespace = WireJson.string(p, verb, path + ".metadata.namespace");
                case "uid" -> uid = WireJson.string(p, verb, path + ".metadata.uid");
                case "labels" -> labels = WireJson.stringMap(p, verb, path + ".metadata.labels");
                case "annotations" -> annotations = WireJson.stringMap(p, verb, path + ".metadata.annotations");
                default -> WireJson.skip(p);
            }
        }

        void spec(JsonParser p, String verb, String path, String key) throws IOException, WireFormatException {
            switch (key) {
                case "schedulerName" -> schedulerName = WireJson.string(p, verb, path + ".spec.schedulerName");
                case "containers" -> readContainers(p, verb, path + ".spec.containers", requests, false);
                case "initContainers" -> readContainers(p, verb, path + ".spec.initContainers", requests, true);
                case "overhead" -> requests.overhead = quantities(p, verb, path + ".spec.overhead");
                default -> WireJson.skip(p);
            }
        }
    }

    private static void readContainers(JsonParser p, String verb, String path, Requests requests, boolean init)
            throws IOException, WireFormatException {
        if (p.currentToken() == JsonToken.VALUE_NULL) {
            return;
        }
        if (p.currentToken() != JsonToken.START_ARRAY) {
            throw WireJson.wrongType(p, verb, path, "an array");
        }
        int i = 0;
        while (p.nextToken() != JsonToken.END_ARRAY) {
            String cpath = path + "[" + i++ + "]";
            WireJson.object(p, verb, cpath);
            Container c = new Container();
            WireJson.fields(p, verb, cpath, key -> {
                switch (key) {
                    case "resources" -> WireJson.fields(p, verb, cpath + ".resources", rk -> {
                        if ("requests".equals(rk)) {
                            c.requests = quantities(p, verb, cpath + ".resources.requests");
                        } else {
                            WireJson.skip(p);
                        }
                    });
                    case "restartPolicy" ->
                            c.restartable = "Always".equals(WireJson.string(p, verb, cpath + ".restartPolicy"));
                    default -> WireJson.skip(p);
                }
            });
            if (!init) {
                Requests.add(requests.containers, c.requests);
            } else {
                requests.initContainer(c.requests, c.restartable);
            }
        }
    }

    /** One container's requests and whether it restarts (a sidecar when it is an init container). */
    private static final class Container {
        Map<String, BigDecimal> requests = Map.of();
        boolean restartable;
    }

    private static Map<String, BigDecimal> quantities(JsonParser p, String verb, String path)
            throws IOException, WireFormatException {
        Map<String, String> raw = WireJson.stringMap(p, verb, path);
        Map<String, BigDecimal> out = new HashMap<>(raw.size() * 2);
        for (var e : raw.entrySet()) {
            out.put(e.getKey(), parseQuantity(e.getValue(), verb, path + "." + e.getKey()));
        }
        return out;
    }

    /**
     * Parses a Kubernetes quantity ({@code "500m"}, {@code "960Gi"}, {@code "8"}) into its base-unit amount, with
     * {@link Quantities}' bounds (checked on the text, before any arithmetic).
     *
     * @throws WireFormatException ({@code WRONG_TYPE} for text that is not a quantity, {@code OUT_OF_RANGE} for a
     *                             negative one or one outside the bounds) naming {@code path}
     */
    public static BigDecimal parseQuantity(String text, String verb, String path) throws WireFormatException {
        try {
            return Quantities.parse(text);
        } catch (Quantities.QuantityException e) {
            boolean grammar = e.getMessage().endsWith("is not a Kubernetes quantity")
                    || e.getMessage().equals("empty quantity");
            throw new WireFormatException(grammar ? WireFormatException.Kind.WRONG_TYPE
                    : WireFormatException.Kind.OUT_OF_RANGE, verb + ": " + path + ": " + e.getMessage());
        }
    }

    private static String firstNonBlank(String a, String b) {
        if (a != null && !a.isBlank()) {
            return a;
        }
        return b != null && !b.isBlank() ? b : null;
    }

    /** Kubernetes' effective-request arithmetic (k8s.io/component-helpers resource.PodRequests). */
    private static final class Requests {
        final Map<String, BigDecimal> containers = new HashMap<>();
        final Map<String, BigDecimal> restartableInit = new HashMap<>();
        final Map<String, BigDecimal> initMax = new HashMap<>();
        Map<String, BigDecimal> overhead = Map.of();

        static void add(Map<String, BigDecimal> into, Map<String, BigDecimal> req) {
            req.forEach((k, v) -> into.merge(k, v, BigDecimal::add));
        }

        static void max(Map<String, BigDecimal> into, Map<String, BigDecimal> req) {
            req.forEach((k, v) -> into.merge(k, v, BigDecimal::max));
        }

        void initContainer(Map<String, BigDecimal> req, boolean restartable) {
            if (restartable) {
                // a sidecar runs alongside the app containers and every later init container
                add(containers, req);
                add(restartableInit, req);
                max(initMax, restartableInit);
            } else {
                Map<String, BigDecimal> during = new HashMap<>(restartableInit);
                add(during, req);
                max(initMax, during);
            }
        }

        ResourceRequests effective(String verb, String path) throws WireFormatException {
            if (containers.isEmpty() && initMax.isEmpty() && overhead.isEmpty()) {
                return ResourceRequests.NONE;
            }
            Map<String, BigDecimal> out = new HashMap<>(containers);
            max(out, initMax);
            add(out, overhead);
            for (var e : out.entrySet()) {
                if (ResourceRequests.countable(e.getKey())) {
                    try {
                        Quantities.devices(e.getValue());
                    } catch (Quantities.QuantityException q) {
                        throw new WireFormatException(WireFormatException.Kind.OUT_OF_RANGE, verb + ": " + path
                                + " requests " + e.getKey() + ": " + q.getMessage());
                    }
                }
            }
            return new ResourceRequests(out);
        }
    }
}
