package dev.railyard.scheduler.hints;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import dev.railyard.api.hints.HintAnnotations;
import dev.railyard.api.hints.PlacementHint;
import dev.railyard.topology.InputException;

import com.fasterxml.jackson.databind.exc.MismatchedInputException;

import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The placement hint as a pod sees it, read from a file. Accepted contents, told apart by their first character:
 * <ul>
 *   <li>a downward-API volume item with {@code fieldPath: metadata.annotations}: {@code key="value"} lines
 *       ({@link DownwardApiAnnotations}); the hint is the {@value HintAnnotations#PLACEMENT} entry;</li>
 *   <li>a downward-API item with {@code fieldPath: metadata.annotations['railyard.dev/placement']}: the hint JSON
 *       itself (an object with {@code "version"});</li>
 *   <li>a JSON object of annotations ({@code kubectl get pod -o jsonpath='{.metadata.annotations}'}).</li>
 * </ul>
 * Reading never throws: every outcome is a {@link HintFile} value. At most {@value #MAX_BYTES} bytes are read: a
 * larger file (say {@code /dev/zero}) is not a hint file and is {@link Ignored}.
 */
public sealed interface HintFile {
    /**
     * Largest hints file read, in bytes (1 MiB). All annotations of one object together are at most 256 KiB
     * (apimachinery {@code ValidateAnnotationsSize}, {@code TotalAnnotationSizeLimitB}), so a downward-API file of
     * them, quoted, fits with room to spare.
     */
    int MAX_BYTES = 1 << 20;

    /**
     * A hint this version understands.
     *
     * @param hint   the parsed hint
     * @param source where it was read, for messages
     */
    record Found(PlacementHint hint, String source) implements HintFile {
    }

    /**
     * No hint: the file is missing, empty, or has no {@value HintAnnotations#PLACEMENT} entry.
     *
     * @param reason one line, for stderr
     */
    record Absent(String reason) implements HintFile {
    }

    /**
     * A hint that must be ignored: unreadable, malformed, or of a newer schema version.
     *
     * @param reason one line naming the file and what is wrong, for stderr
     */
    record Ignored(String reason) implements HintFile {
    }

    /**
     * Reads {@code file}; see the type comment for the formats.
     *
     * @return {@link Absent} when the file does not exist; {@link Ignored} when it cannot be read, is larger than
     *         {@value #MAX_BYTES} bytes or is not UTF-8 text (the reason says which, in words)
     */
    static HintFile read(Path file) {
        byte[] bytes;
        try (InputStream in = Files.newInputStream(file)) {
            bytes = in.readNBytes(MAX_BYTES + 1);
        } catch (NoSuchFileException e) {
            return new Absent("no hints file " + file + " (is the downward-API volume mounted?)");
        } catch (IOException | RuntimeException e) {
            return new Ignored("cannot read hints file " + file + ": " + InputException.reason(e));
        }
        if (bytes.length > MAX_BYTES) {
            return new Ignored("hints file " + file + " is larger than " + (MAX_BYTES >> 20) + " MiB, which no "
                    + "pod's annotations are (at most 256 KiB): not a hints file");
        }
        String text;
        try {
            text = StandardCharsets.UTF_8.newDecoder().onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT).decode(ByteBuffer.wrap(bytes)).toString();
        } catch (CharacterCodingException e) {
            return new Ignored("cannot read hints file " + file + ": " + InputException.reason(e));
        }
        return parse(text, file.toString());
    }

    /** Parses file content; {@code source} names it in messages. */
    static HintFile parse(String text, String source) {
        String t = text.strip();
        if (t.isEmpty()) {
            return new Absent(source + " is empty: the pod has no annotations");
        }
        if (t.startsWith("{")) {
            JsonNode root;
            try {
                root = HintJson.MAPPER.readTree(t);
            } catch (JsonProcessingException e) {
                return new Ignored(source + ": malformed JSON: " + HintJson.oneLine(e));
            }
            if (root.has("version")) {
                return fromPlacementJson(t, source);
            }
            Map<String, String> annotations = new LinkedHashMap<>();
            for (var it = root.properties().iterator(); it.hasNext(); ) {
                var e = it.next();
                if (e.getValue().isTextual()) {
                    annotations.put(e.getKey(), e.getValue().textValue());
                }
            }
            return fromAnnotations(annotations, source);
        }
        try {
            return fromAnnotations(DownwardApiAnnotations.parse(text, source), source);
        } catch (InputException e) {
            return new Ignored(e.getMessage());
        }
    }

    /** Picks the {@value HintAnnotations#PLACEMENT} annotation out of a pod's annotations. */
    static HintFile fromAnnotations(Map<String, String> annotations, String source) {
        String json = annotations.get(HintAnnotations.PLACEMENT);
        if (json == null || json.isBlank()) {
            return new Absent("no " + HintAnnotations.PLACEMENT + " annotation in " + source
                    + " (the pod was bound without Railyard hints)");
        }
        return fromPlacementJson(json, source + " [" + HintAnnotations.PLACEMENT + "]");
    }

    /**
     * Parses the hint JSON: a {@code version} above {@link PlacementHint#VERSION} is ignored as a future schema;
     * unknown properties of a known version are skipped (they are additive).
     */
    static HintFile fromPlacementJson(String json, String source) {
        JsonNode root;
        try {
            root = HintJson.MAPPER.readTree(json);
        } catch (JsonProcessingException e) {
            return new Ignored(source + ": malformed hint JSON: " + HintJson.oneLine(e));
        }
        if (root == null || !root.isObject()) {
            return new Ignored(source + ": the hint is not a JSON object");
        }
        JsonNode v = root.get("version");
        if (v == null || !v.canConvertToInt() || !v.isIntegralNumber() || v.intValue() < 1) {
            return new Ignored(source + ": the hint has no valid \"version\" (expected an integer >= 1)");
        }
        if (v.intValue() > PlacementHint.VERSION) {
            return new Ignored(source + ": hint schema version " + v.intValue() + " is newer than this railyard "
                    + "understands (" + PlacementHint.VERSION + "); upgrade the railyard image");
        }
        try {
            PlacementHint hint = HintJson.MAPPER.treeToValue(root, PlacementHint.class);
            return new Found(hint, source);
        } catch (JsonProcessingException | IllegalArgumentException e) {
            return new Ignored(source + ": hint does not match schema version " + v.intValue() + ": "
                    + schemaProblem(e));
        }
    }

    /**
     * @return why the hint JSON does not fit {@link PlacementHint}, in words: a missing number is named by its path
     *         ({@code "gangSize" is missing}, {@code "gpus[0].port" is missing}) instead of Jackson's
     *         {@code Cannot map `null` into type `int`}
     */
    private static String schemaProblem(Exception e) {
        if (e instanceof MismatchedInputException m && m.getOriginalMessage() != null
                && m.getOriginalMessage().startsWith("Cannot map `null` into type")) {
            String path = InputException.keyPath(m);
            return "\"" + path + "\" is missing or null (expected a whole number)";
        }
        return InputException.reason(e);
    }
}
