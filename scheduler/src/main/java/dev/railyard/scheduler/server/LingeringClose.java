package dev.railyard.scheduler.server;

import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.socket.DuplexChannel;
import io.netty.handler.ssl.SslHandler;
import io.netty.util.ReferenceCountUtil;
import io.netty.util.concurrent.ScheduledFuture;

import java.time.Duration;
import java.util.concurrent.TimeUnit;

/**
 * How a connection ends after a reply that closes it (RFC 9112 §9.6, "tear-down"): the server half-closes (TLS
 * {@code close_notify}, then TCP FIN after the reply), then reads and drops whatever the client still sends until
 * the client closes, for at most {@link #TIME} and {@link #BYTES}, and only then closes.
 *
 * <p>Why: a reply made before the request's body was read to its end (413 over the size limit, a framing 400) leaves
 * the client still writing. A full close with bytes unread makes the kernel answer with a TCP reset, and a client
 * that is still writing sees "broken pipe" or "connection reset" and never reads the reply it was sent (Go's
 * net/http and the JDK's HttpClient both report the write error). Lingering costs a hostile client's worth of
 * reading at most: {@code BYTES} dropped within {@code TIME}, then the close.
 *
 * <p>Installed first in the pipeline once the closing reply is written, on the connection's event loop: from then
 * on no byte reaches the TLS handler, the decoder or the exchange, and {@code BYTES} counts bytes off the wire.
 */
final class LingeringClose extends ChannelInboundHandlerAdapter {
    /** Longest time a connection lingers after its closing reply (Apache httpd's lingering close uses 2 s). */
    static final Duration TIME = Duration.ofSeconds(2);
    /** Bytes dropped at most while lingering; past it, close at once. */
    static final long BYTES = 1 << 20;
    private static final String NAME = "lingering-close";

    private long dropped;
    private ScheduledFuture<?> deadline;

    private LingeringClose() {
    }

    /**
     * Starts the lingering close of {@code ctx}'s channel: must run on its event loop after the closing reply's
     * write succeeded.
     *
     * @param ctx a context of the connection's pipeline
     * @param ssl the connection's TLS handler, or null on a plain listener
     */
    static void begin(ChannelHandlerContext ctx, SslHandler ssl) {
        Channel ch = ctx.channel();
        if (!ch.isActive() || ch.pipeline().get(NAME) != null) {
            return;
        }
        if (!(ch instanceof DuplexChannel duplex)) {
            ch.close();
            return;
        }
        LingeringClose drop = new LingeringClose();
        // first in the pipeline: the bytes counted and dropped are the wire's, never decrypted (a TLS record of
        // one byte padded to 16 KiB would count as one byte after the TLS handler, and cost its decryption)
        ch.pipeline().addFirst(NAME, drop);
        drop.deadline = ch.eventLoop().schedule(() -> ch.close(), TIME.toNanos(), TimeUnit.NANOSECONDS);
        ch.closeFuture().addListener(f -> drop.deadline.cancel(false));
        if (ssl != null) {
            ssl.closeOutbound().addListener(f -> shutdownOutput(duplex));
        } else {
            shutdownOutput(duplex);
        }
        ch.config().setAutoRead(true);
    }

    private static void shutdownOutput(DuplexChannel ch) {
        if (ch.isActive()) {
            ch.shutdownOutput().addListener(ChannelFutureListener.CLOSE_ON_FAILURE);
        }
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        if (msg instanceof ByteBuf b) { // first in the pipeline: only the socket's buffers arrive here
            dropped += b.readableBytes();
        }
        ReferenceCountUtil.release(msg);
        if (dropped > BYTES) {
            ctx.close();
        }
    }

    @Override
    public void channelReadComplete(ChannelHandlerContext ctx) {
        // not passed on: the exchange behind would stop the reads this handler wants
    }
}
