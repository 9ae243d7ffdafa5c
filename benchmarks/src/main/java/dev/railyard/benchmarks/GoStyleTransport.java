package dev.railyard.benchmarks;

import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.ArrayDeque;
import java.util.concurrent.atomic.AtomicLong;

/**
 * An HTTP/1.1 client that reuses connections the way Go's {@code http.DefaultTransport} does for one host
 * ({@code MaxIdleConnsPerHost} = 2): a request takes an idle keep-alive connection if one is there, otherwise
 * dials a new one; after the response, the connection goes back to the idle pool if fewer than {@code maxIdle}
 * are idle, otherwise it is closed. With 16 concurrent callers (Volcano's predicate fan-out) that means constant
 * connection churn, which is what the server must absorb.
 *
 * <p>A measurement tool, not a general client: POST with Content-Length, responses with Content-Length or
 * chunked encoding, no TLS, no redirects, loopback targets only. Thread-safe.
 */
public final class GoStyleTransport implements AutoCloseable {
    private final InetSocketAddress target;
    private final int maxIdle;
    private final int readTimeoutMillis;
    private final ArrayDeque<Conn> idle = new ArrayDeque<>();
    final AtomicLong dials = new AtomicLong();

    /**
     * An HTTP response.
     *
     * @param status status code
     * @param body   the whole body (chunked bodies joined)
     */
    public record Response(int status, byte[] body) {
    }

    private static final class Conn {
        final Socket socket;
        final InputStream in;
        final OutputStream out;

        Conn(Socket s) throws IOException {
            socket = s;
            in = new BufferedInputStream(s.getInputStream(), 65536);
            out = new BufferedOutputStream(s.getOutputStream(), 65536);
        }
    }

    /**
     * @param target  a loopback address and port
     * @param maxIdle idle keep-alive connections kept (Go's {@code MaxIdleConnsPerHost}, 2 by default there)
     * @throws IllegalArgumentException when the target is not a loopback address
     */
    public GoStyleTransport(InetSocketAddress target, int maxIdle) {
        this(target, maxIdle, 30_000);
    }

    /**
     * @param readTimeoutMillis longest wait for a reply (socket read timeout)
     * @throws IllegalArgumentException when the target is not a loopback address
     */
    public GoStyleTransport(InetSocketAddress target, int maxIdle, int readTimeoutMillis) {
        if (!target.getAddress().isLoopbackAddress()) {
            throw new IllegalArgumentException("load generator targets loopback addresses only, not " + target);
        }
        this.target = target;
        this.maxIdle = maxIdle;
        this.readTimeoutMillis = readTimeoutMillis;
    }

    Response post(String path, byte[] body) throws IOException {
        return post(path, new byte[][]{body});
    }

    /**
     * POSTs a body made of {@code parts} written one after another (no copy into one array).
     *
     * @throws IOException when the connection fails or the server closes it before answering
     */
    // MethodLength: long because one exchange (dial or reuse, write, status line, headers, body, keep or close) reads best in order
    public Response post(String path, byte[]... parts) throws IOException {
        long contentLength = 0;
        for (byte[] p : parts) {
            contentLength += p.length;
        }
        Conn c;
        synchronized (idle) {
            c = idle.pollFirst();
        }
        if (c == null) {
            Socket s = new Socket();
            s.setTcpNoDelay(true);
            s.connect(target, 5000);
            s.setSoTimeout(readTimeoutMillis);
            c = new Conn(s);
            dials.incrementAndGet();
        }
        boolean keep;
        Response r;
        try {
            String head = "POST " + path + " HTTP/1.1\r\nHost: " + target.getHostString() + ":" + target.getPort()
                    + "\r\nUser-Agent: Go-http-client/1.1\r\nContent-Length: " + contentLength
                    + "\r\nContent-Type: application/json\r\nAccept-Encoding: gzip\r\n\r\n";
            c.out.write(head.getBytes(StandardCharsets.US_ASCII));
            for (byte[] p : parts) {
                c.out.write(p);
            }
            c.out.flush();
            String status = line(c.in);
            if (status == null) {
                throw new IOException("server closed the connection before answering");
            }
            int code = Integer.parseInt(status.substring(9, 12));
            long length = -1;
            boolean chunked = false;
            keep = true;
            String h;
            while ((h = line(c.in)) != null && !h.isEmpty()) {
                int colon = h.indexOf(':');
                String name = h.substring(0, colon).trim();
                String value = h.substring(colon + 1).trim();
                if (name.equalsIgnoreCase("Content-Length")) {
                    length = Long.parseLong(value);
                } else if (name.equalsIgnoreCase("Transfer-Encoding") && value.equalsIgnoreCase("chunked")) {
                    chunked = true;
                } else if (name.equalsIgnoreCase("Connection") && value.equalsIgnoreCase("close")) {
                    keep = false;
                }
            }
            byte[] b;
            if (chunked) {
                java.io.ByteArrayOutputStream acc = new java.io.ByteArrayOutputStream();
                while (true) {
                    String size = line(c.in);
                    int n = Integer.parseInt(size.split(";")[0].trim(), 16);
                    if (n == 0) {
                        line(c.in);
                        break;
                    }
                    acc.write(c.in.readNBytes(n));
                    line(c.in);
                }
                b = acc.toByteArray();
            } else if (length >= 0) {
                b = c.in.readNBytes((int) length);
            } else {
                b = c.in.readAllBytes();
                keep = false;
            }
            r = new Response(code, b);
        } catch (IOException | RuntimeException e) {
            c.socket.close();
            throw e;
        }
        if (keep) {
            synchronized (idle) {
                if (idle.size() < maxIdle) {
                    idle.addLast(c);
                    return r;
                }
            }
        }
        c.socket.close();
        return r;
    }

    private static String line(InputStream in) throws IOException {
        StringBuilder sb = new StringBuilder(64);
        int ch;
        while ((ch = in.read()) >= 0) {
            if (ch == '\n') {
                int n = sb.length();
                return n > 0 && sb.charAt(n - 1) == '\r' ? sb.substring(0, n - 1) : sb.toString();
            }
            sb.append((char) ch);
        }
        return sb.isEmpty() ? null : sb.toString();
    }

    @Override
    public void close() throws IOException {
        synchronized (idle) {
            for (Conn c : idle) {
                c.socket.close();
            }
            idle.clear();
        }
    }
}
