package dev.railyard.scheduler.protocol;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;

/** Loads request bodies from src/test/resources/wire/ (see the README there). */
public final class WireResources {
    private WireResources() {
    }

    public static byte[] load(String path) {
        try (InputStream in = WireResources.class.getResourceAsStream("/wire/" + path)) {
            if (in == null) {
                throw new IllegalArgumentException("no test resource /wire/" + path);
            }
            return in.readAllBytes();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
