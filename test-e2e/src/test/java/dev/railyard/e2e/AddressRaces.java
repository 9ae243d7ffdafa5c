package dev.railyard.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.BindingBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The schedulers' pacings of issue 15's race, driven against Railyard's verbs ({@link ExtenderCalls}), with a
 * scheduler's reading of each answer: a pod passes kube {@code filter} on some node, then kube-scheduler binds it
 * through Railyard's {@code bind}; a failed or refused call binds nothing (as with {@code ignorable: false}; with
 * Railyard unreachable and {@code ignorable: true} kube-scheduler would bind without it, which no extender can
 * prevent). Volcano's {@code allocateFunc} accepted means vc-scheduler will bind the pod itself: the race binds those
 * pods through the API server as vc-scheduler does ({@link #bindAsVolcano}).
 */
final class AddressRaces {
    static final List<String> NODES = List.of("gpu-node-1", "gpu-node-2", "gpu-node-3");

    private final ExtenderCalls calls;
    private final KubernetesClient client;
    /** Pods that passed filter and whose bind was refused or failed: kube-scheduler puts them back in its queue. */
    private final java.util.Queue<Pod> refusedAfterFilter = new java.util.concurrent.ConcurrentLinkedQueue<>();

    AddressRaces(ExtenderCalls calls, KubernetesClient client) {
        this.calls = calls;
        this.client = client;
    }

    private static String node(int i) {
        return NODES.get(i % NODES.size());
    }

    /** Every pod at once: filter, then bind on the first node that passed (200 callers racing). */
    int concurrentFilterBind(List<Pod> pods) throws InterruptedException {
        AtomicInteger bound = new AtomicInteger();
        CountDownLatch go = new CountDownLatch(1);
        try (ExecutorService callers = Executors.newVirtualThreadPerTaskExecutor()) {
            for (Pod p : pods) {
                callers.submit(() -> {
                    go.await();
                    List<String> ok = calls.filter(p, NODES);
                    if (!ok.isEmpty()) {
                        bindOrRequeue(p, ok.get(0), bound);
                    }
                    return null;
                });
            }
            go.countDown();
        }
        return bound.get();
    }

    /**
     * kube-scheduler's pacing: one filter at a time, each pod that passes bound asynchronously by up to 16 binds at
     * once (kube-scheduler's binding goroutines), the next filter not waiting for them.
     *
     * @param midway run after the filter of pod {@code at} (a crash, a failover, the API server stopping); null for
     *               none
     */
    int pacing(List<Pod> pods, int at, ThrowingRunnable midway) throws Exception {
        AtomicInteger bound = new AtomicInteger();
        ExecutorService binds = Executors.newFixedThreadPool(16);
        try {
            for (int i = 0; i < pods.size(); i++) {
                Pod p = pods.get(i);
                List<String> ok = calls.filter(p, NODES);
                if (!ok.isEmpty()) {
                    String n = ok.get(i % ok.size());
                    binds.submit(() -> bindOrRequeue(p, n, bound));
                }
                if (i == at && midway != null) {
                    midway.run();
                }
            }
        } finally {
            binds.shutdown();
            assertThat(binds.awaitTermination(120, TimeUnit.SECONDS)).isTrue();
        }
        return bound.get();
    }

    /** One pod after the other: filter, bind, next. */
    int serial(List<Pod> pods) {
        AtomicInteger bound = new AtomicInteger();
        for (Pod p : pods) {
            List<String> ok = calls.filter(p, NODES);
            if (!ok.isEmpty()) {
                bindOrRequeue(p, ok.get(0), bound);
            }
        }
        return bound.get();
    }

    private void bindOrRequeue(Pod p, String node, AtomicInteger bound) {
        if (calls.bind(p, node)) {
            bound.incrementAndGet();
        } else {
            refusedAfterFilter.add(p);
        }
    }

    /**
     * kube-scheduler's retry of the pods whose bind was refused after their filter passed (a deadline fallback, a
     * Binding that failed): up to three passes, each pod not bound by then (asked of the API server) filtered and
     * bound again, one after the other.
     *
     * @return binds answered OK
     */
    int retryRefused() {
        AtomicInteger bound = new AtomicInteger();
        for (int pass = 0; pass < 3 && !refusedAfterFilter.isEmpty(); pass++) {
            List<Pod> again = new ArrayList<>();
            for (Pod p; (p = refusedAfterFilter.poll()) != null; ) {
                again.add(p);
            }
            for (Pod p : again) {
                Pod now = client.pods().inNamespace(p.getMetadata().getNamespace()).withName(p.getMetadata().getName())
                        .get();
                if (now == null || now.getSpec().getNodeName() != null) {
                    continue;
                }
                List<String> ok = calls.filter(now, NODES);
                if (!ok.isEmpty()) {
                    bindOrRequeue(now, ok.get(0), bound);
                }
            }
        }
        refusedAfterFilter.clear();
        return bound.get();
    }

    /**
     * Volcano's allocateFunc for every pod at once (vc-scheduler's session allocating many jobs).
     *
     * @return the pods accepted, each with the node it was allocated to
     */
    List<Allocated> allocateConcurrently(List<Pod> pods) throws InterruptedException {
        List<Allocated> accepted = Collections.synchronizedList(new ArrayList<>());
        CountDownLatch go = new CountDownLatch(1);
        try (ExecutorService callers = Executors.newVirtualThreadPerTaskExecutor()) {
            for (int i = 0; i < pods.size(); i++) {
                Pod p = pods.get(i);
                String n = node(i);
                callers.submit(() -> {
                    go.await();
                    if (calls.allocate(p, n).isEmpty()) {
                        accepted.add(new Allocated(p, n));
                    }
                    return null;
                });
            }
            go.countDown();
        }
        return accepted;
    }

    /**
     * vc-scheduler's sessions (one a second): pods whose allocation was vetoed are tried again in the next session.
     * Up to four sessions, ending early when no veto of the last one was a hold Railyard could not write on the pod
     * in time (the only veto that a later session can turn; a full pool stays full within the round).
     *
     * @return the pods accepted over all sessions
     */
    List<Allocated> allocateInSessions(List<Pod> pods) throws InterruptedException {
        List<Allocated> accepted = new ArrayList<>();
        List<Pod> left = new ArrayList<>(pods);
        for (int session = 0; session < 4 && !left.isEmpty(); session++) {
            java.util.Map<Pod, String> vetoes = new java.util.concurrent.ConcurrentHashMap<>();
            List<Allocated> now = Collections.synchronizedList(new ArrayList<>());
            CountDownLatch go = new CountDownLatch(1);
            try (ExecutorService callers = Executors.newVirtualThreadPerTaskExecutor()) {
                for (int i = 0; i < left.size(); i++) {
                    Pod p = left.get(i);
                    String n = node(i);
                    callers.submit(() -> {
                        go.await();
                        String veto = calls.allocate(p, n);
                        if (veto.isEmpty()) {
                            now.add(new Allocated(p, n));
                        } else {
                            vetoes.put(p, veto);
                        }
                        return null;
                    });
                }
                go.countDown();
            }
            accepted.addAll(now);
            left.removeIf(p -> now.stream().anyMatch(a -> a.pod() == p));
            if (vetoes.values().stream().noneMatch(v -> v.contains("could not record"))) {
                break;
            }
        }
        return accepted;
    }

    /** A pod Volcano allocated to a node. */
    record Allocated(Pod pod, String node) {
    }

    /**
     * What vc-scheduler does with the session's accepted allocations: binds each pod with a Binding through the
     * API server (Volcano's default binder posts {@code pods/binding}).
     *
     * @return how many Bindings the API server created
     */
    int bindAsVolcano(List<Allocated> accepted) {
        int n = 0;
        for (Allocated a : accepted) {
            try {
                client.bindings().inNamespace(a.pod().getMetadata().getNamespace()).resource(new BindingBuilder()
                        .withNewMetadata().withName(a.pod().getMetadata().getName())
                        .withNamespace(a.pod().getMetadata().getNamespace()).withUid(a.pod().getMetadata().getUid())
                        .endMetadata().withNewTarget().withKind("Node").withApiVersion("v1").withName(a.node())
                        .endTarget().build()).create();
                n++;
            } catch (io.fabric8.kubernetes.client.KubernetesClientException e) {
                // already bound by another path, or gone: not counted
                System.out.println("[race] Volcano bind of " + a.pod().getMetadata().getName() + " refused by the "
                        + "API server: " + e.getCode() + " " + e.getStatus().getMessage());
            }
        }
        return n;
    }

    /**
     * Waits until Railyard's state shows the round's pool with its 4 allocations and {@code free} free addresses,
     * and has the last of the round's pods (so a bind finds it in the cache at once).
     */
    void awaitRound(AddressRound round, Pod last, int free) {
        refusedAfterFilter.clear(); // a new round: the last one's queue is gone with its pods
        await().atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(100)).until(() -> {
            var line = calls.poolLine(round.pool);
            return line != null && line.path("allocated").asLong() == 4 && line.path("free").asLong() == free
                    && calls.knows(last);
        });
    }

    /** A step that may throw. */
    @FunctionalInterface
    interface ThrowingRunnable {
        void run() throws Exception;
    }
}
