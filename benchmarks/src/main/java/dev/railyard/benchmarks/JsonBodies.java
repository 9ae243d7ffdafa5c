package dev.railyard.benchmarks;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;

/** Request bodies written with Jackson's streaming generator, for the load generators' wire shapes. */
public final class JsonBodies {
    private static final JsonFactory JSON = new JsonFactory();

    /** Writes one JSON document on the generator it is given. */
    @FunctionalInterface
    public interface Body {
        /** @throws IOException as the generator throws it */
        void write(JsonGenerator g) throws IOException;
    }

    private JsonBodies() {
    }

    /**
     * @param sizeHint the expected size in bytes (the buffer's first capacity)
     * @param body     what to write
     * @return the UTF-8 bytes written
     */
    public static byte[] write(int sizeHint, Body body) {
        ByteArrayOutputStream out = new ByteArrayOutputStream(sizeHint);
        try (JsonGenerator g = JSON.createGenerator(out)) {
            body.write(g);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return out.toByteArray();
    }
}
