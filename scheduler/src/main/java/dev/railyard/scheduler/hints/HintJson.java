package dev.railyard.scheduler.hints;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;

/** The hint reader's Jackson mapper: unknown properties skipped (schema additions are additive). */
final class HintJson {
    static final ObjectMapper MAPPER = new ObjectMapper()
            .configure(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES, false)
            .configure(DeserializationFeature.FAIL_ON_NULL_FOR_PRIMITIVES, true);

    private HintJson() {
    }

    /** A Jackson or other failure as one short line, without the source excerpt. */
    static String oneLine(Exception e) {
        String m = e instanceof JsonProcessingException j ? j.getOriginalMessage() : e.getMessage();
        if (m == null) {
            m = e.toString();
        }
        m = m.replaceAll("\\s+", " ").trim();
        return m.length() > 200 ? m.substring(0, 200) + "..." : m;
    }
}
