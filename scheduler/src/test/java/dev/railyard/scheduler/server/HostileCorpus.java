package dev.railyard.scheduler.server;

import com.fasterxml.jackson.core.JsonPointer;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.databind.node.TextNode;
import dev.railyard.scheduler.server.HostileEndpoints.Concept;
import dev.railyard.scheduler.server.HostileEndpoints.Endpoint;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.function.Function;

/**
 * The hostile request corpus (issue 16; docs/hostile-input.md): each entry is one attack, applied to every
 * endpoint it fits ({@link HostileEndpoints}), and says what the answer may be. Kinds:
 * <ul>
 *   <li>{@code framing}: lengths, transfer codings, headers, request lines, slow and endless senders;</li>
 *   <li>{@code body}: bytes that are not the JSON an endpoint reads (invalid UTF-8, control bytes, nesting, numbers
 *       and strings over the limits, wrong top-level types, trailing data), the same for every endpoint;</li>
 *   <li>{@code value}: a real captured body with one value replaced: quantities no node could satisfy, names
 *       Kubernetes would not admit, newlines meant to forge log lines, wrong types, duplicate keys.</li>
 * </ul>
 * Entries with an oracle expectation must get a 4xx whenever the endpoint's full parser refuses the body.
 */
final class HostileCorpus {
    private HostileCorpus() {
    }

    /** How a probe is sent. */
    enum Send {
        /** all bytes at once */
        ALL,
        /** the bytes one at a time, 25 ms apart (within the request-read timeout) */
        TRICKLE,
        /** the bytes, then nothing, the connection held open: the server must close it */
        STALL,
        /** the bytes (headers of a chunked request), then 16 KiB chunks until the server answers or closes */
        ENDLESS_CHUNKS
    }

    /**
     * What an answer may be.
     *
     * @param oracle   true: a 4xx is required when the endpoint's full parser refuses {@code body}, any non-5xx
     *                 otherwise
     * @param statuses otherwise: the statuses allowed (besides 405 on GET endpoints)
     * @param closed   whether the server may close the connection without an answer
     * @param no2xx    whether a 2xx is wrong whatever the status list says
     */
    record Expect(boolean oracle, Set<Integer> statuses, boolean closed, boolean no2xx) {
        static Expect byOracle() {
            return new Expect(true, Set.of(), false, false);
        }

        static Expect refused(Integer... statuses) {
            return new Expect(false, Set.of(statuses), false, true);
        }

        static Expect closedOr(Integer... statuses) {
            return new Expect(false, Set.of(statuses), true, true);
        }

        /** The oracle on the body, or the connection closed by the server's HTTP layer. */
        static Expect byOracleOrClosed() {
            return new Expect(true, Set.of(), true, false);
        }
    }

    /**
     * One probe: the raw bytes to send, how, and what the answer may be.
     *
     * @param body the body the oracle judges (for {@link Expect#oracle()}), else null
     */
    record Probe(byte[] bytes, Send send, Expect expect, byte[] body) {
    }

    /** A corpus entry. */
    record Entry(String id, String kind, String what, Function<Endpoint, Optional<Probe>> probe) {
        @Override
        public String toString() {
            return id;
        }
    }

    private static final ObjectMapper JSON = new ObjectMapper();
    /** Written where a value would forge a log line if it were logged raw. */
    static final String FORGED = "FORGED-LOG-LINE";

    static byte[] utf8(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    static byte[] concat(byte[]... parts) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        for (byte[] p : parts) {
            out.writeBytes(p);
        }
        return out.toByteArray();
    }

    /** A complete request with {@code Content-Length} for the endpoint (POST, its extra headers). */
    static byte[] request(Endpoint e, byte[] body) {
        return concat(utf8("POST " + e.path() + " HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
                + e.headers() + "Content-Length: " + body.length + "\r\n\r\n"), body);
    }

    /** A request with the given head lines after the request line (each ending in CRLF), then the raw rest. */
    static byte[] raw(Endpoint e, String requestLine, String headLines, byte[] rest) {
        return concat(utf8(requestLine + "\r\nHost: 127.0.0.1\r\n" + e.headers() + headLines + "\r\n"), rest);
    }

    /** As {@link #raw} without the Host line. */
    static byte[] rawWithoutHost(Endpoint e, String requestLine, String headLines, byte[] rest) {
        return concat(utf8(requestLine + "\r\n" + e.headers() + headLines + "\r\n"), rest);
    }

    private static Entry body(String id, String what, byte[] body) {
        return new Entry(id, "body", what, e -> Optional.of(new Probe(request(e, body), Send.ALL, Expect.byOracle(), body)));
    }

    private static Entry framing(String id, String what, Send send, Expect expect, Function<Endpoint, byte[]> bytes) {
        return new Entry(id, "framing", what, e -> Optional.of(new Probe(bytes.apply(e), send, expect, null)));
    }

    /** The endpoint's base body with the value at a concept's place replaced by raw JSON text (or bytes). */
    private static Entry value(String id, String what, Concept concept, String suffix, byte[] rawJson) {
        return new Entry(id, "value", what, e -> replaced(e, concept, suffix, rawJson)
                .map(b -> new Probe(request(e, b), Send.ALL, Expect.byOracle(), b)));
    }

    private static Entry value(String id, String what, Concept concept, String suffix, String rawJson) {
        return value(id, what, concept, suffix, utf8(rawJson));
    }

    /** The base body with a key inserted first in the object at a concept's place (a duplicate when it exists). */
    private static Entry duplicate(String id, String what, Concept concept, String keyAndValue) {
        return new Entry(id, "value", what, e -> inserted(e, concept, keyAndValue)
                .map(b -> new Probe(request(e, b), Send.ALL, Expect.byOracle(), b)));
    }

    private static final String PLACEHOLDER = "@@railyard-corpus-placeholder@@";

    static Optional<byte[]> replaced(Endpoint e, Concept concept, String suffix, byte[] rawJson) {
        String at = e.places().get(concept);
        if (at == null) {
            return Optional.empty();
        }
        try {
            JsonNode tree = JSON.readTree(e.base());
            JsonPointer p = JsonPointer.compile(at + suffix);
            JsonNode parent = tree.at(p.head());
            String last = p.last().getMatchingProperty();
            if (parent instanceof ObjectNode o) {
                o.set(last, TextNode.valueOf(PLACEHOLDER));
            } else if (parent instanceof ArrayNode a && p.last().getMatchingIndex() >= 0
                    && p.last().getMatchingIndex() < a.size()) {
                a.set(p.last().getMatchingIndex(), TextNode.valueOf(PLACEHOLDER));
            } else {
                return Optional.empty();
            }
            byte[] text = JSON.writeValueAsBytes(tree);
            return Optional.of(splice(text, utf8("\"" + PLACEHOLDER + "\""), rawJson));
        } catch (IOException ex) {
            throw new UncheckedIOException(ex);
        }
    }

    private static Optional<byte[]> inserted(Endpoint e, Concept concept, String keyAndValue) {
        String at = concept == null ? "" : e.places().get(concept);
        if (at == null) {
            return Optional.empty();
        }
        try {
            JsonNode tree = JSON.readTree(e.base());
            JsonNode target = tree.at(at.isEmpty() ? JsonPointer.empty() : JsonPointer.compile(at));
            if (!(target instanceof ObjectNode o)) {
                return Optional.empty();
            }
            String mark = PLACEHOLDER + "-key";
            boolean empty = o.isEmpty();
            ObjectNode copy = JSON.createObjectNode();
            copy.put(mark, 0);
            copy.setAll(o);
            o.removeAll();
            o.setAll(copy);
            byte[] text = JSON.writeValueAsBytes(tree);
            return Optional.of(empty ? splice(text, utf8("\"" + mark + "\":0"), utf8(keyAndValue))
                    : splice(text, utf8("\"" + mark + "\":0,"), utf8(keyAndValue + ",")));
        } catch (IOException ex) {
            throw new UncheckedIOException(ex);
        }
    }

    private static byte[] splice(byte[] text, byte[] find, byte[] with) {
        String s = new String(text, StandardCharsets.ISO_8859_1);
        int i = s.indexOf(new String(find, StandardCharsets.ISO_8859_1));
        if (i < 0) {
            throw new IllegalStateException("placeholder not found");
        }
        return concat(java.util.Arrays.copyOf(text, i), with, java.util.Arrays.copyOfRange(text, i + find.length, text.length));
    }

    private static final String GPU = "/spec/containers/0/resources/requests/nvidia.com~1gpu";

    /** The corpus. */
    static List<Entry> entries() {
        List<Entry> out = new ArrayList<>();
        framingEntries(out);
        framingLines(out);
        bodyEntries(out);
        quantityEntries(out);
        nameEntries(out);
        typeAndDuplicateEntries(out);
        return out;
    }

    /** Declared lengths and transfer codings. */
    private static void framingEntries(List<Entry> out) {
        Expect jdk400 = Expect.refused(400);
        out.add(framing("cl-negative", "Content-Length: -5", Send.ALL, jdk400,
                e -> raw(e, "POST " + e.path() + " HTTP/1.1", "Content-Length: -5\r\n", new byte[0])));
        out.add(framing("cl-not-a-number", "Content-Length: abc", Send.ALL, jdk400,
                e -> raw(e, "POST " + e.path() + " HTTP/1.1", "Content-Length: abc\r\n", new byte[0])));
        out.add(framing("cl-hex", "Content-Length: 0x2", Send.ALL, jdk400,
                e -> raw(e, "POST " + e.path() + " HTTP/1.1", "Content-Length: 0x2\r\n", utf8("{}"))));
        out.add(framing("cl-beyond-long", "Content-Length of 23 digits", Send.ALL, jdk400,
                e -> raw(e, "POST " + e.path() + " HTTP/1.1", "Content-Length: 99999999999999999999999\r\n", new byte[0])));
        out.add(framing("cl-huge-declared", "Content-Length: 9223372036854775807, nothing sent",
                Send.ALL, Expect.closedOr(413),
                e -> raw(e, "POST " + e.path() + " HTTP/1.1", "Content-Length: 9223372036854775807\r\n", new byte[0])));
        out.add(framing("cl-over-limit", "Content-Length one byte over the 1 MiB limit, nothing sent", Send.ALL,
                Expect.closedOr(413), e -> raw(e, "POST " + e.path() + " HTTP/1.1",
                        "Content-Length: " + (HostileServerMain.LIMIT + 1) + "\r\n", new byte[0])));
        out.add(framing("cl-twice", "two Content-Length headers", Send.ALL, jdk400,
                e -> raw(e, "POST " + e.path() + " HTTP/1.1", "Content-Length: 2\r\nContent-Length: 3\r\n", utf8("{}"))));
        out.add(framing("cl-and-chunked", "Content-Length and Transfer-Encoding: chunked (request smuggling)",
                Send.ALL, jdk400, e -> raw(e, "POST " + e.path() + " HTTP/1.1",
                        "Content-Length: 5\r\nTransfer-Encoding: chunked\r\n", utf8("0\r\n\r\n"))));
        // RFC 9112 §6.3 rule 4: a request whose final transfer coding is not chunked has no determinable length:
        // 400 and close (docs/hostile-input.md, "HTTP framing"; the JDK server answered 501 here)
        out.add(framing("te-gzip", "Transfer-Encoding: gzip", Send.ALL, Expect.refused(400),
                e -> raw(e, "POST " + e.path() + " HTTP/1.1", "Transfer-Encoding: gzip\r\n", utf8("{}"))));
        out.add(framing("te-gzip-chunked", "Transfer-Encoding: gzip, chunked", Send.ALL, Expect.refused(400),
                e -> raw(e, "POST " + e.path() + " HTTP/1.1", "Transfer-Encoding: gzip, chunked\r\n",
                        utf8("2\r\n{}\r\n0\r\n\r\n"))));
        // RFC 9110 §8.4: a gzip body was parsed as if it had no coding (found by an attacker review); refused with
        // the coding named. `identity` stays allowed.
        out.add(framing("ce-gzip", "Content-Encoding: gzip", Send.ALL, Expect.refused(400),
                e -> raw(e, "POST " + e.path() + " HTTP/1.1", "Content-Encoding: gzip\r\nContent-Length: 2\r\n",
                        utf8("{}"))));
        out.add(framing("te-chunked-twice", "Transfer-Encoding: chunked on two header lines", Send.ALL,
                Expect.refused(400), e -> raw(e, "POST " + e.path() + " HTTP/1.1",
                        "Transfer-Encoding: chunked\r\nTransfer-Encoding: chunked\r\n", utf8("2\r\n{}\r\n0\r\n\r\n"))));
        out.add(framing("chunk-size-not-hex", "chunk size 'zz'", Send.ALL, Expect.closedOr(400),
                e -> raw(e, "POST " + e.path() + " HTTP/1.1", "Transfer-Encoding: chunked\r\n", utf8("zz\r\n{}\r\n0\r\n\r\n"))));
        out.add(framing("chunk-size-huge", "chunk size FFFFFFFFFFFFFFFF", Send.ALL, Expect.closedOr(400, 413),
                e -> raw(e, "POST " + e.path() + " HTTP/1.1", "Transfer-Encoding: chunked\r\n", utf8("FFFFFFFFFFFFFFFF\r\n{}"))));
        out.add(framing("chunked-endless", "a chunked body that never ends (16 KiB chunks until the server stops it)",
                Send.ENDLESS_CHUNKS, Expect.closedOr(413),
                e -> raw(e, "POST " + e.path() + " HTTP/1.1", "Transfer-Encoding: chunked\r\n", new byte[0])));
        out.add(new Entry("chunked-valid", "framing", "the valid body sent chunked in 7-byte chunks",
                e -> Optional.of(new Probe(raw(e, "POST " + e.path() + " HTTP/1.1", "Transfer-Encoding: chunked\r\n",
                        chunked(e.base(), 7)), Send.ALL, Expect.byOracle(), e.base()))));
    }

    /** Headers, request lines, paths, methods and senders that stall, trickle or never stop. */
    private static void framingLines(List<Entry> out) {
        out.add(new Entry("headers-300", "framing", "300 request headers",
                e -> Optional.of(new Probe(raw(e, "POST " + e.path() + " HTTP/1.1", manyHeaders(300)
                        + "Content-Length: 2\r\n", utf8("{}")), Send.ALL, Expect.byOracleOrClosed(), utf8("{}")))));
        out.add(new Entry("header-1mib", "framing", "one header of 1 MiB",
                e -> Optional.of(new Probe(raw(e, "POST " + e.path() + " HTTP/1.1", "X-Flood: " + "a".repeat(1 << 20)
                        + "\r\nContent-Length: 2\r\n", utf8("{}")), Send.ALL, Expect.byOracleOrClosed(), utf8("{}")))));
        out.add(framing("request-line-garbage", "a request line that is not HTTP", Send.ALL, Expect.closedOr(400),
                e -> utf8("GARBAGE\r\n\r\n")));
        out.add(framing("request-line-64k-path", "a 64 KiB path", Send.ALL, Expect.closedOr(400, 404, 414),
                e -> raw(e, "POST " + e.path() + "/" + "a".repeat(1 << 16) + " HTTP/1.1", "Content-Length: 2\r\n", utf8("{}"))));
        out.add(framing("header-name-space", "a header name with a space", Send.ALL, Expect.refused(400),
                e -> raw(e, "POST " + e.path() + " HTTP/1.1", "Bad Header: 1\r\nContent-Length: 2\r\n", utf8("{}"))));
        out.add(new Entry("header-control-bytes", "framing", "a header value with control bytes",
                e -> Optional.of(new Probe(raw(e, "POST " + e.path() + " HTTP/1.1", "X-Ctl: a\u0001\u001b[31mb\r\n"
                        + "Content-Length: 2\r\n", utf8("{}")), Send.ALL, Expect.byOracleOrClosed(), utf8("{}")))));
        out.add(framing("method-lowercase", "method 'post'", Send.ALL, Expect.refused(405),
                e -> raw(e, "post " + e.path() + " HTTP/1.1", "Content-Length: 2\r\n", utf8("{}"))));
        out.add(framing("method-get", "GET on every endpoint", Send.ALL, new Expect(false, Set.of(200, 405, 503), false, false),
                e -> raw(e, "GET " + e.path() + " HTTP/1.1", "", new byte[0])));
        out.add(framing("method-delete", "DELETE", Send.ALL, Expect.refused(405),
                e -> raw(e, "DELETE " + e.path() + " HTTP/1.1", "", new byte[0])));
        out.add(framing("path-nul", "the path with %00 appended", Send.ALL, Expect.refused(404),
                e -> raw(e, "POST " + e.path() + "%00 HTTP/1.1", "Content-Length: 2\r\n", utf8("{}"))));
        out.add(framing("path-newline", "the path with %0aFORGED appended (a log line through the URL)", Send.ALL,
                Expect.refused(404), e -> raw(e, "POST " + e.path() + "%0a" + FORGED + " HTTP/1.1", "Content-Length: 2\r\n",
                        utf8("{}"))));
        out.add(framing("path-dot-dot", "/x/../ in front of the path", Send.ALL, Expect.refused(404),
                e -> raw(e, "POST /x/.." + e.path() + " HTTP/1.1", "Content-Length: 2\r\n", utf8("{}"))));
        out.add(new Entry("absolute-uri", "framing", "absolute-form request target http://evil/...",
                e -> Optional.of(new Probe(raw(e, "POST http://evil" + e.path() + " HTTP/1.1",
                        "Content-Type: application/json\r\nContent-Length: " + e.base().length + "\r\n", e.base()),
                        Send.ALL, Expect.byOracle(), e.base()))));
        // RFC 9112 §3.2: 400 to an HTTP/1.1 request without Host and to any request with two; HTTP/1.0 needs none
        out.add(framing("host-missing", "an HTTP/1.1 request without a Host header", Send.ALL, Expect.refused(400),
                e -> rawWithoutHost(e, "POST " + e.path() + " HTTP/1.1", "Content-Length: 2\r\n", utf8("{}"))));
        out.add(framing("host-twice", "two Host headers", Send.ALL, Expect.refused(400),
                e -> raw(e, "POST " + e.path() + " HTTP/1.1", "Host: evil\r\nContent-Length: 2\r\n", utf8("{}"))));
        out.add(framing("host-invalid", "a Host value that is no host[:port] ('a b')", Send.ALL, Expect.refused(400),
                e -> rawWithoutHost(e, "POST " + e.path() + " HTTP/1.1", "Host: a b\r\nContent-Length: 2\r\n",
                        utf8("{}"))));
        out.add(new Entry("host-missing-http-1-0", "framing", "an HTTP/1.0 request without a Host header",
                e -> Optional.of(new Probe(rawWithoutHost(e, "POST " + e.path() + " HTTP/1.0",
                        "Content-Type: application/json\r\nContent-Length: " + e.base().length + "\r\n", e.base()),
                        Send.ALL, Expect.byOracle(), e.base()))));
        // RFC 9110 §15.6.6: 505 for a major version other than 1; RFC 9112 §2.3: the version is case-sensitive
        out.add(framing("http-2-0-line", "request line HTTP/2.0 over HTTP/1", Send.ALL, Expect.refused(505),
                e -> raw(e, "POST " + e.path() + " HTTP/2.0", "Content-Length: " + e.base().length + "\r\n", e.base())));
        out.add(framing("http-version-lowercase", "request line version http/1.1", Send.ALL, Expect.refused(400),
                e -> raw(e, "POST " + e.path() + " http/1.1", "Content-Length: " + e.base().length + "\r\n", e.base())));
        out.add(framing("http-version-junk", "request line version HTTP/1.1x", Send.ALL, Expect.refused(400),
                e -> raw(e, "POST " + e.path() + " HTTP/1.1x", "Content-Length: " + e.base().length + "\r\n", e.base())));
        out.add(framing("http-0-9", "an HTTP/0.9 request line", Send.ALL, Expect.closedOr(400, 405, 505),
                e -> utf8("GET " + e.path() + "\r\n\r\n")));
        out.add(new Entry("expect-100", "framing", "Expect: 100-continue, then the body",
                e -> Optional.of(new Probe(raw(e, "POST " + e.path() + " HTTP/1.1", "Expect: 100-continue\r\nContent-Length: "
                        + e.base().length + "\r\n", e.base()), Send.ALL, Expect.byOracle(), e.base()))));
        out.add(framing("body-shorter-than-declared", "Content-Length 1000, 2 bytes sent, then close", Send.ALL,
                Expect.closedOr(400), e -> raw(e, "POST " + e.path() + " HTTP/1.1", "Content-Length: 1000\r\n", utf8("{}"))));
        out.add(framing("slow-headers", "half the headers, then silence (slow loris)", Send.STALL, Expect.closedOr(),
                e -> utf8("POST " + e.path() + " HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: 1")));
        out.add(framing("slow-body", "headers and half the body, then silence", Send.STALL, Expect.closedOr(400),
                e -> raw(e, "POST " + e.path() + " HTTP/1.1", "Content-Length: 64\r\n", utf8("{\"task\":"))));
        out.add(new Entry("trickle", "framing", "the valid body one byte every 25 ms (finishes within the timeout)",
                e -> Optional.of(new Probe(request(e, TRICKLE_BODY), Send.TRICKLE, Expect.byOracle(), TRICKLE_BODY))));
        out.add(framing("empty-line-only", "an empty line and nothing else", Send.ALL, Expect.closedOr(400),
                e -> utf8("\r\n\r\n")));
    }

    /** A short body to trickle: small enough to arrive within the 2 s request-read timeout one byte at a time. */
    private static final byte[] TRICKLE_BODY = utf8("{\"task\":null}");

    private static byte[] chunked(byte[] body, int size) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        for (int i = 0; i < body.length; i += size) {
            int n = Math.min(size, body.length - i);
            out.writeBytes(utf8(Integer.toHexString(n) + "\r\n"));
            out.write(body, i, n);
            out.writeBytes(utf8("\r\n"));
        }
        out.writeBytes(utf8("0\r\n\r\n"));
        return out.toByteArray();
    }

    private static String manyHeaders(int n) {
        StringBuilder sb = new StringBuilder();
        for (int i = 0; i < n; i++) {
            sb.append("X-H").append(i).append(": v\r\n");
        }
        return sb.toString();
    }

    private static void bodyEntries(List<Entry> out) {
        out.add(body("empty", "a 0-byte body", new byte[0]));
        out.add(body("whitespace", "only whitespace", utf8(" \r\n\t ")));
        out.add(body("nul-bytes", "16 NUL bytes", new byte[16]));
        out.add(body("utf8-overlong", "an overlong UTF-8 quote (C0 A2) in a key", concat(utf8("{\""), new byte[]{(byte) 0xc0, (byte) 0xa2}, utf8("\":1}"))));
        out.add(body("utf8-lone-continuation", "a lone continuation byte in a string", concat(utf8("{\"a\":\""), new byte[]{(byte) 0x80}, utf8("\"}"))));
        out.add(body("utf8-truncated", "a truncated 4-byte sequence at the end", concat(utf8("{\"a\":\""), new byte[]{(byte) 0xf0, (byte) 0x9f})));
        out.add(body("utf8-f5", "byte F5 (never valid in UTF-8)", concat(utf8("{\"a\":\""), new byte[]{(byte) 0xf5, (byte) 0x80, (byte) 0x80, (byte) 0x80}, utf8("\"}"))));
        out.add(body("utf8-surrogate", "an encoded UTF-16 surrogate (ED A0 80)", concat(utf8("{\"a\":\""), new byte[]{(byte) 0xed, (byte) 0xa0, (byte) 0x80}, utf8("\"}"))));
        out.add(body("utf16-body", "the body in UTF-16LE", "{\"task\":null}".getBytes(StandardCharsets.UTF_16LE)));
        out.add(body("bom-then-object", "a UTF-8 byte-order mark before the object", concat(new byte[]{(byte) 0xef, (byte) 0xbb, (byte) 0xbf}, utf8("{}"))));
        out.add(body("control-byte-in-string", "a raw ESC byte inside a string", utf8("{\"a\":\"x\u001b[2Jy\"}")));
        out.add(body("newline-in-key", "a raw newline inside a key", utf8("{\"a\nFORGED\":1}")));
        out.add(body("bad-escape", "the escape \\x in a string", utf8("{\"a\":\"\\x41\"}")));
        out.add(body("lone-surrogate-escape", "\\ud800 in a key", utf8("{\"\\ud800\":1}")));
        out.add(body("nesting-129-arrays", "129 nested arrays", utf8("[".repeat(129) + "]".repeat(129))));
        out.add(body("nesting-1000-objects", "1,000 nested objects", utf8("{\"a\":".repeat(1000) + "1" + "}".repeat(1000))));
        out.add(body("nesting-100000-unclosed", "100,000 opening brackets, never closed", utf8("[".repeat(100_000))));
        out.add(body("number-100000-digits", "a number of 100,000 digits", utf8("{\"a\":" + "9".repeat(100_000) + "}")));
        out.add(body("number-exponent-huge", "the number 1e999999999", utf8("{\"a\":1e999999999}")));
        out.add(body("number-leading-zero", "the number 01", utf8("{\"a\":01}")));
        out.add(body("number-nan", "NaN", utf8("{\"a\":NaN}")));
        out.add(body("number-minus-only", "a lone minus sign", utf8("{\"a\":-}")));
        out.add(body("string-500k", "a 500,000-character string value", utf8("{\"a\":\"" + "x".repeat(500_000) + "\"}")));
        out.add(body("key-60k", "a 60,000-character key (over Jackson's 50,000)", utf8("{\"" + "k".repeat(60_000) + "\":1}")));
        out.add(body("keys-50000", "an object with 50,000 keys", manyKeys(50_000)));
        out.add(body("top-array", "a JSON array instead of an object", utf8("[1,2,3]")));
        out.add(body("top-string", "a JSON string instead of an object", utf8("\"task\"")));
        out.add(body("top-null", "JSON null", utf8("null")));
        out.add(body("top-number", "a number", utf8("42")));
        out.add(body("two-objects", "two objects back to back", utf8("{}{}")));
        out.add(new Entry("trailing-garbage", "body", "the valid body followed by 'x'",
                e -> Optional.of(concat(e.base(), utf8("x"))).map(b -> new Probe(request(e, b), Send.ALL, Expect.byOracle(), b))));
        out.add(new Entry("trailing-second-object", "body", "the valid body followed by a second object",
                e -> Optional.of(concat(e.base(), utf8("{}"))).map(b -> new Probe(request(e, b), Send.ALL, Expect.byOracle(), b))));
        out.add(new Entry("truncated-half", "body", "the valid body cut in half",
                e -> Optional.of(java.util.Arrays.copyOf(e.base(), e.base().length / 2))
                        .map(b -> new Probe(request(e, b), Send.ALL, Expect.byOracle(), b))));
        out.add(body("comment", "a /* comment */", utf8("{/* c */}")));
        out.add(body("single-quotes", "single-quoted keys", utf8("{'task':null}")));
        out.add(body("unterminated-string", "an unterminated string", utf8("{\"a\":\"abc")));
        out.add(body("dup-top-key", "one top-level key twice", utf8("{\"task\":null,\"task\":null}")));
    }

    private static byte[] manyKeys(int n) {
        StringBuilder sb = new StringBuilder("{");
        for (int i = 0; i < n; i++) {
            sb.append(i == 0 ? "" : ",").append("\"k").append(i).append("\":0");
        }
        return utf8(sb.append('}').toString());
    }

    private static void quantityEntries(List<Entry> out) {
        String[][] gpu = {
                {"gpu-1e999999999", "\"1e999999999\"", "an exponent no node could satisfy (was 500: ArithmeticException)"},
                {"gpu-1e-999999999", "\"1e-999999999\"", "a negative exponent of a billion (was 500)"},
                {"gpu-30-nines", "\"999999999999999999999999999999\"", "30 nines (was 500)"},
                {"gpu-1e9999999", "\"1e9999999\"", "1e9999999, which kube-apiserver admits (was 3.8 s of CPU)"},
                {"gpu-2147483649", "\"2147483649\"", "2^31 + 1 GPUs (was 500: negative GPU count)"},
                {"gpu-4294967304", "\"4294967304\"", "2^32 + 8 GPUs (was judged as 8 by an int cast)"},
                {"gpu-2pow63", "\"9223372036854775808\"", "2^63"},
                {"gpu-8Ei", "\"8Ei\"", "8Ei = 2^63"},
                {"gpu-negative", "\"-1\"", "a negative count"},
                {"gpu-words", "\"lots\"", "not a quantity"},
                {"gpu-empty", "\"\"", "an empty quantity"},
                {"gpu-space", "\" 8\"", "a leading space"},
                {"gpu-newline", "\"8\\nFORGED-LOG-LINE\"", "a newline and a forged log line"},
                {"gpu-65-chars", "\"" + "0".repeat(64) + "8\"", "65 characters"},
                {"gpu-number", "8", "a JSON number instead of a string"},
                {"gpu-exponent-overflow", "\"1e4294967296\"", "an exponent past int32 (Kubernetes would wrap it to 1)"},
                {"gpu-fraction-tiny", "\"0.0000000001\"", "below 1n"},
                {"gpu-1.5", "\"1.5\"", "a fraction of a GPU"},
        };
        for (String[] g : gpu) {
            out.add(value(g[0], "nvidia.com/gpu " + g[2], Concept.POD, GPU, g[1]));
        }
        out.add(value("overhead-huge", "spec.overhead cpu 1e999999999", Concept.POD, "/spec/overhead",
                "{\"cpu\":\"1e999999999\"}"));
        out.add(value("two-containers-over-cap", "two containers of 2^31-1 GPUs each (2^32-2 in all)", Concept.POD,
                "/spec/containers", "[{\"name\":\"a\",\"resources\":{\"requests\":{\"nvidia.com/gpu\":\"2147483647\"}}},"
                        + "{\"name\":\"b\",\"resources\":{\"requests\":{\"nvidia.com/gpu\":\"2147483647\"}}}]"));
        out.add(value("init-container-huge", "an init container with 1e19 mlx5_0 devices", Concept.POD,
                "/spec/initContainers", "[{\"name\":\"i\",\"resources\":{\"requests\":{\"nvidia.com/mlx5_0\":\"1e19\"}}}]"));
        out.add(value("memory-max", "memory 9223372036854775807 (exactly the bound, admitted)", Concept.POD,
                "/spec/containers/0/resources/requests/memory", "\"9223372036854775807\""));
    }

    private static void nameEntries(List<Entry> out) {
        String[][] podNames = {
                {"pod-name-markup", "\"a<b>&c\"", "a<b>&c (bind was 500: the API URL was concatenated)"},
                {"pod-name-newline", "\"p\\nFORGED-LOG-LINE p\"", "a newline and a forged log line"},
                {"pod-name-cr", "\"p\\rFORGED-LOG-LINE\"", "a carriage return"},
                {"pod-name-upper", "\"Rdma\"", "upper case"},
                {"pod-name-empty", "\"\"", "empty"},
                {"pod-name-254", "\"" + "a".repeat(254) + "\"", "254 characters"},
                {"pod-name-slash", "\"../../nodes/x\"", "a path"},
                {"pod-name-unicode", "\"pöd\"", "non-ASCII"},
                {"pod-name-nul", "\"p\\u0000q\"", "a NUL"},
                {"pod-name-number", "7", "a number"},
        };
        for (String[] n : podNames) {
            out.add(value(n[0], "pod name " + n[2], Concept.POD_NAME, "", n[1]));
        }
        String[][] namespaces = {
                {"namespace-underscore", "\"kube_system\"", "with an underscore"},
                {"namespace-64", "\"" + "n".repeat(64) + "\"", "64 characters (labels stop at 63)"},
                {"namespace-newline", "\"prod\\nFORGED-LOG-LINE\"", "a newline and a forged log line"},
                {"namespace-dots", "\"a.b\"", "a dot (a namespace is a label, not a subdomain)"},
        };
        for (String[] n : namespaces) {
            out.add(value(n[0], "namespace " + n[2], Concept.NAMESPACE, "", n[1]));
        }
        String[][] nodes = {
                {"node-name-newline", "\"gpu-a1\\nFORGED-LOG-LINE\"", "a newline and a forged log line"},
                {"node-name-markup", "\"n<script>\"", "markup"},
                {"node-name-empty", "\"\"", "empty"},
                {"node-name-254", "\"" + "n".repeat(254) + "\"", "254 characters"},
                {"node-name-escape", "\"gpu\\u002da1\"", "an escaped hyphen (a valid name once decoded)"},
                {"node-name-esc-byte", "\"gpu\\u001b[31m\"", "an ANSI escape"},
                {"node-name-number", "1", "a number"},
                {"node-name-null", "null", "null"},
        };
        for (String[] n : nodes) {
            out.add(value(n[0], "node name " + n[2], Concept.NODE_NAME, "", n[1]));
        }
        out.add(new Entry("task-key-newline", "value", "a Tasks key holding a newline and a forged log line",
                e -> renamedKey(e, Concept.TASK_KEY, "uid\\nFORGED-LOG-LINE").map(b -> new Probe(request(e, b), Send.ALL,
                        Expect.byOracle(), b))));
        out.add(new Entry("task-key-huge", "value", "a 10,000-character Tasks key",
                e -> renamedKey(e, Concept.TASK_KEY, "k".repeat(10_000)).map(b -> new Probe(request(e, b), Send.ALL,
                        Expect.byOracle(), b))));
        out.add(value("label-newline", "a label value with a newline and a forged log line", Concept.LABELS, "",
                "{\"app\":\"x\\nFORGED-LOG-LINE\"}"));
        out.add(value("labels-number", "labels holding a number", Concept.LABELS, "", "{\"app\":1}"));
        out.add(value("group-annotation-newline", "the Volcano group-name annotation with a newline", Concept.POD,
                "/metadata/annotations", "{\"scheduling.k8s.io/group-name\":\"pg\\nFORGED-LOG-LINE\"}"));
    }

    private static Optional<byte[]> renamedKey(Endpoint e, Concept concept, String newKeyJson) {
        String at = e.places().get(concept);
        if (at == null) {
            return Optional.empty();
        }
        JsonPointer p = JsonPointer.compile(at);
        String oldKey = p.last().getMatchingProperty();
        String text = new String(e.base(), StandardCharsets.UTF_8);
        int i = text.indexOf("\"" + oldKey + "\":");
        return i < 0 ? Optional.empty() : Optional.of(utf8(text.substring(0, i) + "\"" + newKeyJson + "\""
                + text.substring(i + oldKey.length() + 2)));
    }

    private static void typeAndDuplicateEntries(List<Entry> out) {
        out.add(duplicate("dup-key-top", "a top-level key of the request twice", null, "\"x\":1,\"x\":2"));
        out.add(duplicate("dup-pod-name", "metadata.name twice (Go would take the last)", Concept.POD, "\"metadata\":{\"name\":\"other\",\"namespace\":\"prod\"}"));
        out.add(duplicate("dup-requests", "the requests map given twice", Concept.POD,
                "\"spec\":{\"containers\":[{\"name\":\"c\",\"resources\":{\"requests\":{\"nvidia.com/gpu\":\"1\"}}}]}"));
        out.add(duplicate("dup-labels-key", "a label given twice", Concept.LABELS, "\"app\":\"a\",\"app\":\"b\""));
        out.add(duplicate("dup-gpu-request", "nvidia.com/gpu twice in one requests map", Concept.POD,
                "\"x\":{\"requests\":{\"nvidia.com/gpu\":\"1\",\"nvidia.com/gpu\":\"8\"}}"));
        out.add(new Entry("dup-node-info-name", "value", "Name twice in a NodeInfo (first \"a\", then the real one)",
                e -> inNodeInfo(e, "\"Name\":\"a\",")));
        out.add(new Entry("node-before-name-bad-type", "value", "Node with metadata.name 5 before Name in a NodeInfo",
                e -> inNodeInfo(e, "\"Node\":{\"metadata\":{\"name\":5}},")));
        out.add(new Entry("node-info-invalid-utf8", "value", "invalid UTF-8 inside a skipped NodeInfo value",
                e -> inNodeInfoBytes(e, concat(utf8("\"Junk\":\""), new byte[]{(byte) 0xc3, (byte) 0x28}, utf8("\",")))));
        out.add(new Entry("node-info-control-byte", "value", "a raw control byte inside a skipped NodeInfo string",
                e -> inNodeInfoBytes(e, utf8("\"Junk\":\"a\u0001b\","))));
        out.add(new Entry("node-info-bad-token", "value", "an invalid token (tru) inside a skipped NodeInfo value",
                e -> inNodeInfo(e, "\"Junk\":[tru],")));
        out.add(value("pod-as-array", "the Pod as an array", Concept.POD, "", "[]"));
        out.add(value("pod-null", "the Pod as null", Concept.POD, "", "null"));
        out.add(value("containers-object", "containers as an object", Concept.POD, "/spec/containers", "{}"));
        out.add(value("requests-array", "requests as an array", Concept.POD, "/spec/containers/0/resources/requests", "[]"));
        out.add(value("status-string", "Status as a string", Concept.POD, "/status", "\"Running\""));
    }

    /** The endpoint's body with {@code text} inserted first in its (first) NodeInfo; Volcano node bodies only. */
    private static Optional<Probe> inNodeInfo(Endpoint e, String text) {
        return inNodeInfoBytes(e, utf8(text));
    }

    private static Optional<Probe> inNodeInfoBytes(Endpoint e, byte[] bytes) {
        String key = e.path().endsWith("/predicate") ? "\"node\":{" : e.path().endsWith("/prioritize")
                && e.path().startsWith("/volcano") ? "\"nodes\":[{" : null;
        if (key == null) {
            return Optional.empty();
        }
        String text = new String(e.base(), StandardCharsets.ISO_8859_1);
        int i = text.indexOf(key);
        if (i < 0) {
            return Optional.empty();
        }
        int at = i + key.length();
        byte[] b = concat(java.util.Arrays.copyOf(e.base(), at), bytes, java.util.Arrays.copyOfRange(e.base(), at, e.base().length));
        return Optional.of(new Probe(request(e, b), Send.ALL, Expect.byOracle(), b));
    }
}
