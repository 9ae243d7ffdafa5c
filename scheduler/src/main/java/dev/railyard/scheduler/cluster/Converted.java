package dev.railyard.scheduler.cluster;

import java.util.List;

/**
 * The result of converting cluster objects: the value, and one warning per object that could not be used (each
 * naming the object and what is wrong with it). Converters never throw for a bad object; they skip it here.
 *
 * @param value    the converted value
 * @param warnings problems, one line each
 * @param <T>      the value's type
 */
public record Converted<T>(T value, List<String> warnings) {
    public Converted {
        warnings = List.copyOf(warnings);
    }
}
