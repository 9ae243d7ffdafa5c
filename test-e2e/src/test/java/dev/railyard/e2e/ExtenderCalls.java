package dev.railyard.e2e;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Supplier;

/**
 * A scheduler's side of Railyard's verbs, for the reservation races: kube-scheduler's {@code filter} (node names,
 * as with {@code nodeCacheCapable: true}) and {@code bind}, Volcano's {@code allocateFunc}, {@code deallocateFunc}
 * and {@code predicate}, with the request bodies those schedulers send (docs/formats/kube-extender.md,
 * docs/formats/volcano-extender.md; the pod is the API server's object, serialized as the schedulers do). Each call
 * goes to the URL {@code target} names at the time of the call (a replica that leads now), times out after 10 s,
 * and records the slowest answer seen. A call that fails (connection refused while Railyard restarts, a standby's
 * 503) counts as "no": the scheduler would not bind. Thread-safe.
 */
final class ExtenderCalls {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final KubernetesSerialization PODS = new KubernetesSerialization();

    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2))
            .executor(java.util.concurrent.Executors.newVirtualThreadPerTaskExecutor()).build();
    private final Supplier<URI> target;
    private final Supplier<String> explainToken;
    private final AtomicLong slowestNanos = new AtomicLong();

    /**
     * @param target Railyard's base URL at the time of each call ({@code http://127.0.0.1:<port>})
     * @param client the API server's admin client: mints the {@code /explain} bearer token ({@link ExplainReader})
     *               at the first explain call
     */
    ExtenderCalls(Supplier<URI> target, io.fabric8.kubernetes.client.KubernetesClient client) {
        this.target = target;
        this.explainToken = memoize(() -> ExplainReader.token(client));
    }

    private static Supplier<String> memoize(Supplier<String> s) {
        var box = new java.util.concurrent.atomic.AtomicReference<String>();
        return () -> box.updateAndGet(v -> v != null ? v : s.get());
    }

    /** A reply: HTTP status (0: no answer) and body. */
    record Reply(int status, String body, long nanos) {
        boolean ok() {
            return status == 200;
        }
    }

    /** @return the slowest answer since the last reset, in milliseconds */
    long slowestMillis() {
        return slowestNanos.get() / 1_000_000;
    }

    void resetSlowest() {
        slowestNanos.set(0);
    }

    Reply post(String path, String body) {
        return post(path, body, null);
    }

    /** POST with {@code Authorization: Bearer <token>} when {@code token} is not null. */
    private Reply post(String path, String body, String token) {
        long start = System.nanoTime();
        try {
            HttpRequest.Builder b = HttpRequest.newBuilder(target.get().resolve(path));
            if (token != null) {
                b.header("Authorization", "Bearer " + token);
            }
            HttpResponse<String> r = http.send(b
                    .timeout(Duration.ofSeconds(10)).header("Content-Type", "application/json")
                    .POST(HttpRequest.BodyPublishers.ofString(body)).build(), HttpResponse.BodyHandlers.ofString());
            return record(new Reply(r.statusCode(), r.body(), System.nanoTime() - start));
        } catch (IOException e) {
            return record(new Reply(0, String.valueOf(e.getMessage()), System.nanoTime() - start));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return new Reply(0, "interrupted", System.nanoTime() - start);
        }
    }

    private Reply record(Reply r) {
        if (r.status() != 0) {
            slowestNanos.accumulateAndGet(r.nanos(), Math::max);
        }
        return r;
    }

    private static JsonNode readTree(String text) {
        try {
            return JSON.readTree(text);
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
    }

    /**
     * kube filter over {@code nodes} (ExtenderArgs with {@code NodeNames}).
     *
     * @return the nodes that pass; empty when none passes or the call failed
     */
    List<String> filter(Pod pod, List<String> nodes) {
        ObjectNode args = JSON.createObjectNode();
        args.set("Pod", readTree(PODS.asJson(pod)));
        args.putNull("Nodes");
        args.set("NodeNames", JSON.valueToTree(nodes));
        Reply r = post("/kube/filter", args.toString());
        List<String> out = new ArrayList<>();
        if (r.ok()) {
            JsonNode names = readTree(r.body()).path("NodeNames");
            names.forEach(n -> out.add(n.asText()));
        }
        return out;
    }

    /** @return the whole filter reply, for reasons */
    Reply filterReply(Pod pod, List<String> nodes) {
        ObjectNode args = JSON.createObjectNode();
        args.set("Pod", readTree(PODS.asJson(pod)));
        args.putNull("Nodes");
        args.set("NodeNames", JSON.valueToTree(nodes));
        return post("/kube/filter", args.toString());
    }

    /**
     * kube bind (ExtenderBindingArgs).
     *
     * @return true when Railyard answered with an empty {@code Error}: it created the Binding
     */
    boolean bind(Pod pod, String node) {
        return bindReply(pod, node).ok() && bindError(bindLast.get()).isEmpty();
    }

    private final ThreadLocal<Reply> bindLast = new ThreadLocal<>();

    Reply bindReply(Pod pod, String node) {
        ObjectNode args = JSON.createObjectNode();
        args.put("PodName", pod.getMetadata().getName());
        args.put("PodNamespace", pod.getMetadata().getNamespace());
        args.put("PodUID", pod.getMetadata().getUid());
        args.put("Node", node);
        Reply r = post("/kube/bind", args.toString());
        bindLast.set(r);
        return r;
    }

    /** @return the {@code Error} of a bind reply, or the transport failure */
    static String bindError(Reply r) {
        if (!r.ok()) {
            return "HTTP " + r.status() + ": " + r.body();
        }
        return readTree(r.body()).path("Error").asText("");
    }

    /**
     * {@code POST /explain {"command":"pools"}} with {@link ExplainReader}'s bearer token (Railyard checks it with a
     * TokenReview and a SubjectAccessReview).
     *
     * @return the line of IPPool {@code pool} (its {@code inFlight}, {@code free}, {@code holds}, ...), or null when
     *         Railyard does not show it (yet)
     */
    JsonNode poolLine(String pool) {
        Reply r = post("/explain", "{\"command\":\"pools\"}", explainToken.get());
        if (!r.ok()) {
            return null;
        }
        for (JsonNode line : readTree(r.body()).path("pools")) {
            if (pool.equals(line.path("pool").asText())) {
                return line;
            }
        }
        return null;
    }

    /** @return true when Railyard's cache has the pod ({@code /explain} of it answers 200) */
    boolean knows(Pod pod) {
        return post("/explain", "{\"command\":\"pod\",\"namespace\":\"" + pod.getMetadata().getNamespace()
                + "\",\"name\":\"" + pod.getMetadata().getName() + "\"}", explainToken.get()).ok();
    }

    /** The Volcano task of an allocation event for {@code pod} on {@code node} (TaskInfo, v1.14.1 keys). */
    private static String task(Pod pod, String node) {
        ObjectNode task = JSON.createObjectNode();
        task.put("UID", pod.getMetadata().getUid());
        task.put("Job", pod.getMetadata().getNamespace() + "/" + pod.getMetadata().getName());
        task.put("Name", pod.getMetadata().getName());
        task.put("Namespace", pod.getMetadata().getNamespace());
        task.put("NodeName", node);
        task.put("Status", 2);
        task.set("Pod", readTree(PODS.asJson(pod)));
        ObjectNode body = JSON.createObjectNode();
        body.set("task", task);
        return body.toString();
    }

    /** @return the {@code errorMessage} of allocateFunc: empty when accepted; the transport failure otherwise */
    String allocate(Pod pod, String node) {
        Reply r = post("/volcano/allocateFunc", task(pod, node));
        if (!r.ok()) {
            return "HTTP " + r.status() + ": " + r.body();
        }
        return readTree(r.body()).path("errorMessage").asText("");
    }

    /** Volcano deallocateFunc. */
    Reply deallocate(Pod pod, String node) {
        return post("/volcano/deallocateFunc", task(pod, node));
    }

    /**
     * Volcano predicate: takes no hold, so it probes what Railyard's state sees.
     *
     * @return the reply's {@code status} reason (v1.10 dialect): empty when the node passes
     */
    String predicate(Pod pod, String node) {
        ObjectNode body = (ObjectNode) readTree(task(pod, node));
        ObjectNode nodeInfo = JSON.createObjectNode();
        nodeInfo.put("Name", node);
        nodeInfo.set("Node", JSON.createObjectNode().set("metadata", JSON.createObjectNode().put("name", node)));
        body.set("node", nodeInfo);
        Reply r = post("/volcano/predicate", body.toString());
        if (!r.ok()) {
            return "HTTP " + r.status() + ": " + r.body();
        }
        return readTree(r.body()).path("status").asText("");
    }
}
