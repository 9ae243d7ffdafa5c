package dev.railyard.scheduler.server;

import dev.railyard.scheduler.protocol.WireReply;
import io.netty.buffer.Unpooled;
import io.netty.handler.codec.TooLongFrameException;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpDecoderConfig;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaderValues;
import io.netty.handler.codec.http.HttpHeaders;
import io.netty.handler.codec.http.HttpMessage;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.HttpRequestDecoder;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.handler.codec.http.QueryStringDecoder;
import io.netty.handler.codec.http.TooLongHttpHeaderException;
import io.netty.handler.codec.http.TooLongHttpLineException;

import java.util.List;
import java.util.regex.Pattern;

/**
 * HTTP/1.1 details of {@link HttpConnection}: the request line's version, request targets, transfer codings, and
 * replies as Netty writes them.
 */
final class HttpFraming {
    private HttpFraming() {
    }

    /**
     * Netty's request decoder, with the request line's version checked as the client sent it
     * ({@link #versionRefusal}) before Netty's lenient {@code HttpVersion.valueOf} reads it. A refused version
     * makes the request a decoder failure, answered by {@link #framingFailure} and closed.
     */
    static final class RequestDecoder extends HttpRequestDecoder {
        RequestDecoder(HttpDecoderConfig config) {
            super(config);
        }

        @Override
        protected HttpMessage createMessage(String[] initialLine) throws Exception {
            VersionRefused refused = versionRefusal(initialLine[2]);
            if (refused != null) {
                throw refused;
            }
            return super.createMessage(initialLine);
        }
    }

    /** A request line's version that is not served: {@link #status} 400 or 505 and a one-line reason. */
    static final class VersionRefused extends Exception {
        final int status;

        VersionRefused(int status, String reason) {
            super(reason, null, false, false); // no stack trace: a caller can send these at will
            this.status = status;
        }
    }

    /**
     * RFC 9112 §2.3: {@code HTTP-version = HTTP-name "/" DIGIT "." DIGIT} with {@code HTTP-name = %x48.54.54.50}
     * ("HTTP"), and "HTTP-version is case-sensitive". Netty's {@code HttpVersion.valueOf} upper-cases the token and
     * takes any name and any number of digits, so it would serve {@code http/1.1}, {@code Http/1.0},
     * {@code FOO/1.1} and {@code HTTP/1.01} as HTTP/1.x; here they are not. A token outside the grammar is a
     * malformed request line: 400 (RFC 9112 §2.2). A well-formed version whose major version is not 1
     * ({@code HTTP/2.0}, the HTTP/2 preface's {@code PRI * HTTP/2.0}, {@code HTTP/0.9}) is answered 505 (RFC 9110
     * §15.6.6: the server does not support the major version). Another minor version of 1 ({@code HTTP/1.2}) is
     * served as HTTP/1.1 (RFC 9110 §2.5).
     *
     * @param version the request line's third word as sent
     * @return the refusal, or null when the version is served
     */
    static VersionRefused versionRefusal(String version) {
        if (version.length() != 8 || !version.startsWith("HTTP/") || !isDigit(version.charAt(5))
                || version.charAt(6) != '.' || !isDigit(version.charAt(7))) {
            return new VersionRefused(400, version.isEmpty()
                    ? "malformed request: the request line has no HTTP version (HTTP/0.9 is not served)"
                    : "malformed request: HTTP version \"" + Answer.oneLine(version) + "\" is not HTTP/<digit>.<digit>"
                    + " (RFC 9112 section 2.3: the version is case-sensitive)");
        }
        if (version.charAt(5) != '1') {
            return new VersionRefused(505, version + " is not supported: send HTTP/1.1 (RFC 9110 section 15.6.6)");
        }
        return null;
    }

    private static boolean isDigit(char c) {
        return c >= '0' && c <= '9';
    }

    /** The path of an origin-form or absolute-form target, percent-decoded (as the JDK server's getPath). */
    static String path(String target) {
        String t = target;
        if (t.regionMatches(true, 0, "http://", 0, 7) || t.regionMatches(true, 0, "https://", 0, 8)) {
            int slash = t.indexOf('/', t.indexOf("//") + 2);
            t = slash < 0 ? "/" : t.substring(slash);
        }
        return new QueryStringDecoder(t).path();
    }

    /**
     * RFC 9112 §6.1: a server that receives a transfer coding it does not understand may answer 501; §6.3 rule 4:
     * a request whose final coding is not chunked has no determinable length and must be answered 400 and closed.
     * The verbs need no transfer coding but chunked, so every other list (gzip; gzip, chunked; chunked twice) is a
     * 400 here.
     *
     * @return the one-line reason, or null when the request has no Transfer-Encoding or a single chunked
     */
    static String transferEncodingProblem(HttpHeaders headers) {
        List<String> te = headers.getAll(HttpHeaderNames.TRANSFER_ENCODING);
        if (te.isEmpty() || (te.size() == 1 && te.getFirst().strip().equalsIgnoreCase("chunked"))) {
            return null;
        }
        return "Transfer-Encoding \"" + Answer.oneLine(String.join(", ", te)) + "\" is not supported: send the body "
                + "with Content-Length or Transfer-Encoding: chunked alone (RFC 9112 sections 6.1, 6.3)";
    }

    /**
     * RFC 9110 §8.4: a body with a content coding the server does not apply must not be read as if it had none (a
     * gzip body was parsed as JSON bytes). The verbs take identity bodies only (Go's extender clients send no
     * Content-Encoding), so any other coding is refused here.
     *
     * @return the one-line reason, or null when the request has no Content-Encoding or only {@code identity}
     */
    static String contentEncodingProblem(HttpHeaders headers) {
        List<String> ce = headers.getAll(HttpHeaderNames.CONTENT_ENCODING);
        if (ce.stream().allMatch(v -> v.strip().equalsIgnoreCase("identity"))) {
            return null;
        }
        return "Content-Encoding \"" + Answer.oneLine(String.join(", ", ce)) + "\" is not supported: send the body "
                + "uncompressed (RFC 9110 section 8.4)";
    }

    /** @return the first of {@link #transferEncodingProblem}'s, {@link #contentEncodingProblem}'s and {@link #hostProblem}'s reasons, else null */
    static String headProblem(HttpRequest req) {
        String te = transferEncodingProblem(req.headers());
        if (te != null) {
            return te;
        }
        String ce = contentEncodingProblem(req.headers());
        return ce != null ? ce : hostProblem(req);
    }

    /**
     * RFC 9112 §3.2: a server must answer 400 to an HTTP/1.1 request without a Host header, to any request with
     * more than one, and to one whose Host value is invalid. (Go's net/http, which kube-scheduler's and Volcano's
     * extender clients use, always sends one.)
     *
     * @return the one-line reason, or null when the request's Host header is allowed
     */
    static String hostProblem(HttpRequest req) {
        int hosts = req.headers().getAll(HttpHeaderNames.HOST).size();
        if (hosts > 1) {
            return hosts + " Host headers: send exactly one (RFC 9112 section 3.2)";
        }
        if (hosts == 0 && !HttpVersion.HTTP_1_0.equals(req.protocolVersion())) {
            return "no Host header: an HTTP/1.1 request must have one (RFC 9112 section 3.2)";
        }
        String host = req.headers().get(HttpHeaderNames.HOST);
        if (host != null && !HOST_VALUE.matcher(host).matches()) {
            return "Host header \"" + Answer.oneLine(host) + "\" is not a host[:port] (RFC 9112 section 3.2)";
        }
        return null;
    }

    /**
     * RFC 3986 §3.2.2–3.2.3 {@code uri-host [ ":" port ]}: an IP literal in brackets (with an RFC 6874 zone), or a
     * reg-name (unreserved, percent-encoded and sub-delims characters, which covers IPv4 and DNS names; may be
     * empty), then digits.
     */
    private static final Pattern HOST_VALUE =
            Pattern.compile("(\\[[A-Za-z0-9:.%_~-]+]|[A-Za-z0-9._~!$&'()*+,;=%-]*)(:[0-9]*)?");

    /** The reply with Content-Type, Content-Length, the answer's headers, and Connection as decided. */
    static FullHttpResponse response(Answer a, Exchange e, boolean close) {
        WireReply r = a.reply();
        boolean head = "HEAD".equals(e.method);
        FullHttpResponse resp = new DefaultFullHttpResponse(HttpVersion.HTTP_1_1, HttpResponseStatus.valueOf(r.status()),
                head || r.body().length == 0 ? Unpooled.EMPTY_BUFFER : Unpooled.wrappedBuffer(r.body()));
        HttpHeaders h = resp.headers();
        h.set(HttpHeaderNames.CONTENT_TYPE, r.contentType());
        h.set(HttpHeaderNames.CONTENT_LENGTH, r.body().length);
        a.headers().forEach(h::set);
        if (close) {
            h.set(HttpHeaderNames.CONNECTION, HttpHeaderValues.CLOSE);
        } else if (!e.request.protocolVersion().isKeepAliveDefault()) {
            h.set(HttpHeaderNames.CONNECTION, HttpHeaderValues.KEEP_ALIVE);
        }
        return resp;
    }

    /**
     * The closing answer to a request the decoder refused, counted in {@code metrics}: the 400 or 505 of a refused
     * version ({@link #versionRefusal}), 414 for a request line over {@link Listener#MAX_REQUEST_LINE}, 431 for a
     * header section over {@link Listener#MAX_HEADER_BYTES}, else 400
     * {@code <name>malformed request: <what the decoder found>}.
     *
     * @param name the verb and a colon ({@code "volcano predicate: "}), or empty
     */
    static Answer framingFailure(Throwable cause, String name, ServerMetrics metrics) {
        if (cause instanceof VersionRefused v) {
            metrics.error("http", "framing", v.status == 505 ? "unsupported_version" : "malformed_request");
            return Answer.closing(v.status, v.getMessage());
        }
        if (cause instanceof TooLongHttpLineException) {
            metrics.error("http", "framing", "too_large");
            return Answer.closing(414, "request line longer than " + Listener.MAX_REQUEST_LINE + " bytes");
        }
        if (cause instanceof TooLongHttpHeaderException) {
            metrics.error("http", "framing", "too_large");
            return Answer.closing(431, "request header section longer than " + Listener.MAX_HEADER_BYTES + " bytes");
        }
        if (cause instanceof TooLongFrameException) {
            metrics.error("http", "framing", "too_large");
            return Answer.closing(400, name + "malformed request: " + Answer.oneLine(cause.getMessage()));
        }
        metrics.error("http", "framing", "malformed_request");
        String what = cause.getMessage() == null ? cause.getClass().getSimpleName() : cause.getMessage();
        return Answer.closing(400, name + "malformed request: " + Answer.oneLine(what));
    }
}
