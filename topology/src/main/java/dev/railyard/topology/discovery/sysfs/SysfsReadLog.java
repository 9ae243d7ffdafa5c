package dev.railyard.topology.discovery.sysfs;

import java.util.Collections;
import java.util.Map;
import java.util.TreeMap;

/**
 * Everything a {@link SysfsTree} read, in the form needed to rebuild it: attribute files with the bytes read,
 * symlinks with their targets as written, and directories that were listed or passed through.
 *
 * <p>{@code railyard topology collect} archives exactly these entries, so the archive reproduces what the parser
 * saw. Paths are relative to the sysfs directory ({@code bus/pci/devices/0000:1a:00.0}). Not thread-safe.
 */
public final class SysfsReadLog {
    /** One recorded entry. */
    public sealed interface Entry permits File, Symlink, Directory {
    }

    /** @param content the bytes read (at most {@link SysfsTree#MAX_ATTRIBUTE_BYTES}) */
    public record File(byte[] content) implements Entry {
    }

    /** @param target the link target exactly as {@code readlink} returned it (relative in real sysfs) */
    public record Symlink(String target) implements Entry {
    }

    /** A directory that exists (possibly empty). */
    public record Directory() implements Entry {
    }

    private final Map<String, Entry> entries = new TreeMap<>();

    void file(String path, byte[] content) {
        entries.put(path, new File(content.clone()));
    }

    void symlink(String path, String target) {
        entries.put(path, new Symlink(target));
    }

    void directory(String path) {
        if (!path.isEmpty()) {
            entries.putIfAbsent(path, new Directory());
        }
    }

    /** @return recorded entries by path, sorted by path; read-only */
    public Map<String, Entry> entries() {
        return Collections.unmodifiableMap(entries);
    }
}
