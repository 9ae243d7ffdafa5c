package dev.railyard.scheduler.server;

import dev.railyard.scheduler.server.HostileCorpus.Entry;
import dev.railyard.scheduler.server.HostileCorpus.Expect;
import dev.railyard.scheduler.server.HostileCorpus.Probe;
import dev.railyard.scheduler.server.HostileEndpoints.Endpoint;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The hostile corpus ({@link HostileCorpus}) against every endpoint ({@link HostileEndpoints}) of the real
 * extender server, run in a child JVM ({@link HostileServerMain}: 4 s request-read timeout, 1 MiB limit, logs at
 * debug). For every request: no 5xx (but the 505 an entry expects: HTTP/2.0), no 2xx where the endpoint's full parser refuses the body, every 4xx with a
 * one-line reason. After all of them: the server still answers, and no line of its log starts with text a request tried to
 * forge.
 */
class HostileCorpusTest {
    static ChildServer child;
    static int port;
    static Path log;

    @BeforeAll
    static void start() throws Exception {
        child = ChildServer.start("hostile-corpus-server", List.of("-Xmx256m", "-XX:TieredStopAtLevel=1",
                "-Dorg.slf4j.simpleLogger.defaultLogLevel=debug"), HostileServerMain.class);
        port = child.port();
        log = child.log();
    }

    @AfterAll
    static void stop() throws Exception {
        if (child != null) {
            child.close();
        }
    }

    /** One request's outcome: an HTTP status, or -1 when the server closed the connection without one. */
    record Outcome(int status, String body) {
        static final int CLOSED = -1;
    }

    @Test
    void noServerErrorNoLenientSuccessEveryRefusalOneLineAndTheServerLives() throws Exception {
        List<Entry> entries = HostileCorpus.entries();
        List<Endpoint> endpoints = HostileEndpoints.all();
        assertThat(entries).as("corpus size").hasSizeGreaterThanOrEqualTo(120);

        Map<String, AtomicInteger> statuses = new ConcurrentHashMap<>();
        List<String> failures = java.util.Collections.synchronizedList(new ArrayList<>());
        AtomicInteger requests = new AtomicInteger();
        AtomicInteger fiveHundreds = new AtomicInteger();
        AtomicInteger lenient = new AtomicInteger();
        long start = System.nanoTime();
        List<Future<?>> done = new ArrayList<>();
        try (ExecutorService pool = Executors.newFixedThreadPool(16)) {
            for (Entry entry : entries) {
                for (Endpoint e : endpoints) {
                    Optional<Probe> probe = entry.probe().apply(e);
                    if (probe.isEmpty()) {
                        continue;
                    }
                    done.add(pool.submit(() -> {
                        Outcome o = send(probe.get());
                        // on this shared, loaded machine a request can outlast the 4 s request-read timeout and be
                        // closed by the server; a probe that may not be closed is tried again alone, three times at
                        // most, once the others are done
                        for (int retry = 0; retry < 3 && o.status() == Outcome.CLOSED && !probe.get().expect().closed();
                             retry++) {
                            synchronized (HostileCorpusTest.class) {
                                o = send(probe.get());
                            }
                        }
                        requests.incrementAndGet();
                        statuses.computeIfAbsent(o.status() == Outcome.CLOSED ? "closed" : Integer.toString(o.status()),
                                k -> new AtomicInteger()).incrementAndGet();
                        String problem = judge(entry, e, probe.get(), o, fiveHundreds, lenient);
                        if (problem != null) {
                            failures.add(entry.id() + " -> " + e.name() + ": " + problem);
                        }
                        return null;
                    }));
                }
            }
            for (Future<?> f : done) {
                f.get(120, TimeUnit.SECONDS);
            }
        }
        System.out.printf("[corpus] %d entries x %d endpoints: %d requests in %.1f s (load %.1f); outcomes %s; "
                        + "5xx %d, lenient 2xx %d%n", entries.size(), endpoints.size(), requests.get(),
                (System.nanoTime() - start) / 1e9,
                java.lang.management.ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage(),
                new TreeMap<>(statuses), fiveHundreds.get(), lenient.get());
        assertThat(failures).as("requests answered wrongly").isEmpty();
        assertThat(fiveHundreds.get()).isZero();
        assertThat(lenient.get()).isZero();

        // the server lives and still answers a valid request
        assertThat(child.process().isAlive()).isTrue();
        assertThat(send(new Probe(HostileCorpus.utf8("GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n"), HostileCorpus.Send.ALL,
                Expect.refused(), null)).status()).isEqualTo(200);
        Endpoint bind = endpoints.stream().filter(x -> x.path().equals("/kube/bind")).findFirst().orElseThrow();
        assertThat(send(new Probe(HostileCorpus.request(bind, bind.base()), HostileCorpus.Send.ALL, Expect.byOracle(),
                bind.base())).status()).isEqualTo(200);

        // a value holding "\n" + FORGED was logged somewhere (debug logs every pod and node), always escaped
        List<String> lines = Files.readAllLines(log, StandardCharsets.UTF_8);
        assertThat(lines).as("log lines of the child server (%s)", log).noneMatch(l -> l.startsWith(HostileCorpus.FORGED));
        assertThat(String.join("\n", lines)).contains("\\n" + HostileCorpus.FORGED);
    }

    /** @return null when the outcome is right, else what is wrong */
    private static String judge(Entry entry, Endpoint e, Probe p, Outcome o, AtomicInteger fiveHundreds,
                                AtomicInteger lenient) {
        Expect x = p.expect();
        int s = o.status();
        if (s == Outcome.CLOSED) {
            return x.closed() ? null : "connection closed without an answer";
        }
        if (s >= 500 && !x.statuses().contains(s)) { // the one 5xx an entry may expect: 505 to HTTP/2.0
            fiveHundreds.incrementAndGet();
            return "server error " + s + ": " + o.body();
        }
        if (s >= 400 && s < 500) {
            String reason = o.body().strip();
            if (reason.isEmpty() || reason.contains("\n") || reason.contains("\r")) {
                return s + " without a one-line reason: '" + o.body() + "'";
            }
        }
        if (e.get() && s == 405) {
            return null;
        }
        if (x.oracle()) {
            Optional<String> refusal = e.oracle().refuses(p.body());
            if (refusal.isPresent() && s < 400) {
                lenient.incrementAndGet();
                return "answered " + s + " although the full parser refuses: " + refusal.get();
            }
            return null;
        }
        if (x.no2xx() && s >= 200 && s < 300) {
            lenient.incrementAndGet();
            return "answered " + s + " to a request that must be refused";
        }
        return x.statuses().contains(s) ? null : "status " + s + " not in " + x.statuses() + ": " + o.body();
    }

    /** Sends one probe on a new connection and reads one answer (after any 100 Continue). */
    static Outcome send(Probe p) {
        try (Socket s = new Socket(InetAddress.getLoopbackAddress(), port)) {
            s.setSoTimeout(15_000);
            OutputStream out = s.getOutputStream();
            InputStream in = s.getInputStream();
            switch (p.send()) {
                case ALL -> write(out, p.bytes());
                case STALL -> write(out, p.bytes());
                case TRICKLE -> trickle(out, p.bytes());
                case ENDLESS_CHUNKS -> {
                    write(out, p.bytes());
                    return endless(s, out, in);
                }
            }
            return read(in);
        } catch (IOException e) {
            return new Outcome(Outcome.CLOSED, e.toString());
        }
    }

    private static void write(OutputStream out, byte[] bytes) {
        try {
            out.write(bytes);
            out.flush();
        } catch (IOException e) {
            // the server answered early and closed (413 before the body): the answer is read next
        }
    }

    /** Head at once, then the body one byte every 50 ms. */
    private static void trickle(OutputStream out, byte[] bytes) throws IOException {
        int head = new String(bytes, StandardCharsets.ISO_8859_1).indexOf("\r\n\r\n") + 4;
        out.write(bytes, 0, head);
        out.flush();
        for (int i = head; i < bytes.length; i++) {
            out.write(bytes[i]);
            out.flush();
            try {
                Thread.sleep(50);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
        }
    }

    /** 16 KiB chunks until the server answers or closes, 16 MiB at most. */
    private static Outcome endless(Socket s, OutputStream out, InputStream in) throws IOException {
        byte[] chunk = HostileCorpus.concat(HostileCorpus.utf8("4000\r\n"), new byte[16384], HostileCorpus.utf8("\r\n"));
        java.util.Arrays.fill(chunk, 6, 6 + 16384, (byte) ' ');
        for (int sent = 0; sent < 1024; sent++) {
            if (in.available() > 0) {
                break;
            }
            try {
                out.write(chunk);
                out.flush();
            } catch (IOException e) {
                break;
            }
        }
        return read(in);
    }

    private static Outcome read(InputStream in) {
        try {
            TestServers.Response r;
            do {
                r = TestServers.read(in);
            } while (r.status() == 100);
            return new Outcome(r.status(), r.body());
        } catch (IOException | RuntimeException e) {
            return new Outcome(Outcome.CLOSED, e.toString());
        }
    }
}
