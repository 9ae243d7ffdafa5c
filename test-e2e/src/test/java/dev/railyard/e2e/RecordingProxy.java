package dev.railyard.e2e;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

/**
 * An HTTP pass-through between the schedulers and Railyard that records what the schedulers send: it listens on
 * 127.0.0.1 (a free port, fixed for its lifetime so the scheduler configs can name it before Railyard runs),
 * forwards each {@code POST /<protocol>/<verb>} unchanged to the current backend and relays status and body back.
 *
 * <p>The first request body of each path is saved verbatim as {@code <captureDir>/<protocol>/<verb>.json}; every
 * request is counted per path, with the status Railyard answered. When no backend is set or the backend refuses the
 * connection, the exchange is closed without a response, so the scheduler sees a transport error exactly as with
 * Railyard down (docs/formats/volcano-extender.md §4 treats transport errors and non-200 alike).
 */
public final class RecordingProxy implements AutoCloseable {

    private final HttpServer server;
    private final ExecutorService executor = Executors.newFixedThreadPool(16, r -> {
        Thread t = new Thread(r, "recording-proxy");
        t.setDaemon(true);
        return t;
    });
    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(1))
            .version(HttpClient.Version.HTTP_1_1).build();
    private final Path captureDir;
    private final AtomicReference<URI> backend = new AtomicReference<>();
    private final Map<String, AtomicInteger> calls = new ConcurrentHashMap<>();
    private final Map<String, AtomicInteger> failures = new ConcurrentHashMap<>();
    private final Map<String, Boolean> captured = new ConcurrentHashMap<>();
    private final Map<String, java.util.Deque<Exchange>> recent = new ConcurrentHashMap<>();

    /** How many exchanges per path {@link #recent} keeps. */
    public static final int RECENT = 32;

    /**
     * One forwarded call.
     *
     * @param request  the body the scheduler sent
     * @param status   Railyard's HTTP status
     * @param response Railyard's body
     */
    public record Exchange(byte[] request, int status, byte[] response) {
        /** The request body as UTF-8 text. */
        public String requestText() {
            return new String(request, java.nio.charset.StandardCharsets.UTF_8);
        }

        /** The response body as UTF-8 text. */
        public String responseText() {
            return new String(response, java.nio.charset.StandardCharsets.UTF_8);
        }
    }

    private RecordingProxy(HttpServer server, Path captureDir) {
        this.server = server;
        this.captureDir = captureDir;
    }

    /**
     * Starts a proxy on a free loopback port with no backend yet.
     *
     * @param captureDir where the first body of each verb is written ({@code <protocol>/<verb>.json})
     * @throws IOException if the port cannot be bound or the directory created
     */
    public static RecordingProxy start(Path captureDir) throws IOException {
        Files.createDirectories(captureDir);
        HttpServer server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 64);
        RecordingProxy proxy = new RecordingProxy(server, captureDir);
        server.createContext("/", proxy::handle);
        server.setExecutor(proxy.executor);
        server.start();
        return proxy;
    }

    /** {@code http://127.0.0.1:<port>}; append {@code /volcano} or {@code /kube} for a scheduler's URL prefix. */
    public URI url() {
        return URI.create("http://127.0.0.1:" + server.getAddress().getPort());
    }

    /** Forwards to {@code base} (e.g. {@code http://127.0.0.1:8888}) from now on; null = answer nothing. */
    public void backend(URI base) {
        backend.set(base);
    }

    /** Requests seen on {@code path} (e.g. {@code /volcano/predicate}), whatever the outcome. */
    public int calls(String path) {
        AtomicInteger n = calls.get(path);
        return n == null ? 0 : n.get();
    }

    /** Requests on {@code path} that got no 200 from Railyard (no backend, refused, or another status). */
    public int failures(String path) {
        AtomicInteger n = failures.get(path);
        return n == null ? 0 : n.get();
    }

    /** Failed calls over all paths so far. */
    public int totalFailures() {
        return failures.values().stream().mapToInt(AtomicInteger::get).sum();
    }

    /** Calls per path so far, sorted by path (for a report line). */
    public Map<String, Integer> callCounts() {
        Map<String, Integer> m = new TreeMap<>();
        calls.forEach((k, v) -> m.put(k, v.get()));
        return m;
    }

    /** The last {@link #RECENT} answered calls on {@code path}, oldest first. */
    public List<Exchange> recent(String path) {
        java.util.Deque<Exchange> d = recent.get(path);
        if (d == null) {
            return List.of();
        }
        synchronized (d) {
            return List.copyOf(d);
        }
    }

    private Path captureFile(String path) {
        String p = path.startsWith("/") ? path.substring(1) : path;
        return captureDir.resolve(p + ".json");
    }

    private void handle(HttpExchange ex) throws IOException {
        String path = ex.getRequestURI().getPath();
        byte[] body;
        try (InputStream in = ex.getRequestBody()) {
            body = in.readAllBytes();
        }
        calls.computeIfAbsent(path, k -> new AtomicInteger()).incrementAndGet();
        if (body.length > 0 && captured.putIfAbsent(path, Boolean.TRUE) == null) {
            Path file = captureFile(path);
            Files.createDirectories(file.getParent());
            Files.write(file, body);
        }
        URI base = backend.get();
        if (base == null) {
            fail(path, ex);
            return;
        }
        HttpRequest.Builder req = HttpRequest.newBuilder(base.resolve(ex.getRequestURI().getRawPath()))
                .timeout(Duration.ofSeconds(30))
                .method(ex.getRequestMethod(), HttpRequest.BodyPublishers.ofByteArray(body));
        String type = ex.getRequestHeaders().getFirst("Content-Type");
        if (type != null) {
            req.header("Content-Type", type);
        }
        HttpResponse<byte[]> resp;
        try {
            resp = http.send(req.build(), HttpResponse.BodyHandlers.ofByteArray());
        } catch (IOException e) {
            fail(path, ex);
            return;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            fail(path, ex);
            return;
        }
        if (resp.statusCode() != 200) {
            failures.computeIfAbsent(path, k -> new AtomicInteger()).incrementAndGet();
        }
        resp.headers().firstValue("Content-Type").ifPresent(v -> ex.getResponseHeaders().set("Content-Type", v));
        byte[] out = resp.body();
        java.util.Deque<Exchange> d = recent.computeIfAbsent(path, k -> new java.util.ArrayDeque<>());
        synchronized (d) {
            d.addLast(new Exchange(body, resp.statusCode(), out));
            while (d.size() > RECENT) {
                d.removeFirst();
            }
        }
        ex.sendResponseHeaders(resp.statusCode(), out.length == 0 ? -1 : out.length);
        try (OutputStream os = ex.getResponseBody()) {
            os.write(out);
        }
    }

    /** No backend: drop the connection without a response, as a stopped Railyard would refuse it. */
    private void fail(String path, HttpExchange ex) {
        failures.computeIfAbsent(path, k -> new AtomicInteger()).incrementAndGet();
        ex.close();
    }

    @Override
    public void close() {
        server.stop(0);
        executor.shutdownNow();
        http.close();
    }
}
