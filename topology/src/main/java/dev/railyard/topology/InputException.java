package dev.railyard.topology;

import com.fasterxml.jackson.core.JsonLocation;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonMappingException;
import com.fasterxml.jackson.databind.exc.InvalidFormatException;
import com.fasterxml.jackson.databind.exc.MismatchedInputException;
import com.fasterxml.jackson.databind.exc.UnrecognizedPropertyException;

import java.io.CharConversionException;
import java.io.EOFException;
import java.nio.charset.CharacterCodingException;
import java.nio.file.AccessDeniedException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.FileSystemException;
import java.nio.file.NoSuchFileException;
import java.nio.file.NotDirectoryException;
import java.util.Collection;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.zip.ZipException;

/**
 * Bad input that Railyard cannot use: a malformed dump, an unreadable file, an unknown format.
 * The message is one line that names what and where (file, line, column), meant for a person.
 */
public class InputException extends RuntimeException {
    /** {@code ... from Array value (token ...)} in Jackson's mismatched-input messages. */
    private static final Pattern FROM_VALUE = Pattern.compile("from (\\w+(?:-\\w+)?) value");

    public InputException(String message) {
        super(message);
    }

    public InputException(String message, Throwable cause) {
        super(message, cause);
    }

    /**
     * Bad input found while reading {@code source}.
     *
     * @param source the file or resource as the user named it
     * @param cause  what reading or parsing it threw (an {@code IOException}, a Jackson exception, ...)
     * @return an exception whose message is {@code "<source>: <reason>"}, or {@code "<source> line L, column C:
     *         <reason>"} when the cause knows the place in a YAML or JSON text; {@link #reason(Throwable)} gives the
     *         reason; an unknown key is named by its path, without a location. The cause is kept for {@code RAILYARD_DEBUG} stack traces.
     */
    public static InputException reading(String source, Throwable cause) {
        java.io.IOException io = underlyingIo(cause);
        if (io != null) {
            // the file itself could not be read or decoded (a directory, not UTF-8): no line or column applies
            return new InputException(source + ": " + reason(io), cause);
        }
        String where = "";
        // an unknown key is named by its path: the parser's location is already past its value (the next line)
        // an empty file has no place to point at either
        if (cause instanceof JsonProcessingException j && !(cause instanceof UnrecognizedPropertyException)
                && !isEmptyInput(cause)) {
            JsonLocation loc = j.getLocation();
            if (loc != null && loc.getLineNr() > 0) {
                where = " line " + loc.getLineNr() + ", column " + loc.getColumnNr();
            }
        }
        return new InputException(source + where + ": " + reason(cause), cause);
    }

    /**
     * Says in words why reading failed, without Java exception names or class names: {@code "no such file or
     * directory"}, {@code "permission denied"}, {@code "is a directory"}, {@code "not UTF-8 text (a binary
     * file?)"}, {@code "ends early (truncated?)"}, {@code "empty: no YAML or JSON content"}, {@code "unknown key
     * \"server.prot\" (known here: address, port)"}, {@code "\"server\": expected a mapping, got a list"}, or the
     * first line of the parser's own message.
     *
     * @param cause what was thrown
     * @return one line, without the file name (the caller names it)
     */
    public static String reason(Throwable cause) {
        for (Throwable t = cause; t != null; t = t.getCause()) {
            if (t instanceof CharacterCodingException || t instanceof CharConversionException) {
                return "not UTF-8 text (a binary file?)";
            }
            if (t instanceof com.fasterxml.jackson.core.exc.StreamConstraintsException c) {
                // "Document nesting depth (1001) exceeds the maximum allowed (1000, from
                // `StreamReadConstraints.getMaxNestingDepth()`)" and the like for sizes
                Matcher limit = Pattern.compile("maximum allowed \\((\\d+)").matcher(String.valueOf(c.getMessage()));
                String max = limit.find() ? limit.group(1) : null;
                String m = String.valueOf(c.getMessage()).toLowerCase(Locale.ROOT);
                if (m.contains("nesting depth")) {
                    return "nested more than " + (max == null ? "the allowed number of" : max) + " levels deep";
                }
                return "a value larger than the parser allows" + (max == null ? "" : " (" + max + ")");
            }
        }
        java.io.IOException io = underlyingIo(cause);
        if (io != null) {
            return reason(io);
        }
        return switch (cause) {
            case null -> "unreadable";
            case NoSuchFileException e -> "no such file or directory";
            case AccessDeniedException e -> "permission denied";
            case NotDirectoryException e -> "not a directory";
            case FileAlreadyExistsException e -> "already exists";
            case FileSystemException e when e.getReason() != null -> lowerFirst(e.getReason());
            case EOFException e -> "ends early (truncated?)";
            // java.io.FileInputStream's "PATH (Is a directory)": the reason is in the parentheses
            case java.io.FileNotFoundException e when e.getMessage() != null && e.getMessage().endsWith(")")
                    && e.getMessage().contains(" (") ->
                    lowerFirst(e.getMessage().substring(e.getMessage().lastIndexOf(" (") + 2, e.getMessage().length() - 1));
            case ZipException e -> "Not in GZIP format".equals(e.getMessage()) ? "not gzip-compressed"
                    : "corrupt gzip data (" + lowerFirst(firstLine(e.getMessage())) + ")";
            case UnrecognizedPropertyException e -> "unknown key \"" + keyPath(e) + "\"" + known(e);
            case InvalidFormatException e -> at(e) + "'" + e.getValue() + "' is not " + expected(e.getTargetType());
            case MismatchedInputException e -> mismatch(e);
            case JsonProcessingException e -> parserProblem(e.getOriginalMessage());
            default -> cause.getMessage() == null || cause.getMessage().isBlank()
                    ? cause.getClass().getSimpleName().replaceAll("(Exception|Error)$", "").toLowerCase(Locale.ROOT)
                    : lowerFirst(firstLine(cause.getMessage()));
        };
    }

    /**
     * @return the I/O failure under a parser exception (Jackson YAML wraps SnakeYAML's, which wraps the JDK's), or
     *         null when {@code cause} is not a parser exception or the parser failed on the text itself
     */
    private static java.io.IOException underlyingIo(Throwable cause) {
        if (!(cause instanceof JsonProcessingException)) {
            return null;
        }
        for (Throwable t = cause.getCause(); t != null; t = t.getCause()) {
            if (t instanceof java.io.IOException io && !(t instanceof JsonProcessingException)) {
                return io;
            }
        }
        return null;
    }

    /** @return true for Jackson's "No content to map due to end-of-input" (an empty or blank file) */
    private static boolean isEmptyInput(Throwable cause) {
        return cause instanceof MismatchedInputException m && m.getOriginalMessage() != null
                && m.getOriginalMessage().startsWith("No content to map");
    }

    private static String mismatch(MismatchedInputException e) {
        String m = e.getOriginalMessage() == null ? "" : e.getOriginalMessage();
        if (isEmptyInput(e)) {
            return "empty: no YAML or JSON content";
        }
        if (e.getTargetType() == null) {
            return at(e) + parserProblem(m);
        }
        Matcher got = FROM_VALUE.matcher(m);
        String what = got.find() ? switch (got.group(1)) {
            case "Array" -> "a list";
            case "Object" -> "a mapping";
            case "String" -> "text";
            case "Integer", "Floating-point" -> "a number";
            case "Boolean" -> "true or false";
            case "Null" -> "nothing (null)";
            default -> got.group(1).toLowerCase(Locale.ROOT);
        } : null;
        return at(e) + "expected " + expected(e.getTargetType()) + (what == null ? "" : ", got " + what);
    }

    /** @return {@code "\"a.b[2]\": "}, or {@code ""} at the top of the document */
    private static String at(JsonMappingException e) {
        String path = keyPath(e);
        return path.isEmpty() ? "" : "\"" + path + "\": ";
    }

    private static String expected(Class<?> type) {
        if (type == null) {
            return "a value of another kind";
        }
        if (type.isArray() || Collection.class.isAssignableFrom(type)) {
            return "a list";
        }
        if (type == String.class || type == Character.class || type == char.class) {
            return "text";
        }
        if (type == Boolean.class || type == boolean.class) {
            return "true or false";
        }
        if (type == Integer.class || type == int.class || type == Long.class || type == long.class
                || type == Short.class || type == short.class) {
            return "a whole number";
        }
        if (Number.class.isAssignableFrom(type) || type.isPrimitive()) {
            return "a number";
        }
        if (type.isEnum()) {
            return "one of " + String.join(", ", java.util.Arrays.stream(type.getEnumConstants())
                    .map(c -> ((Enum<?>) c).name().toLowerCase(Locale.ROOT)).toList());
        }
        return "a mapping";
    }

    /**
     * @param e a Jackson mapping error
     * @return where in the document it happened, as a key path: {@code server.tls.certFile}, {@code gpus[0].port};
     *         empty at the top level
     */
    public static String keyPath(JsonMappingException e) {
        StringBuilder sb = new StringBuilder();
        for (JsonMappingException.Reference r : e.getPath()) {
            if (r.getFieldName() != null) {
                sb.append(sb.isEmpty() ? "" : ".").append(r.getFieldName());
            } else if (r.getIndex() >= 0) {
                sb.append('[').append(r.getIndex()).append(']');
            }
        }
        return sb.toString();
    }

    private static String known(UnrecognizedPropertyException e) {
        Collection<Object> ids = e.getKnownPropertyIds();
        if (ids == null || ids.isEmpty()) {
            return "";
        }
        List<String> names = ids.stream().map(Object::toString).sorted().toList();
        return " (known here: " + String.join(", ", names) + ")";
    }

    /** The parser's message without its indented context lines and Java type names. */
    private static String parserProblem(String message) {
        if (message == null || message.isBlank()) {
            return "unreadable";
        }
        StringBuilder sb = new StringBuilder();
        for (String line : message.split("\\R")) {
            if (line.isBlank() || line.startsWith(" ") || line.startsWith("\t")) {
                continue;
            }
            sb.append(sb.isEmpty() ? "" : ": ").append(line.strip());
        }
        String text = sb.isEmpty() ? message.strip() : sb.toString();
        for (Map.Entry<String, String> type : TYPE_WORDS.entrySet()) {
            text = text.replace(type.getKey(), type.getValue());
        }
        return text.replaceAll("`[\\w.$]+\\$(\\w+)`", "$1").replaceAll("`(?:java|dev|io|com)\\.[\\w.$]+`", "value");
    }

    private static final Map<String, String> TYPE_WORDS = Map.of(
            "`java.lang.Integer`", "whole number", "`int`", "whole number", "`java.lang.Long`", "whole number",
            "`long`", "whole number", "`java.lang.Double`", "number", "`double`", "number",
            "`java.lang.String`", "text", "`java.lang.Boolean`", "true/false", "`boolean`", "true/false");

    private static String firstLine(String s) {
        return s == null ? "" : s.strip().lines().findFirst().orElse("");
    }

    private static String lowerFirst(String s) {
        if (s == null || s.isEmpty()) {
            return "";
        }
        // keep acronyms and names (an upper-case second letter) as they are
        if (s.length() > 1 && Character.isUpperCase(s.charAt(1))) {
            return s;
        }
        return Character.toLowerCase(s.charAt(0)) + s.substring(1);
    }
}
