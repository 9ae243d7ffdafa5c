package dev.railyard.scheduler.protocol;

import com.fasterxml.jackson.core.JsonEncoding;
import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonFactoryBuilder;
import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.JsonLocation;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.core.StreamReadConstraints;
import com.fasterxml.jackson.core.exc.StreamConstraintsException;
import com.fasterxml.jackson.core.util.ByteArrayBuilder;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * Streaming JSON for the extender wire formats, on Jackson's {@link JsonParser}: open a body, read the few
 * scalars and string maps Railyard needs, skip everything else without building it, and turn every problem
 * into a one-line {@link WireFormatException} that names the key path and the line/column.
 *
 * <p>Keys are matched case-sensitively, exactly as Go's {@code encoding/json} writes them
 * (docs/formats/volcano-extender.md §6, docs/formats/kube-extender.md §1). Unknown keys are skipped: Volcano adds
 * fields in almost every release.
 *
 * <p>Limits: nesting deeper than {@value #MAX_NESTING_DEPTH} is refused (Kubernetes objects inside Volcano's
 * NodeInfo nest about 25 deep, managedFields included); so is a number longer than {@value #MAX_NUMBER_LENGTH}
 * characters (Go writes at most about 25 for a float64), a key longer than Jackson's 50,000 characters or a
 * string longer than its 20,000,000. Each gets its own reason, naming the place.
 *
 * <p>Duplicate keys: in every object Railyard reads keys from (request wrappers, TaskInfo, JobInfo, NodeInfo, the
 * Pod's metadata, spec, containers, resources, requests, labels and annotations, ExtenderArgs and
 * ExtenderBindingArgs) a key given twice is refused ({@link #unique}): Go's {@code encoding/json} v1 would
 * replace or merge the earlier value, its v2 refuses the object, and no scheduler sends one. Objects Railyard
 * skips are not inspected, since nothing in them is read (docs/hostile-input.md).
 */
public final class WireJson {
    /** Deepest nesting accepted, in JSON objects/arrays. */
    public static final int MAX_NESTING_DEPTH = 128;
    /** Longest number token accepted, in characters. */
    public static final int MAX_NUMBER_LENGTH = 100;

    private static final JsonFactory FACTORY = new JsonFactoryBuilder()
            .streamReadConstraints(StreamReadConstraints.builder().maxNestingDepth(MAX_NESTING_DEPTH)
                    .maxNumberLength(MAX_NUMBER_LENGTH).build())
            .build();
    private static final Pattern SOURCE_LOCATION =
            Pattern.compile("\\[Source: [^;\\]]*; line: (\\d+), column: (\\d+)]");
    private static final int MAX_MESSAGE = 300;

    private WireJson() {
    }

    /** The shared, thread-safe factory (also used to write replies). */
    public static JsonFactory factory() {
        return FACTORY;
    }

    /**
     * Opens a parser on a whole request body and moves to its first token, which must start an object.
     *
     * @param verb used in error messages, e.g. {@code "volcano predicate"}
     * @throws WireFormatException on a 0-byte or whitespace-only body, on malformed JSON, or when the top-level
     *                             value is not an object
     */
    public static JsonParser openObject(byte[] body, String verb) throws WireFormatException {
        if (body.length == 0) {
            throw new WireFormatException(WireFormatException.Kind.EMPTY_BODY,
                    verb + ": empty request body, expected a JSON object");
        }
        if (body.length >= 2 && (body[0] == 0 || body[1] == 0 || (body[0] & 0xff) >= 0xfe)) {
            // Jackson would detect UTF-16/32 and decode it char by char, leaving byte offsets at -1 (the kube
            // filter reply echoes Nodes.items by byte range: a 500). Go's encoding/json reads only UTF-8, and
            // RFC 8259 §8.1 requires it between systems; no valid UTF-8 JSON starts with these bytes.
            throw new WireFormatException(WireFormatException.Kind.MALFORMED_JSON,
                    verb + ": request body is not UTF-8 (a NUL byte or FE/FF byte at its start: UTF-16 or UTF-32?);"
                            + " JSON between systems is UTF-8 (RFC 8259 §8.1)");
        }
        try {
            JsonParser p = FACTORY.createParser(body);
            JsonToken t = p.nextToken();
            if (t == null) {
                throw new WireFormatException(WireFormatException.Kind.EMPTY_BODY,
                        verb + ": request body holds no JSON value, expected a JSON object");
            }
            if (t != JsonToken.START_OBJECT) {
                throw wrongType(p, verb, "request body", "an object");
            }
            return p;
        } catch (IOException e) {
            throw translate(e, verb);
        }
    }

    /**
     * Checks that nothing but whitespace follows the top-level object (the parser must be on its END_OBJECT).
     */
    public static void expectEnd(JsonParser p, String verb) throws IOException, WireFormatException {
        JsonToken t = p.nextToken();
        if (t != null) {
            throw new WireFormatException(WireFormatException.Kind.MALFORMED_JSON,
                    verb + ": " + describe(t) + " follows the request object at " + at(p)
                            + "; expected the end of the body");
        }
    }

    /**
     * Converts a Jackson failure into a one-line {@link WireFormatException}: nesting limit → {@code TOO_DEEP},
     * number, string or key length limit → {@code TOO_LONG}, anything else → {@code MALFORMED_JSON}. A non-Jackson
     * I/O error cannot happen on a byte array and is rethrown unchecked.
     */
    public static WireFormatException translate(IOException e, String verb) {
        if (e instanceof StreamConstraintsException sce) {
            String where = sce.getLocation() == null ? "" : " at " + at(sce.getLocation());
            String msg = String.valueOf(sce.getOriginalMessage());
            if (msg.contains("getMaxNestingDepth")) {
                return new WireFormatException(WireFormatException.Kind.TOO_DEEP,
                        verb + ": JSON nested deeper than " + MAX_NESTING_DEPTH + " levels" + where);
            }
            String what = msg.contains("getMaxNumberLength") ? "a number longer than " + MAX_NUMBER_LENGTH + " characters"
                    : msg.contains("getMaxNameLength") ? "a key longer than "
                    + StreamReadConstraints.DEFAULT_MAX_NAME_LEN + " characters"
                    : msg.contains("getMaxStringLength") ? "a string longer than "
                    + StreamReadConstraints.DEFAULT_MAX_STRING_LEN + " characters"
                    : "JSON over a parser limit (" + oneLine(msg) + ")";
            return new WireFormatException(WireFormatException.Kind.TOO_LONG, verb + ": " + what + where);
        }
        if (e instanceof JsonProcessingException jpe && String.valueOf(jpe.getOriginalMessage()).startsWith("Duplicate field")) {
            // Jackson's tree and duplicate-detecting readers (the admission webhook, /explain)
            String where = jpe.getLocation() == null ? "" : " (the second at " + at(jpe.getLocation()) + ")";
            return new WireFormatException(WireFormatException.Kind.DUPLICATE_KEY, verb + ": a key is given twice"
                    + where + ": " + oneLine(jpe.getOriginalMessage()).replaceFirst(" for `ObjectNode`.*", "")
                    + "; Railyard refuses duplicate keys");
        }
        if (e instanceof JsonProcessingException jpe) {
            String msg = oneLine(jpe.getOriginalMessage());
            String where = jpe.getLocation() == null ? "" : " at " + at(jpe.getLocation());
            return new WireFormatException(WireFormatException.Kind.MALFORMED_JSON,
                    verb + ": malformed JSON" + where + ": " + msg);
        }
        throw new UncheckedIOException(e);
    }

    /**
     * Records the key the parser is on (its FIELD_NAME) among the keys of the current object.
     *
     * @param seen the keys of this object so far; the key is added
     * @param path key path of the object, for the message
     * @throws WireFormatException ({@code DUPLICATE_KEY}) when the object already had this key
     */
    public static void unique(Set<String> seen, JsonParser p, String verb, String path)
            throws IOException, WireFormatException {
        if (!seen.add(p.currentName())) {
            throw duplicate(p, verb, path);
        }
    }

    /** A {@code DUPLICATE_KEY} error for the key the parser is on. */
    public static WireFormatException duplicate(JsonParser p, String verb, String path) throws IOException {
        return new WireFormatException(WireFormatException.Kind.DUPLICATE_KEY, verb + ": " + path + " has the key \""
                + p.currentName() + "\" twice (the second at " + at(p) + "); Railyard refuses duplicate keys");
    }

    /** Reads the current value as a string; JSON null gives null. */
    public static String string(JsonParser p, String verb, String path) throws IOException, WireFormatException {
        JsonToken t = p.currentToken();
        if (t == JsonToken.VALUE_STRING) {
            return p.getText();
        }
        if (t == JsonToken.VALUE_NULL) {
            return null;
        }
        throw wrongType(p, verb, path, "a string");
    }

    /**
     * Reads the current value as an int; accepts integral floats ({@code 3.0}) since Go prints float64
     * fields without a fraction only when whole. JSON null gives {@code ifNull}.
     */
    public static int integer(JsonParser p, String verb, String path, int ifNull) throws IOException, WireFormatException {
        JsonToken t = p.currentToken();
        if (t == JsonToken.VALUE_NULL) {
            return ifNull;
        }
        if (t == JsonToken.VALUE_NUMBER_INT && p.getNumberType() == JsonParser.NumberType.INT) {
            return p.getIntValue();
        }
        if (t == JsonToken.VALUE_NUMBER_FLOAT || t == JsonToken.VALUE_NUMBER_INT) {
            double d = p.getDoubleValue();
            if (d == Math.rint(d) && d >= Integer.MIN_VALUE && d <= Integer.MAX_VALUE) {
                return (int) d;
            }
            throw wrongType(p, verb, path, "a whole number in int range");
        }
        throw wrongType(p, verb, path, "a number");
    }

    /**
     * Reads the current value as an object of string values ({@code metadata.labels}); null gives an empty map.
     */
    public static Map<String, String> stringMap(JsonParser p, String verb, String path)
            throws IOException, WireFormatException {
        JsonToken t = p.currentToken();
        if (t == JsonToken.VALUE_NULL) {
            return Map.of();
        }
        if (t != JsonToken.START_OBJECT) {
            throw wrongType(p, verb, path, "an object of strings");
        }
        Map<String, String> out = new LinkedHashMap<>();
        while (p.nextToken() == JsonToken.FIELD_NAME) {
            String key = p.currentName();
            if (out.containsKey(key)) {
                throw duplicate(p, verb, path);
            }
            JsonToken v = p.nextToken();
            if (v != JsonToken.VALUE_STRING) {
                throw wrongType(p, verb, path + "." + key, "a string");
            }
            out.put(key, p.getText());
        }
        return out;
    }

    /** Reads one field's value; the parser is on the value and must be left on its last token. */
    @FunctionalInterface
    public interface FieldReader {
        void read(String key) throws IOException, WireFormatException;
    }

    /**
     * Reads the object the parser is on, calling {@code each} once per key with the parser on that key's value,
     * and refuses a key given twice. JSON null reads nothing. Leaves the parser on the object's END_OBJECT (or on
     * the null).
     *
     * @throws WireFormatException ({@code WRONG_TYPE}) when the value is neither an object nor null,
     *                             ({@code DUPLICATE_KEY}) on a repeated key, or whatever {@code each} throws
     */
    public static void fields(JsonParser p, String verb, String path, FieldReader each)
            throws IOException, WireFormatException {
        if (p.currentToken() == JsonToken.VALUE_NULL) {
            return;
        }
        object(p, verb, path);
        Set<String> seen = new HashSet<>();
        while (p.nextToken() == JsonToken.FIELD_NAME) {
            unique(seen, p, verb, path);
            String key = p.currentName();
            p.nextToken();
            each.read(key);
        }
    }

    /** Requires the current token to start an object (null is not allowed). */
    public static void object(JsonParser p, String verb, String path) throws WireFormatException {
        if (p.currentToken() != JsonToken.START_OBJECT) {
            throw wrongType(p, verb, path, "an object");
        }
    }

    /** Skips the current value: a whole object or array without building it; a scalar needs nothing. */
    public static void skip(JsonParser p) throws IOException {
        JsonToken t = p.currentToken();
        if (t == JsonToken.START_OBJECT || t == JsonToken.START_ARRAY) {
            p.skipChildren();
        }
    }

    /** A {@code WRONG_TYPE} error naming the path, what was expected, what was found and where. */
    public static WireFormatException wrongType(JsonParser p, String verb, String path, String expected) {
        return new WireFormatException(WireFormatException.Kind.WRONG_TYPE,
                verb + ": " + path + " must be " + expected + ", got " + describe(p.currentToken()) + " at " + at(p));
    }

    /** A {@code MISSING_FIELD} error. */
    public static WireFormatException missing(String verb, String what) {
        return new WireFormatException(WireFormatException.Kind.MISSING_FIELD, verb + ": " + what);
    }

    /** "line L, column C" of the current token. */
    public static String at(JsonParser p) {
        return at(p.currentTokenLocation());
    }

    private static String at(JsonLocation loc) {
        return "line " + loc.getLineNr() + ", column " + loc.getColumnNr();
    }

    private static String describe(JsonToken t) {
        if (t == null) {
            return "end of input";
        }
        return switch (t) {
            case START_OBJECT -> "an object";
            case START_ARRAY -> "an array";
            case VALUE_STRING -> "a string";
            case VALUE_NUMBER_INT, VALUE_NUMBER_FLOAT -> "a number";
            case VALUE_TRUE, VALUE_FALSE -> "a boolean";
            case VALUE_NULL -> "null";
            case FIELD_NAME -> "a key";
            // '}' or ']': the only other tokens with a text of their own
            default -> t.asString() == null ? "a value" : "'" + t.asString() + "'";
        };
    }

    private static String oneLine(String s) {
        if (s == null) {
            return "unreadable JSON";
        }
        String r = SOURCE_LOCATION.matcher(s).replaceAll("line $1, column $2");
        r = r.replaceAll("\\s+", " ").trim();
        return r.length() > MAX_MESSAGE ? r.substring(0, MAX_MESSAGE) + "..." : r;
    }

    /** Writes a JSON reply with a generator and returns its bytes. */
    public static byte[] write(JsonWriter writer) {
        try (ByteArrayBuilder out = new ByteArrayBuilder(512);
             JsonGenerator g = FACTORY.createGenerator(out, JsonEncoding.UTF8)) {
            writer.write(g);
            g.flush();
            return out.toByteArray();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Writes one reply body. */
    @FunctionalInterface
    public interface JsonWriter {
        void write(JsonGenerator g) throws IOException;
    }

    /**
     * Reads {@code metadata.name} of the Kubernetes object the parser is at and skips the rest of it without
     * building it.
     *
     * @return the name, or null when the object has none
     * @throws WireFormatException naming {@code path} when the value is not an object or the name not a string
     */
    public static String metadataName(JsonParser p, String verb, String path) throws IOException, WireFormatException {
        object(p, verb, path);
        String name = null;
        Set<String> keys = new HashSet<>();
        while (p.nextToken() == JsonToken.FIELD_NAME) {
            unique(keys, p, verb, path);
            String key = p.currentName();
            p.nextToken();
            if ("metadata".equals(key) && p.currentToken() == JsonToken.START_OBJECT) {
                Set<String> mkeys = new HashSet<>();
                while (p.nextToken() == JsonToken.FIELD_NAME) {
                    unique(mkeys, p, verb, path + ".metadata");
                    String mk = p.currentName();
                    p.nextToken();
                    if ("name".equals(mk)) {
                        name = string(p, verb, path + ".metadata.name");
                    } else {
                        skip(p);
                    }
                }
            } else {
                skip(p);
            }
        }
        return name;
    }
}
