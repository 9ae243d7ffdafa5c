package dev.railyard.scheduler.server;

import dev.railyard.scheduler.engine.NodeVerdict;
import dev.railyard.scheduler.protocol.ExtenderPod;
import dev.railyard.scheduler.protocol.NeutralPlacementDecisions;
import dev.railyard.scheduler.protocol.RecordingDecisions;
import dev.railyard.scheduler.protocol.VerbHandler;
import dev.railyard.scheduler.protocol.WireReply;
import dev.railyard.scheduler.protocol.WireResources;
import dev.railyard.scheduler.protocol.kube.Binder;
import dev.railyard.scheduler.protocol.kube.KubeExtender;
import dev.railyard.scheduler.protocol.volcano.VolcanoExtender;
import dev.railyard.scheduler.protocol.volcano.VolcanoSettings;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Where each answer is made (docs/adr/0017-netty-transport.md, "Verbs on the event loop"): a verb declared
 * {@link VerbHandler.Threading#IO_THREAD} on the connection's event loop (a platform thread named
 * {@code railyard-http-*}), any other verb and an inline verb's large body on a virtual thread; a blocked verb never
 * holds the loop its connection shares with others.
 */
class VerbThreadingTest {
    private final Map<String, Thread> ran = new ConcurrentHashMap<>();
    private final CountDownLatch release = new CountDownLatch(1);
    private ExtenderServer server;

    @AfterEach
    void stop() {
        release.countDown();
        if (server != null) {
            server.close();
        }
        System.clearProperty(ExtenderServer.EVENT_LOOPS_PROPERTY);
    }

    private VerbHandler recording(String name) {
        return body -> {
            ran.put(name, Thread.currentThread());
            return WireReply.text(200, name + " " + body.length);
        };
    }

    /** One event loop, so that a verb holding it would stall every other connection. */
    private void start() throws Exception {
        System.setProperty(ExtenderServer.EVENT_LOOPS_PROPERTY, "1");
        PrometheusMeterRegistry registry = TestServers.registry();
        Map<String, VerbHandler> routes = new LinkedHashMap<>();
        routes.put("/t/inline", VerbHandler.onIoThread(recording("inline")));
        routes.put("/t/blocking", recording("blocking"));
        routes.put("/t/stuck", body -> {
            ran.put("stuck", Thread.currentThread());
            try {
                release.await(20, TimeUnit.SECONDS); // as a bind waiting on the API server
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            return WireReply.text(200, "unstuck");
        });
        RecordingDecisions neutral = new RecordingDecisions() {
            @Override
            public List<NodeVerdict> filter(ExtenderPod pod, List<String> nodeNames) {
                ran.put("predicate", Thread.currentThread());
                return super.filter(pod, nodeNames);
            }
        };
        routes.putAll(ExtenderServer.mount(VolcanoExtender.PREFIX,
                new VolcanoExtender(neutral, VolcanoSettings.DEFAULTS, registry).verbs()));
        server = ExtenderServer.start(new ServerSettings(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0),
                8 << 20, null), routes, ReadinessProbe.always(), registry);
    }

    private Socket connect() throws Exception {
        Socket s = new Socket(InetAddress.getLoopbackAddress(), server.port());
        s.setSoTimeout(10_000);
        return s;
    }

    private static void assertEventLoop(Thread t) {
        assertThat(t.isVirtual()).isFalse();
        assertThat(t.getName()).startsWith("railyard-http");
    }

    @Test
    void aNonBlockingVerbAnswersOnTheEventLoopAndABlockingOneOnAVirtualThread() throws Exception {
        start();
        try (Socket s = connect()) {
            byte[] small = "{}".getBytes(StandardCharsets.US_ASCII);
            assertThat(TestServers.exchange(s, "POST", "/t/inline", small, small.length).body().strip())
                    .isEqualTo("inline 2");
            assertThat(TestServers.exchange(s, "POST", "/t/blocking", small, small.length).body().strip())
                    .isEqualTo("blocking 2");
            byte[] predicate = WireResources.load("volcano/predicate-v1.15.json");
            assertThat(TestServers.exchange(s, "POST", "/volcano/predicate", predicate, predicate.length).status())
                    .isEqualTo(200);
        }
        assertEventLoop(ran.get("inline"));
        assertThat(ran.get("blocking").isVirtual()).isTrue();
        assertEventLoop(ran.get("predicate")); // the real adapter's predicate, through PlacementDecisions.filter
    }

    @Test
    void aBodyOverTheInlineLimitIsAnsweredOffTheLoop() throws Exception {
        start();
        byte[] big = new byte[Listener.MAX_INLINE_BODY + 1];
        try (Socket s = connect()) {
            assertThat(TestServers.exchange(s, "POST", "/t/inline", big, big.length).body().strip())
                    .isEqualTo("inline " + big.length);
            assertThat(ran.get("inline").isVirtual()).isTrue();
            byte[] limit = new byte[Listener.MAX_INLINE_BODY];
            assertThat(TestServers.exchange(s, "POST", "/t/inline", limit, limit.length).body().strip())
                    .isEqualTo("inline " + limit.length);
            assertEventLoop(ran.get("inline"));
        }
    }

    @Test
    void aBodyOfManyStringsIsAnsweredOffTheLoop() throws Exception {
        start();
        // 1 MiB of ["a","a",...]: a kube filter of 262,000 node names held the loop for 110-640 ms while the inline
        // bound counted bytes only (docs/adr/0017-netty-transport.md, "Large bodies")
        byte[] many = "\"".repeat(Listener.MAX_INLINE_QUOTES + 1).getBytes(StandardCharsets.US_ASCII);
        byte[] limit = java.util.Arrays.copyOf(many, Listener.MAX_INLINE_QUOTES);
        try (Socket s = connect()) {
            assertThat(TestServers.exchange(s, "POST", "/t/inline", many, many.length).body().strip())
                    .isEqualTo("inline " + many.length);
            assertThat(ran.get("inline").isVirtual()).isTrue();
            assertThat(TestServers.exchange(s, "POST", "/t/inline", limit, limit.length).body().strip())
                    .isEqualTo("inline " + limit.length);
            assertEventLoop(ran.get("inline"));
        }
    }

    @Test
    void aStuckBlockingVerbLeavesTheOnlyLoopServingOtherConnections() throws Exception {
        start();
        try (Socket stuck = connect(); Socket other = connect()) {
            OutputStream out = stuck.getOutputStream();
            out.write("POST /t/stuck HTTP/1.1\r\nHost: x\r\nContent-Length: 0\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
            out.flush();
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            while (!ran.containsKey("stuck") && System.nanoTime() < deadline) {
                Thread.sleep(5);
            }
            assertThat(ran.get("stuck").isVirtual()).isTrue();
            byte[] small = "{}".getBytes(StandardCharsets.US_ASCII);
            for (int i = 0; i < 20; i++) { // while the stuck verb waits, the one loop keeps answering
                assertThat(TestServers.exchange(other, "POST", "/t/inline", small, small.length).body().strip())
                        .isEqualTo("inline 2");
                assertThat(TestServers.exchange(other, "GET", "/healthz", null, 0).body().strip()).isEqualTo("ok");
            }
            release.countDown();
            assertThat(TestServers.read(stuck.getInputStream()).body().strip()).isEqualTo("unstuck");
        }
    }

    @Test
    void pipelinedInlineRequestsAreAnsweredInOrder() throws Exception {
        start();
        try (Socket s = connect()) {
            StringBuilder b = new StringBuilder();
            for (int i = 1; i <= 3; i++) {
                b.append("POST /t/inline HTTP/1.1\r\nHost: x\r\nContent-Length: ").append(i).append("\r\n\r\n")
                        .append("x".repeat(i));
            }
            s.getOutputStream().write(b.toString().getBytes(StandardCharsets.US_ASCII));
            s.getOutputStream().flush();
            for (int i = 1; i <= 3; i++) {
                assertThat(TestServers.read(s.getInputStream()).body().strip()).isEqualTo("inline " + i);
            }
        }
    }

    @Test
    void theAdaptersDeclareWhichVerbsAnswerOnTheIoThread() {
        PrometheusMeterRegistry registry = TestServers.registry();
        NeutralPlacementDecisions neutral = new NeutralPlacementDecisions(50, "test");
        Map<String, VerbHandler> volcano = new VolcanoExtender(neutral, VolcanoSettings.DEFAULTS, registry).verbs();
        Map<String, VerbHandler> kube = new KubeExtender(neutral, Binder.unwired(), 50, registry).verbs();
        // never block: parse, judge from memory, write (PlacementDecisions' contract); or a constant
        for (String v : List.of("predicate", "prioritize", "onSessionOpen", "onSessionClose", "jobEnqueued",
                "preemptable", "reclaimable", "queueOverused")) {
            assertThat(volcano.get(v).threading()).as(v).isEqualTo(VerbHandler.Threading.IO_THREAD);
        }
        // allocate/deallocate write holds through the API server; jobEnqueueable plans a whole gang
        for (String v : List.of("allocateFunc", "deallocateFunc", "jobEnqueueable", "jobReady")) {
            assertThat(volcano.get(v).threading()).as(v).isEqualTo(VerbHandler.Threading.OWN_THREAD);
        }
        assertThat(kube.get("filter").threading()).isEqualTo(VerbHandler.Threading.IO_THREAD);
        assertThat(kube.get("prioritize").threading()).isEqualTo(VerbHandler.Threading.IO_THREAD);
        assertThat(kube.get("bind").threading()).isEqualTo(VerbHandler.Threading.OWN_THREAD); // creates a Binding
    }
}
