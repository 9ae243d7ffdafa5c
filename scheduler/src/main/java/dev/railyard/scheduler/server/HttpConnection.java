package dev.railyard.scheduler.server;

import dev.railyard.scheduler.protocol.Caller;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpContent;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.handler.codec.http.LastHttpContent;
import io.netty.handler.ssl.SslHandler;
import io.netty.util.ReferenceCountUtil;
import io.netty.util.concurrent.ScheduledFuture;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.slf4j.event.Level;

import java.time.Duration;
import java.util.Set;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

/**
 * One HTTP/1.1 connection, on its event loop: reads a request's head, has it admitted ({@link Endpoints#admitNow}:
 * the route's {@code refuse}, the size limit, a share of the body budget, waited for off the loop when short) before
 * reading any body, reads the body (or discards it), has the answer made, writes the reply, and then waits for the
 * next request on the same connection.
 *
 * <p>Where the answer is made: on the loop itself, with no thread hand-off, for a verb declared
 * {@link dev.railyard.scheduler.protocol.VerbHandler.Threading#IO_THREAD} whose body is at most
 * {@link Listener#MAX_INLINE_BODY} bytes and {@link Listener#MAX_INLINE_QUOTES} quotes, for {@code /healthz}, an
 * unknown path (404) and a wrong method (405); on a virtual thread for every other verb, for a larger body or one of
 * many strings (parsing 19 MB, or judging 262,000 node names, takes tens to hundreds of milliseconds, during which
 * the loop's other connections would wait), and for {@code /readyz} and {@code /metrics} (the readiness
 * probe may build the first cluster view; a scrape formats every meter).
 *
 * <p>Clocks ({@link ConnectionTimeouts}): a request must arrive whole, head and body, within
 * {@link ConnectionTimeouts#requestRead()} of its first byte; a kept-alive connection may wait
 * {@link ConnectionTimeouts#idle()} for its next request (a new connection the lesser of the two); past either the
 * connection is closed. A connection whose request was cut this way, or whose client left before the reply, is
 * counted as {@code client_gone} for its verb.
 *
 * <p>Framing the decoder refuses (a malformed request line or header, a version that is not HTTP/DIGIT.DIGIT as
 * sent (RFC 9112 §2.3) or whose major is not 1 (505, RFC 9110 §15.6.6), a bad or doubled Content-Length, a
 * Content-Length beside a Transfer-Encoding, a bad chunk), a request line over {@link Listener#MAX_REQUEST_LINE}
 * (414), a header section over {@link Listener#MAX_HEADER_BYTES} (431), and any Transfer-Encoding other than a
 * single {@code chunked} (400; RFC 9112 §6.1, §6.3) get a one-line reason and the connection is closed.
 *
 * <p>A connection is closed after its reply by a {@link LingeringClose}: half-closed, what the client still sends is
 * read and dropped for a bounded time, so that a client still writing a refused body reads the reply.
 */
final class HttpConnection extends ChannelInboundHandlerAdapter {
    private static final Logger LOG = LoggerFactory.getLogger(ExtenderServer.class);
    /** Body bytes discarded to keep a connection whose request got an early answer (404, 405); past it, close. */
    static final long KEEP_ALIVE_DRAIN = 64 * 1024;
    private static final byte[] NO_BODY = new byte[0];
    /** The server's own paths, the only request paths that become a metric tag (any other is the caller's text). */
    private static final Set<String> SERVER_PATHS = Set.of("/healthz", "/readyz", "/metrics");

    private enum State {
        /** waiting for a request (or reading its head) */
        IDLE,
        /** the head is in; its admission (or a body share's growth) runs off the loop; nothing is read */
        ADMITTING,
        /** reading the body of an admitted verb */
        READING,
        /** reading and dropping a body nobody needs, then answering */
        DISCARDING,
        /** the request is whole; its reply is computed off the loop; nothing is read */
        DECIDING,
        /** the reply of a kept-alive connection is being written; nothing is read until it is out */
        WRITING,
        /** a closing reply is being written */
        CLOSING,
        CLOSED
    }

    private final Listener listener;
    private final Endpoints endpoints;
    private final SslHandler ssl;
    private ChannelHandlerContext ctx;
    private State state = State.IDLE;
    private Exchange ex;
    private ScheduledFuture<?> timer;
    private boolean requestStarted;
    private boolean countedIdle;
    private boolean countedInFlight;
    /** In DISCARDING: what answers once the body is consumed; {@code drainCapped}: close past KEEP_ALIVE_DRAIN. */
    private Supplier<Answer> afterDiscard;
    private boolean drainCapped;
    /** In DISCARDING: whether {@code afterDiscard} may run on the loop. */
    private boolean afterDiscardInline;

    HttpConnection(Listener listener, SslHandler ssl) {
        this.listener = listener;
        this.endpoints = listener.endpoints;
        this.ssl = ssl;
    }

    /** A handler for before the decoder: the first byte of a request starts its request-read clock. */
    ChannelInboundHandlerAdapter firstByteWatch() {
        return new ChannelInboundHandlerAdapter() {
            @Override
            public void channelRead(ChannelHandlerContext c, Object msg) {
                if (state == State.IDLE && !requestStarted) {
                    startRequestClock();
                }
                c.fireChannelRead(msg);
            }
        };
    }

    @Override
    public void handlerAdded(ChannelHandlerContext c) {
        this.ctx = c;
    }

    @Override
    public void channelActive(ChannelHandlerContext c) {
        ConnectionTimeouts t = listener.timeouts;
        Duration first = t.requestRead().compareTo(t.idle()) < 0 ? t.requestRead() : t.idle();
        arm(first, this::idleExpired);
        resume();
        c.fireChannelActive();
    }

    /**
     * Decoded messages wait here while a request is admitted or decided: one socket read can hold a head, body
     * parts and even a pipelined request, and none of it may be acted on before its turn. Reads are asked for only
     * when this is empty and the connection wants bytes, so it holds at most one read's worth.
     */
    private final java.util.ArrayDeque<Object> inbox = new java.util.ArrayDeque<>();
    private boolean draining;
    /** The closing reply is written and {@link LingeringClose} owns the reads from here on. */
    private boolean lingering;

    @Override
    public void channelRead(ChannelHandlerContext c, Object msg) {
        inbox.add(msg);
        resume();
    }

    @Override
    public void channelReadComplete(ChannelHandlerContext c) {
        resume(); // a read that decoded nothing (half a head) asks for the next one
        c.fireChannelReadComplete();
    }

    private boolean wantsBytes() {
        return state == State.IDLE || state == State.READING || state == State.DISCARDING;
    }

    /** Handles waiting messages while the state takes them, then asks for more bytes if it still wants them. */
    private void resume() {
        if (draining) {
            return;
        }
        draining = true;
        try {
            while (wantsBytes() && !inbox.isEmpty()) {
                Object msg = inbox.poll();
                try {
                    if (msg instanceof HttpRequest req) {
                        onRequest(req);
                    }
                    if (msg instanceof HttpContent part) {
                        onContent(part);
                    }
                } finally {
                    ReferenceCountUtil.release(msg);
                }
            }
        } finally {
            draining = false;
        }
        // Read on while the state takes bytes (several socket reads per loop turn, as auto-read does), stop while a
        // request is admitted or decided: what one read decoded beyond that waits in the inbox.
        boolean want = wantsBytes() && inbox.isEmpty() && ctx.channel().isActive();
        io.netty.channel.ChannelConfig config = ctx.channel().config();
        // lingering: the closing reply is out (perhaps from inside this call) and LingeringClose reads from now on
        if (want != config.isAutoRead() && !lingering) {
            config.setAutoRead(want); // true also asks for a read now
        }
    }

    private void dropInbox() {
        Object msg;
        while ((msg = inbox.poll()) != null) {
            ReferenceCountUtil.release(msg);
        }
    }

    @Override
    public void channelInactive(ChannelHandlerContext c) {
        State was = state;
        state = State.CLOSED;
        dropInbox();
        cancelTimer();
        leaveIdle();
        if (ex != null) {
            if (ex.route != null && was != State.IDLE && was != State.CLOSING) {
                endpoints.metrics().error(ex.protocol(), ex.verb(), "client_gone");
                LOG.debug("{}: connection closed before the reply ({} body bytes received)", ex.name(), ex.received);
            }
            ex.releaseLease();
        }
        endInFlight();
        c.fireChannelInactive();
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext c, Throwable cause) {
        // out of memory (a VirtualMachineError) is the process's trouble, not the client's: said at error
        LOG.atLevel(cause instanceof VirtualMachineError ? Level.ERROR : Level.DEBUG).log("connection from {}: {}",
                c.channel().remoteAddress(), Answer.oneLine(cause.toString()));
        c.close();
    }

    // ---- a request's head

    private void onRequest(HttpRequest req) {
        if (state != State.IDLE) {
            ctx.close(); // cannot happen: nothing is read while a request is being served
            return;
        }
        if (!requestStarted) {
            startRequestClock(); // a pipelined request, decoded from bytes read with the previous one
        }
        countedInFlight = true;
        listener.inFlight.incrementAndGet();
        if (req.decoderResult().isFailure()) {
            ex = new Exchange(req, "", null, -1);
            framingFailure(req.decoderResult().cause());
            return;
        }
        String path;
        try {
            path = HttpFraming.path(req.uri());
        } catch (IllegalArgumentException e) {
            ex = new Exchange(req, "", null, -1);
            badRequest("request target \"" + Answer.oneLine(req.uri()) + "\" is not a valid URI path: "
                    + Answer.oneLine(e.getMessage()));
            return;
        }
        Endpoints.Route route = endpoints.route(path);
        ex = new Exchange(req, path, route, HttpUtil.isTransferEncodingChunked(req) ? -1
                : HttpUtil.getContentLength(req, 0L));
        String framing = HttpFraming.headProblem(req);
        if (framing != null) {
            badRequest(framing);
        } else if (route == null) {
            String method = ex.method;
            discardThen(() -> endpoints.builtIn(method, path), true, endpoints.builtInOnLoop(path));
        } else if (!"POST".equals(ex.method)) {
            Answer a = endpoints.methodNotAllowed(ex.method, path, "POST", route.protocol(), route.verb());
            discardThen(() -> a, true, true);
        } else {
            admit();
        }
    }

    private void admit() {
        Exchange e = ex;
        Caller caller = listener.caller(ssl, e.request, ctx.channel().remoteAddress());
        Endpoints.Admission now = endpoints.admitNow(e.route, caller, e.declared);
        if (now != null) {
            admitted(e, caller, now);
            return;
        }
        state = State.ADMITTING; // the budget is short: wait for a share off the loop
        offLoop(() -> {
            Endpoints.Admission a;
            try {
                a = endpoints.awaitShare(e.route, e.declared);
            } catch (InterruptedException interrupted) {
                Thread.currentThread().interrupt();
                onLoop(() -> ctx.close());
                return;
            }
            onLoop(() -> admitted(e, caller, a));
        });
    }

    private void admitted(Exchange e, Caller caller, Endpoints.Admission a) {
        if (state == State.CLOSED || e != ex) {
            if (a.lease() != null) {
                a.lease().close();
            }
            return;
        }
        if (a.refusal() != null) {
            send(a.refusal());
            return;
        }
        if (a.lease() == null) {
            // a verb that ignores its body
            discardThen(() -> endpoints.handle(e.route, NO_BODY, caller, null), false, answersOnLoop(e.route, NO_BODY));
            return;
        }
        e.lease = a.lease();
        e.caller = caller;
        e.expectDeclared();
        state = State.READING;
        continueIfExpected();
        resume();
    }

    private void discardThen(Supplier<Answer> answer, boolean capped, boolean inline) {
        afterDiscard = answer;
        drainCapped = capped;
        afterDiscardInline = inline;
        state = State.DISCARDING;
        continueIfExpected();
        resume();
    }

    private void continueIfExpected() {
        if (HttpUtil.is100ContinueExpected(ex.request)) {
            ctx.writeAndFlush(new DefaultFullHttpResponse(HttpVersion.HTTP_1_1, HttpResponseStatus.CONTINUE,
                    Unpooled.EMPTY_BUFFER));
        }
    }

    // ---- the body

    private void onContent(HttpContent part) {
        if (state != State.READING && state != State.DISCARDING) {
            return; // after a closing answer
        }
        if (part.decoderResult().isFailure()) {
            framingFailure(part.decoderResult().cause());
            return;
        }
        int n = part.content().readableBytes();
        ex.received += n;
        boolean last = part instanceof LastHttpContent;
        if (state == State.DISCARDING) {
            if (last) {
                decide(afterDiscard, false, afterDiscardInline);
            } else if (drainCapped && ex.received > KEEP_ALIVE_DRAIN) {
                decide(afterDiscard, true, afterDiscardInline);
            } else {
                resume();
            }
            return;
        }
        if (ex.declared < 0 && ex.received > ex.route.maxRequestBytes()) {
            send(endpoints.tooLarge(ex.route, -1));
            return;
        }
        ex.keep(part.content());
        if (ex.declared < 0 && ex.received > ex.leaseBytes()) {
            grow(last);
        } else if (last) {
            bodyComplete();
        } else {
            resume();
        }
    }

    /** A chunked body outgrew its share: grow it off the loop (waiting for the budget), then go on or 429. */
    private void grow(boolean last) {
        Exchange e = ex;
        if (e.lease.growNow(RequestBodyBudget.CHUNK)) {
            if (last) {
                bodyComplete();
            }
            return;
        }
        state = State.ADMITTING;
        RequestBodyBudget.Lease lease = e.takeLease();
        offLoop(() -> {
            Answer refusal;
            try {
                refusal = endpoints.grow(e.route, lease);
            } catch (InterruptedException interrupted) {
                Thread.currentThread().interrupt();
                lease.close();
                onLoop(() -> ctx.close());
                return;
            }
            onLoop(() -> {
                if (state == State.CLOSED || e != ex || refusal != null) {
                    lease.close();
                    if (state != State.CLOSED && e == ex) {
                        send(refusal);
                    }
                    return;
                }
                e.lease = lease;
                state = State.READING;
                if (last) {
                    bodyComplete();
                } else {
                    resume();
                }
            });
        });
    }

    private void bodyComplete() {
        Exchange e = ex;
        byte[] body = e.body();
        RequestBodyBudget.Lease lease = e.takeLease();
        decide(() -> endpoints.handle(e.route, body, e.caller, lease), false, answersOnLoop(e.route, body));
    }

    /** Whether a verb's answer to {@code body} is made on the loop (see the class comment). */
    static boolean answersOnLoop(Endpoints.Route route, byte[] body) {
        return route.handler().threading() == dev.railyard.scheduler.protocol.VerbHandler.Threading.IO_THREAD
                && Listener.inlineSized(body);
    }

    // ---- the reply

    /**
     * Makes {@code answer} on the loop ({@code inline}) or off it, then sends it ({@code close}: and closes the
     * connection).
     */
    private void decide(Supplier<Answer> answer, boolean close, boolean inline) {
        cancelTimer(); // the request is whole (or given up on); the decision has no deadline here
        state = State.DECIDING;
        Exchange e = ex;
        if (inline) {
            send(answer(answer, e, close));
            return;
        }
        offLoop(() -> {
            Answer reply = answer(answer, e, close);
            onLoop(() -> {
                if (state == State.DECIDING && e == ex) {
                    send(reply);
                }
            });
        });
    }

    private Answer answer(Supplier<Answer> answer, Exchange e, boolean close) {
        Answer a;
        try {
            a = answer.get();
        } catch (RuntimeException bug) {
            a = endpoints.internalError(e.route, e.name(), bug);
        }
        return close ? a.closed() : a;
    }

    private void badRequest(String reason) {
        endpoints.metrics().error("http", "framing", "malformed_request");
        LOG.debug("bad request from {}: {}", ctx.channel().remoteAddress(), reason);
        send(Answer.closing(400, reason));
    }

    private void framingFailure(Throwable cause) {
        Answer a = HttpFraming.framingFailure(cause, ex.route != null ? ex.name() + ": " : "", endpoints.metrics());
        LOG.debug("bad request from {}: {}", ctx.channel().remoteAddress(), a.reply().bodyText().strip());
        send(a);
    }

    private void send(Answer a) {
        if (state == State.CLOSED) {
            return;
        }
        cancelTimer();
        Exchange e = ex;
        boolean close = a.close() || !HttpUtil.isKeepAlive(e.request) || e.request.decoderResult().isFailure()
                || listener.idle.get() >= listener.timeouts.maxIdleConnections();
        FullHttpResponse response = HttpFraming.response(a, e, close);
        state = close ? State.CLOSING : State.WRITING;
        ex = null;
        e.releaseLease();
        endInFlight();
        int replyBytes = response.content().readableBytes();
        ChannelFuture written = ctx.writeAndFlush(response);
        if (!written.isDone()) {
            // a reply the client has not taken counts against the body budget until it is out, and is given up
            // after the request-read timeout (armed before the listener below, which arms the idle clock when the
            // write is done already)
            RequestBodyBudget.Lease charge = endpoints.chargeReply(e.route, replyBytes);
            written.addListener(f -> charge.close());
            arm(listener.timeouts.requestRead(), () -> replyNotTaken(e));
        }
        written.addListener(f -> {
            if (e.route != null) {
                endpoints.metrics().request(e.protocol(), e.verb(), a.status(), System.nanoTime() - e.startNanos);
            }
            if (!f.isSuccess()) {
                ctx.close();
            } else if (close) {
                cancelTimer();
                lingering = true;
                LingeringClose.begin(ctx, ssl);
            } else if (state == State.WRITING) {
                awaitNextRequest();
            }
        });
    }

    /**
     * The reply is still not written a request-read timeout after it was sent: the client is not reading (or too
     * slowly for any scheduler's own timeout). Close, which frees the reply's buffers (docs/hostile-input.md).
     */
    private void replyNotTaken(Exchange e) {
        if (state == State.WRITING || state == State.CLOSING) {
            // an unknown path is the caller's text: not a metric tag, and escaped in the log
            String verb = e.route != null ? e.verb()
                    : SERVER_PATHS.contains(e.path) ? e.path : "unknown";
            endpoints.metrics().error(e.protocol(), verb, "slow_reader");
            LOG.debug("closing connection from {}: {} reply not taken within {} ms", ctx.channel().remoteAddress(),
                    Answer.oneLine(e.name()), listener.timeouts.requestRead().toMillis());
            ctx.close();
        }
    }

    private void awaitNextRequest() {
        state = State.IDLE;
        requestStarted = false;
        if (!countedIdle) {
            countedIdle = true;
            listener.idle.incrementAndGet();
        }
        arm(listener.timeouts.idle(), this::idleExpired);
        resume();
    }

    // ---- clocks

    private void startRequestClock() {
        requestStarted = true;
        leaveIdle();
        arm(listener.timeouts.requestRead(), this::requestReadExpired);
    }

    private void idleExpired() {
        if (state == State.IDLE && !requestStarted) {
            LOG.debug("closing connection from {}: idle", ctx.channel().remoteAddress());
            ctx.close();
        }
    }

    private void requestReadExpired() {
        if (state == State.IDLE || state == State.ADMITTING || state == State.READING || state == State.DISCARDING) {
            LOG.debug("closing connection from {}: request not complete within {} ms", ctx.channel().remoteAddress(),
                    listener.timeouts.requestRead().toMillis());
            ctx.close();
        }
    }

    private void arm(Duration after, Runnable expiry) {
        cancelTimer();
        timer = ctx.executor().schedule(expiry, after.toNanos(), TimeUnit.NANOSECONDS);
    }

    private void cancelTimer() {
        if (timer != null) {
            timer.cancel(false);
            timer = null;
        }
    }

    private void leaveIdle() {
        if (countedIdle) {
            countedIdle = false;
            listener.idle.decrementAndGet();
        }
    }

    private void endInFlight() {
        if (countedInFlight) {
            countedInFlight = false;
            listener.inFlight.decrementAndGet();
        }
    }

    // ---- threads

    private void offLoop(Runnable task) {
        try {
            listener.decisions.execute(task);
        } catch (RejectedExecutionException stopping) {
            ctx.close();
        }
    }

    private void onLoop(Runnable task) {
        try {
            ctx.executor().execute(task);
        } catch (RejectedExecutionException stopped) {
            // the server is stopping; its connections are closed with the loop
        }
    }
}
