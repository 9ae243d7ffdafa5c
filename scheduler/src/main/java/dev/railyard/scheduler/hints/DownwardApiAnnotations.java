package dev.railyard.scheduler.hints;

import dev.railyard.topology.InputException;

import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Reads the file the kubelet writes for a downward-API volume item with {@code fieldPath: metadata.annotations}:
 * one {@code key="value"} line per annotation, keys sorted, lines joined by {@code \n} with no trailing newline, the
 * value quoted by Go's {@code %q} verb, i.e. {@code strconv.Quote} (kubernetes {@code pkg/fieldpath/fieldpath.go}
 * {@code FormatMap}: {@code fmt.Sprintf("%v=%q\n", key, m[key])}).
 *
 * <p>Unquoting follows the Go spec's interpreted string literal escapes, which is everything {@code strconv.Quote}
 * can produce: {@code \a \b \f \n \r \t \v \\ \"}, {@code \xNN} (one byte; bytes that are not valid UTF-8 are
 * replaced by U+FFFD), {@code \NNN} octal, <code>&#92;uNNNN</code> and {@code \UNNNNNNNN}; other characters stand for
 * themselves (UTF-8).
 */
public final class DownwardApiAnnotations {
    private DownwardApiAnnotations() {
    }

    /**
     * @param text   file content
     * @param source file name for error messages
     * @return key to unquoted value, in file order
     * @throws InputException naming {@code source}, line and column when a line is not {@code key="quoted"}
     */
    public static Map<String, String> parse(String text, String source) {
        Map<String, String> out = new LinkedHashMap<>();
        String[] lines = text.split("\n", -1);
        for (int n = 0; n < lines.length; n++) {
            String line = lines[n];
            if (line.endsWith("\r")) {
                line = line.substring(0, line.length() - 1);
            }
            if (line.isBlank()) {
                continue;
            }
            int eq = line.indexOf('=');
            if (eq <= 0) {
                throw new InputException(source + ":" + (n + 1) + ":1: expected key=\"value\" (a downward-API "
                        + "annotations file), got '" + abbreviate(line) + "'");
            }
            String key = line.substring(0, eq);
            out.put(key, unquote(line, eq + 1, source, n + 1));
        }
        return out;
    }

    /** Unquotes the Go string literal that starts at {@code from} and must end the line. */
    static String unquote(String line, int from, String source, int lineNo) {
        if (from >= line.length() || line.charAt(from) != '"') {
            throw error(source, lineNo, from, "expected '\"' after '='");
        }
        ByteArrayOutputStream bytes = new ByteArrayOutputStream(line.length());
        int i = from + 1;
        while (true) {
            if (i >= line.length()) {
                throw error(source, lineNo, i, "unterminated quoted value");
            }
            char c = line.charAt(i);
            if (c == '"') {
                if (i != line.length() - 1) {
                    throw error(source, lineNo, i + 1, "unexpected text after the closing quote");
                }
                break;
            }
            if (c != '\\') {
                int cp = line.codePointAt(i);
                bytes.writeBytes(new String(Character.toChars(cp)).getBytes(StandardCharsets.UTF_8));
                i += Character.charCount(cp);
                continue;
            }
            if (i + 1 >= line.length()) {
                throw error(source, lineNo, i, "backslash at the end of the line");
            }
            char e = line.charAt(i + 1);
            i += 2;
            switch (e) {
                case 'a' -> bytes.write(0x07);
                case 'b' -> bytes.write(0x08);
                case 'f' -> bytes.write(0x0c);
                case 'n' -> bytes.write(0x0a);
                case 'r' -> bytes.write(0x0d);
                case 't' -> bytes.write(0x09);
                case 'v' -> bytes.write(0x0b);
                case '\\' -> bytes.write('\\');
                case '"' -> bytes.write('"');
                case '\'' -> bytes.write('\'');
                case 'x' -> {
                    bytes.write(hex(line, i, 2, source, lineNo));
                    i += 2;
                }
                case 'u', 'U' -> {
                    int len = e == 'u' ? 4 : 8;
                    int cp = hex(line, i, len, source, lineNo);
                    if (!Character.isValidCodePoint(cp) || (cp >= 0xd800 && cp <= 0xdfff)) {
                        throw error(source, lineNo, i - 2, "\\" + e + " escape is not a Unicode code point");
                    }
                    bytes.writeBytes(new String(Character.toChars(cp)).getBytes(StandardCharsets.UTF_8));
                    i += len;
                }
                case '0', '1', '2', '3', '4', '5', '6', '7' -> {
                    if (i + 2 > line.length()) {
                        throw error(source, lineNo, i - 2, "octal escape needs three digits");
                    }
                    String oct = line.substring(i - 1, i + 2);
                    if (!oct.matches("[0-7]{3}") || Integer.parseInt(oct, 8) > 255) {
                        throw error(source, lineNo, i - 2, "bad octal escape \\" + oct);
                    }
                    bytes.write(Integer.parseInt(oct, 8));
                    i += 2;
                }
                default -> throw error(source, lineNo, i - 2, "unknown escape \\" + e);
            }
        }
        return decodeUtf8(bytes.toByteArray());
    }

    private static int hex(String line, int at, int len, String source, int lineNo) {
        if (at + len > line.length()) {
            throw error(source, lineNo, at, "escape needs " + len + " hex digits");
        }
        String digits = line.substring(at, at + len);
        if (!digits.matches("[0-9a-fA-F]+")) {
            throw error(source, lineNo, at, "bad hex digits '" + digits + "' in escape");
        }
        return (int) Long.parseLong(digits, 16);
    }

    private static String decodeUtf8(byte[] b) {
        try {
            return StandardCharsets.UTF_8.newDecoder().onMalformedInput(CodingErrorAction.REPLACE)
                    .onUnmappableCharacter(CodingErrorAction.REPLACE).decode(ByteBuffer.wrap(b)).toString();
        } catch (CharacterCodingException e) {
            // unreachable with REPLACE
            return new String(b, StandardCharsets.UTF_8);
        }
    }

    private static InputException error(String source, int line, int index, String what) {
        return new InputException(source + ":" + line + ":" + (index + 1) + ": " + what);
    }

    private static String abbreviate(String s) {
        return s.length() > 60 ? s.substring(0, 60) + "..." : s;
    }
}
