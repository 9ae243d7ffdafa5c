package dev.railyard.scheduler.server;

import io.netty.channel.Channel;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelPipeline;
import dev.railyard.scheduler.protocol.Caller;
import io.netty.handler.codec.http.HttpDecoderConfig;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.HttpResponseEncoder;
import io.netty.handler.ssl.SslCloseCompletionEvent;
import io.netty.handler.ssl.SslHandler;

import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLEngine;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.nio.ByteOrder;
import java.util.Optional;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * What the connections of one listening port share, and how each new connection's pipeline is built:
 * <pre>
 *   [TLS: SslHandler] -> first-byte watch -> HttpFraming.RequestDecoder -> HttpResponseEncoder -> HttpConnection
 * </pre>
 * ({@link HttpFraming.RequestDecoder}: Netty's {@code HttpRequestDecoder} with the request line's version checked
 * as RFC 9112 §2.3 writes it.)
 * Reads are explicit (auto-read off): a connection reads only while it waits for a request or for the rest of a
 * body, and holds decoded messages back while a request is admitted or decided, so no body is read before
 * {@code refuse} and no pipelined request is served before the reply to the one before it.
 */
final class Listener extends ChannelInitializer<Channel> {
    /**
     * Longest request line (method, target, version): 8 KiB, as Go's and most servers' defaults allow; a longer
     * one is a 414 (Netty's {@code TooLongHttpLineException}).
     */
    static final int MAX_REQUEST_LINE = 8 * 1024;
    /**
     * Longest header section: 64 KiB (a bearer token is 1-2 KiB); a longer one is a 431
     * ({@code TooLongHttpHeaderException}).
     */
    static final int MAX_HEADER_BYTES = 64 * 1024;
    /**
     * Largest body a verb declared {@link dev.railyard.scheduler.protocol.VerbHandler.Threading#IO_THREAD} is
     * answered with on the event loop: 1 MiB. Parsing and judging cost 3-5 ms of CPU per MB on the measured
     * paths (a 19 MB Volcano prioritize took 54-99 ms per call, docs/adr/0017-netty-transport.md), so a body at
     * the limit holds the loop's other connections a few milliseconds; a larger one (prioritize over 100
     * NodeInfos, a non-cache kube filter with full Node objects) goes to a virtual thread, which costs one hand-off
     * but keeps the loop free. Volcano's predicate body (~127 KB with 18 pods on the node) and a kube filter of
     * 5,000 node names (~70 KB) stay inline.
     */
    static final int MAX_INLINE_BODY = 1 << 20;
    /**
     * Most {@code "} bytes a body answered on the event loop may hold: 32,768, about 16,000 JSON strings. The cost
     * of a verb is per node more than per byte: a 1 MiB kube filter of 262,000 one-letter node names held the loop
     * 110-640 ms with neutral answers (and {@code /healthz} on its other connections waited as long), where the
     * 5,000 names kube-scheduler sends for a 5,000-node cluster (about 10,000 quotes, 6 ms) and Volcano's predicate
     * body (about 15,000 quotes in 127 KB) stay inline. A body with more goes to a virtual thread. Counting them
     * is one pass over at most 1 MiB.
     */
    static final int MAX_INLINE_QUOTES = 32 * 1024;
    /** Largest body part handed over at once (parts are slices of the read buffer, not copies). */
    static final int MAX_CHUNK = 256 * 1024;

    final Endpoints endpoints;
    final ExecutorService decisions;
    final ConnectionTimeouts timeouts;
    final ClientCertificateVerifier verifier;
    /** Connections idle between requests now (for {@link ConnectionTimeouts#maxIdleConnections()}). */
    final AtomicInteger idle = new AtomicInteger();
    /** Requests between their head and their reply now (for a graceful stop). */
    final AtomicInteger inFlight = new AtomicInteger();
    private final SSLContext tls;
    private final io.netty.channel.group.ChannelGroup channels;
    /** Open connections per peer address and in all ({@link ConnectionCaps}). */
    final ConnectionCaps connections = ConnectionCaps.fromProcessLimits();

    Listener(Endpoints endpoints, ExecutorService decisions, ConnectionTimeouts timeouts, SSLContext tls,
             ClientCertificateVerifier verifier, io.netty.channel.group.ChannelGroup channels) {
        this.endpoints = endpoints;
        this.decisions = decisions;
        this.timeouts = timeouts;
        this.tls = tls;
        this.verifier = verifier;
        this.channels = channels;
    }

    /**
     * Strict framing (RFC 9112): header names and values validated, one Content-Length only, a Content-Length
     * beside a Transfer-Encoding refused, CR without LF refused; decoding failures become a 400, 414, 431 or (an
     * HTTP version other than 1.x) 505 in {@link HttpConnection}.
     */
    static HttpDecoderConfig decoderConfig() {
        return new HttpDecoderConfig()
                .setMaxInitialLineLength(MAX_REQUEST_LINE)
                .setMaxHeaderSize(MAX_HEADER_BYTES)
                .setMaxChunkSize(MAX_CHUNK)
                .setValidateHeaders(true)
                .setAllowDuplicateContentLengths(false)
                .setStrictLineParsing(true)
                .setUseRfc9112TransferEncoding(true);
    }

    /**
     * Closes a connection whose client sent TLS {@code close_notify}: the client will send no more requests, and
     * Netty's TLS handler, its inbound side closed, would keep buffering whatever bytes still arrive (off the heap)
     * until a timer closed the connection.
     */
    private static final ChannelInboundHandlerAdapter PEER_CLOSED_TLS = new PeerClosedTls();

    @ChannelHandler.Sharable
    private static final class PeerClosedTls extends ChannelInboundHandlerAdapter {
        @Override
        public void userEventTriggered(ChannelHandlerContext c, Object evt) {
            if (evt instanceof SslCloseCompletionEvent) {
                c.close();
            }
            c.fireUserEventTriggered(evt);
        }
    }

    @Override
    protected void initChannel(Channel ch) {
        if (!connections.admit(ch)) {
            ch.close(); // closed before a byte is read: no reply, no log line per connection (counted instead)
            return;
        }
        channels.add(ch);
        ChannelPipeline p = ch.pipeline();
        SslHandler ssl = null;
        if (tls != null) {
            SSLEngine engine = tls.createSSLEngine();
            engine.setUseClientMode(false);
            if (verifier != null) {
                // "want", not "need": a missing or refused certificate is a 401 from the route, not a failed handshake
                engine.setWantClientAuth(true);
            }
            ssl = new SslHandler(engine);
            ssl.setHandshakeTimeoutMillis(timeouts.requestRead().toMillis());
            p.addLast("tls", ssl);
            p.addLast("tls-close", PEER_CLOSED_TLS);
        }
        HttpConnection connection = new HttpConnection(this, ssl);
        p.addLast("first-byte", connection.firstByteWatch());
        p.addLast("decoder", new HttpFraming.RequestDecoder(decoderConfig()));
        p.addLast("encoder", new HttpResponseEncoder());
        p.addLast("exchange", connection);
    }

    /**
     * The caller of a request on a connection of this listener: the client certificates verified against the client
     * CA (or why they were refused), the request's bearer token, and the remote address; a listener without a
     * client CA reports no certificate.
     *
     * @param ssl the connection's TLS handler, or null on plain HTTP
     */
    Caller caller(SslHandler ssl, HttpRequest req, SocketAddress remoteAddress) {
        ClientCertificateVerifier.Verdict verdict = verifier != null && ssl != null
                ? verifier.verify(ssl.engine().getSession()) : ClientCertificateVerifier.Verdict.NONE;
        String auth = req.headers().get(HttpHeaderNames.AUTHORIZATION);
        Optional<String> token = auth != null && auth.regionMatches(true, 0, "Bearer ", 0, 7) && auth.length() > 7
                ? Optional.of(auth.substring(7).strip()) : Optional.empty();
        String remote = remoteAddress instanceof InetSocketAddress a
                ? ExtenderServer.url("tcp", a.getHostString(), a.getPort()).substring(6) : "unknown";
        return new Caller(verdict.chain(), token, remote, Optional.ofNullable(verdict.refusal()));
    }

    /**
     * Whether a body is small enough, in bytes and in strings, to be answered on the event loop. A body shorter
     * than {@link #MAX_INLINE_QUOTES} cannot hold too many quotes; a longer one is counted 8 bytes at a time (this
     * ran on every Volcano predicate, ~39 KB each, and a byte loop was a fifth of serve's CPU in the gang storm).
     */
    static boolean inlineSized(byte[] body) {
        if (body.length > MAX_INLINE_BODY) {
            return false;
        }
        return body.length <= MAX_INLINE_QUOTES || quotes(body, MAX_INLINE_QUOTES) <= MAX_INLINE_QUOTES;
    }

    private static final VarHandle WORD = MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);
    private static final long QUOTES = 0x2222222222222222L;
    private static final long LOW7 = 0x7F7F7F7F7F7F7F7FL;

    /**
     * The number of {@code "} bytes in {@code body}, counted until it passes {@code stop} (then some number above
     * {@code stop}). Per 8-byte word: the bytes equal to a quote are the zero bytes of {@code word ^ 0x22…}, and
     * {@code ~(((x & 0x7F…) + 0x7F…) | x | 0x7F…)} has exactly their high bits set (no carry crosses a byte).
     */
    static int quotes(byte[] body, int stop) {
        int count = 0;
        int i = 0;
        int words = body.length & ~7;
        while (i < words) {
            int end = Math.min(words, i + 4096);
            for (; i < end; i += 8) {
                long x = (long) WORD.get(body, i) ^ QUOTES;
                count += Long.bitCount(~(((x & LOW7) + LOW7) | x | LOW7));
            }
            if (count > stop) {
                return count;
            }
        }
        for (; i < body.length; i++) {
            if (body[i] == '"') {
                count++;
            }
        }
        return count;
    }
}
