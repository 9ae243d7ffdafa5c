package dev.railyard.topology.discovery;

import dev.railyard.topology.InputException;

import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;

/**
 * The text of a pasted or captured command dump ({@code nvidia-smi topo -m}, {@code ibv_devinfo}, ...), read
 * defensively: size limit, binary detection with the position of the first offending byte, UTF-8 decoding that
 * never fails, and lines with carriage returns and ANSI escape sequences removed.
 *
 * <p>Line numbers are 1-based lines of the file. Column numbers are 1-based characters of the line <em>after</em>
 * ANSI escapes were removed (a tab counts as one column).
 */
public final class DumpText {
    /** CSI sequences ({@code ESC [ ... m}) and two-character escapes. */
    private static final Pattern ANSI = Pattern.compile("\u001B\\[[0-?]*[ -/]*[@-~]|\u001B[@-_]");
    /** Bytes examined for the binary check. */
    private static final int SNIFF_BYTES = 64 * 1024;

    private DumpText() {
    }

    /**
     * Reads a file whole.
     *
     * @param input    file to read
     * @param maxBytes largest accepted size in bytes
     * @return its bytes
     * @throws InputException when the file is missing, a directory, unreadable or larger than {@code maxBytes}
     */
    public static byte[] read(Path input, long maxBytes) {
        try {
            if (Files.isDirectory(input)) {
                throw new InputException(input + ": is a directory, expected a text file");
            }
            long size = Files.size(input);
            if (size > maxBytes) {
                throw new InputException(input + ": " + size + " bytes, larger than the " + maxBytes
                        + "-byte limit for a topology dump");
            }
            // Files.size is 0 for a device or pipe (/dev/zero, <(cmd)): read at most one byte past the limit
            // instead of readAllBytes, which would run out of memory on an endless stream
            byte[] bytes;
            try (InputStream in = Files.newInputStream(input)) {
                bytes = in.readNBytes((int) Math.min(maxBytes + 1, Integer.MAX_VALUE - 8));
            }
            if (bytes.length > maxBytes) {
                throw new InputException(input + ": more than " + maxBytes + " bytes, larger than the limit for a "
                        + "topology dump" + (Files.isRegularFile(input) ? "" : " (a device or pipe that does not end?)"));
            }
            return bytes;
        } catch (NoSuchFileException e) {
            throw new InputException(input + ": no such file", e);
        } catch (IOException e) {
            throw new InputException(input + ": cannot read (" + InputException.reason(e) + ")", e);
        }
    }

    /**
     * Decodes dump bytes as text.
     *
     * @param source name used in messages (the file path)
     * @param bytes  file content
     * @return the text; malformed UTF-8 sequences become U+FFFD, a leading byte-order mark is dropped
     * @throws InputException when the content is binary: a NUL byte, or more than 1% control bytes among the
     *                        first 64 KiB; the message names the line and column of the first such byte
     */
    public static String decode(String source, byte[] bytes) {
        int limit = Math.min(bytes.length, SNIFF_BYTES);
        int control = 0;
        int firstControl = -1;
        for (int i = 0; i < bytes.length; i++) {
            int b = bytes[i] & 0xff;
            if (b == 0) {
                throw binary(source, bytes, i);
            }
            if (i < limit && isControl(b)) {
                control++;
                if (firstControl < 0) {
                    firstControl = i;
                }
            }
        }
        if (limit > 0 && control * 100L > limit) {
            throw binary(source, bytes, firstControl);
        }
        String text;
        try {
            text = StandardCharsets.UTF_8.newDecoder()
                    .onMalformedInput(CodingErrorAction.REPLACE)
                    .onUnmappableCharacter(CodingErrorAction.REPLACE)
                    .decode(ByteBuffer.wrap(bytes)).toString();
        } catch (CharacterCodingException e) {
            // unreachable with REPLACE; keep the one-line contract anyway
            throw new InputException(source + ": not UTF-8 text (" + e.getMessage() + ")", e);
        }
        return text.startsWith("\uFEFF") ? text.substring(1) : text;
    }

    /**
     * @param text decoded text
     * @return its lines without line terminators, carriage returns or ANSI escape sequences; index 0 is line 1
     */
    public static List<String> lines(String text) {
        List<String> lines = new ArrayList<>();
        int start = 0;
        int n = text.length();
        while (start <= n) {
            int end = text.indexOf('\n', start);
            if (end < 0) {
                end = n;
            }
            String line = text.substring(start, end);
            if (line.indexOf('\r') >= 0) {
                line = line.replace("\r", "");
            }
            if (line.indexOf('\u001B') >= 0) {
                line = ANSI.matcher(line).replaceAll("");
            }
            lines.add(line);
            start = end + 1;
        }
        if (lines.size() > 1 && lines.getLast().isEmpty()) {
            lines.removeLast();
        }
        return lines;
    }

    private static boolean isControl(int b) {
        return (b < 0x20 && b != '\t' && b != '\n' && b != '\r' && b != '\f' && b != 0x1b) || b == 0x7f;
    }

    private static InputException binary(String source, byte[] bytes, int offset) {
        int line = 1;
        int col = 1;
        for (int i = 0; i < offset; i++) {
            if (bytes[i] == '\n') {
                line++;
                col = 1;
            } else {
                col++;
            }
        }
        return new InputException(String.format("%s:%d:%d: binary data (byte 0x%02x at offset %d), not a text dump",
                source, line, col, bytes[offset] & 0xff, offset));
    }
}
