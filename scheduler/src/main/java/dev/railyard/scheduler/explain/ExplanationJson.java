package dev.railyard.scheduler.explain;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.json.JsonMapper;

import java.io.UncheckedIOException;

/**
 * The JSON form of an {@link Explanation} (schema in {@code docs/explain.md}): property names as the records name
 * them, in the records' declared order, nulls written, pretty-printed. Reading skips unknown properties, so a reader
 * of this version accepts later additive versions.
 */
public final class ExplanationJson {
    private static final ObjectMapper MAPPER = JsonMapper.builder()
            .enable(SerializationFeature.INDENT_OUTPUT)
            .disable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES)
            .build();

    private ExplanationJson() {
    }

    /** @return the explanation as pretty-printed JSON, ending in a newline */
    public static String write(Explanation e) {
        try {
            return MAPPER.writeValueAsString(e) + "\n";
        } catch (JsonProcessingException ex) {
            throw new UncheckedIOException(ex);
        }
    }

    /**
     * @param json JSON written by {@link #write}
     * @return the explanation
     * @throws IllegalArgumentException when the text is not an explanation
     */
    public static Explanation read(String json) {
        try {
            return MAPPER.readValue(json, Explanation.class);
        } catch (JsonProcessingException ex) {
            throw new IllegalArgumentException("not an explanation: " + ex.getOriginalMessage(), ex);
        }
    }
}
