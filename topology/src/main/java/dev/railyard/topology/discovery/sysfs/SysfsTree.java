package dev.railyard.topology.discovery.sysfs;

import dev.railyard.topology.InputException;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.stream.Stream;

/**
 * Read-only view of a sysfs tree below a root directory: the live {@code /sys} (root {@code /}) or a snapshot
 * laid out the same way (a directory, or an extracted {@code railyard topology collect} archive).
 *
 * <p>Paths are given relative to the sysfs directory, with {@code /} separators ({@code bus/pci/devices}).
 * Symlinks are resolved component by component inside the tree, never outside it: relative targets against the
 * link's real parent, absolute targets ({@code /sys/...}) against the sysfs directory, so a snapshot anywhere on
 * disk reads like the real {@code /sys}. More than {@value #MAX_LINKS} links in one lookup counts as a loop.
 *
 * <p>Absent paths are normal in sysfs and give empty results silently. A broken symlink or an unreadable file
 * adds a warning naming the path ({@link #warnings()}) and gives an empty result; nothing here throws on bad
 * content. Resolutions are cached for the life of the instance, so use one instance per read pass (the node agent
 * opens a fresh one per refresh). Not thread-safe.
 */
public final class SysfsTree {
    /** Attribute files are read up to this many bytes (sysfs attributes are at most one page). */
    public static final int MAX_ATTRIBUTE_BYTES = 64 * 1024;
    static final int MAX_LINKS = 40;

    private final Path sysDir;
    private final SysfsReadLog log;
    private final Set<String> warnings = new LinkedHashSet<>();
    private final Map<String, Optional<String>> resolved = new HashMap<>();

    private SysfsTree(Path sysDir, SysfsReadLog log) {
        this.sysDir = sysDir;
        this.log = log;
    }

    /**
     * Opens a sysfs tree.
     *
     * @param input the root directory containing {@code sys/} (for the live host: {@code /}), or the {@code sys}
     *              directory itself; recognised by {@code bus/pci/devices} or {@code class/infiniband} below it
     * @return the tree
     * @throws InputException when {@code input} does not exist, is not a directory, is empty or holds no sysfs
     *                        tree; the message names the path
     */
    public static SysfsTree open(Path input) {
        return open(input, null);
    }

    /**
     * Opens a sysfs tree that records every entry it reads into {@code log} (see {@link #open(Path)}).
     *
     * @param log where to record reads, or null
     */
    public static SysfsTree open(Path input, SysfsReadLog log) {
        return new SysfsTree(locateSysDir(input), log);
    }

    /** @return the sysfs directory this tree reads ({@code <root>/sys}, or the input itself) */
    public Path sysDir() {
        return sysDir;
    }

    /** @return the file system path of {@code rel}, for messages */
    public Path pathOf(String rel) {
        return rel.isEmpty() ? sysDir : sysDir.resolve(rel);
    }

    /** @return warnings collected so far, in order, each naming a path; read-only snapshot */
    public List<String> warnings() {
        return List.copyOf(warnings);
    }

    /**
     * @param rel path relative to the sysfs directory
     * @return the real path (relative to the sysfs directory, no symlinks left), or empty when absent or when a
     *         symlink on the way is broken (which adds a warning)
     */
    public Optional<String> resolve(String rel) {
        String key = normalize(rel);
        Optional<String> hit = resolved.get(key);
        if (hit != null) {
            return hit;
        }
        Optional<String> result;
        int slash = key.lastIndexOf('/');
        if (key.isEmpty()) {
            result = Optional.of("");
        } else {
            Optional<String> parent = slash < 0 ? Optional.of("") : resolve(key.substring(0, slash));
            result = parent.map(p -> walk(p, key.substring(slash + 1), new int[]{0}));
        }
        resolved.put(key, result);
        return result;
    }

    /**
     * Reads a small attribute file and strips surrounding white space.
     *
     * @param rel path relative to the sysfs directory
     * @return the content, or empty when absent; an unreadable file (I/O error, a directory) adds a warning
     */
    public Optional<String> read(String rel) {
        return read(rel, true);
    }

    /**
     * Like {@link #read(String)} but an unreadable file gives empty without a warning. For attributes the kernel
     * refuses by design, such as {@code gid_attrs/types/<i>} of an entry owned by another network namespace
     * ({@code EINVAL}).
     */
    public Optional<String> readQuietly(String rel) {
        return read(rel, false);
    }

    /**
     * @param rel a directory relative to the sysfs directory
     * @return entry names sorted by {@link String#compareTo}; empty when absent or not a directory
     */
    public List<String> list(String rel) {
        Optional<String> real = resolve(rel);
        if (real.isEmpty()) {
            return List.of();
        }
        Path dir = pathOf(real.get());
        if (!Files.isDirectory(dir, LinkOption.NOFOLLOW_LINKS)) {
            return List.of();
        }
        try (Stream<Path> children = Files.list(dir)) {
            List<String> names = new ArrayList<>(children.map(p -> p.getFileName().toString()).sorted().toList());
            if (log != null) {
                log.directory(real.get());
            }
            return names;
        } catch (IOException | RuntimeException e) {
            warn(dir + ": cannot list directory (" + reason(e) + ")");
            return List.of();
        }
    }

    /** @return true when {@code rel} resolves to a directory */
    public boolean isDirectory(String rel) {
        Optional<String> real = resolve(rel);
        if (real.isEmpty() || !Files.isDirectory(pathOf(real.get()), LinkOption.NOFOLLOW_LINKS)) {
            return false;
        }
        if (log != null) {
            log.directory(real.get());
        }
        return true;
    }

    /** Adds a warning about content of this tree (used by the parsers on top of it). */
    void warn(String message) {
        warnings.add(message);
    }

    private Optional<String> read(String rel, boolean warnIfUnreadable) {
        Optional<String> real = resolve(rel);
        if (real.isEmpty()) {
            return Optional.empty();
        }
        Path file = pathOf(real.get());
        if (Files.isDirectory(file, LinkOption.NOFOLLOW_LINKS)) {
            if (warnIfUnreadable) {
                warn(file + ": cannot read (is a directory, expected an attribute file)");
            }
            return Optional.empty();
        }
        try (InputStream in = Files.newInputStream(file, LinkOption.NOFOLLOW_LINKS)) {
            byte[] bytes = in.readNBytes(MAX_ATTRIBUTE_BYTES);
            if (log != null) {
                log.file(real.get(), bytes);
            }
            return Optional.of(new String(bytes, StandardCharsets.UTF_8).strip());
        } catch (IOException | RuntimeException e) {
            if (warnIfUnreadable) {
                warn(file + ": cannot read (" + reason(e) + ")");
            }
            return Optional.empty();
        }
    }

    /**
     * Resolves {@code rel} starting at the real directory {@code base}.
     *
     * @return the real path, or null when absent or broken
     */
    private String walk(String base, String rel, int[] hops) {
        String real = base;
        for (String part : rel.split("/")) {
            if (part.isEmpty() || part.equals(".")) {
                continue;
            }
            if (part.equals("..")) {
                int slash = real.lastIndexOf('/');
                real = slash < 0 ? "" : real.substring(0, slash);
                continue;
            }
            String candidate = real.isEmpty() ? part : real + "/" + part;
            Path path = sysDir.resolve(candidate);
            if (Files.isSymbolicLink(path)) {
                String target;
                try {
                    target = Files.readSymbolicLink(path).toString();
                } catch (IOException | RuntimeException e) {
                    warn(path + ": cannot read symlink (" + reason(e) + ")");
                    return null;
                }
                if (log != null) {
                    log.symlink(candidate, target);
                }
                if (++hops[0] > MAX_LINKS) {
                    warn(path + ": too many levels of symbolic links (loop?)");
                    return null;
                }
                String start = real;
                String relTarget = target;
                if (target.startsWith("/")) {
                    if (!target.equals("/sys") && !target.startsWith("/sys/")) {
                        warn(path + ": symlink points outside sysfs, to " + target);
                        return null;
                    }
                    start = "";
                    relTarget = target.substring("/sys".length());
                }
                int before = warnings.size();
                String resolvedTarget = walk(start, relTarget, hops);
                if (resolvedTarget == null) {
                    if (warnings.size() == before) {
                        warn(path + ": broken symlink to " + target);
                    }
                    return null;
                }
                if (log != null && Files.isDirectory(sysDir.resolve(resolvedTarget), LinkOption.NOFOLLOW_LINKS)) {
                    log.directory(resolvedTarget);
                }
                real = resolvedTarget;
            } else if (Files.exists(path, LinkOption.NOFOLLOW_LINKS)) {
                real = candidate;
            } else {
                return null;
            }
        }
        return real;
    }

    private static String normalize(String rel) {
        String s = rel.replace('\\', '/');
        while (s.startsWith("/")) {
            s = s.substring(1);
        }
        while (s.endsWith("/")) {
            s = s.substring(0, s.length() - 1);
        }
        return s;
    }

    private static String reason(Exception e) {
        String message = e.getMessage();
        return e.getClass().getSimpleName() + (message == null ? "" : ": " + message);
    }

    private static Path locateSysDir(Path input) {
        if (!Files.exists(input, LinkOption.NOFOLLOW_LINKS) && !Files.exists(input)) {
            throw new InputException(input + ": no such file or directory");
        }
        if (!Files.isDirectory(input)) {
            throw new InputException(input + ": not a directory (expected a sysfs tree or a .tar.gz from "
                    + "'railyard topology collect')");
        }
        Path sys = input.resolve("sys");
        if (looksLikeSys(sys)) {
            return sys;
        }
        if (looksLikeSys(input)) {
            return input;
        }
        boolean empty;
        try (Stream<Path> children = Files.list(input)) {
            empty = children.findAny().isEmpty();
        } catch (IOException e) {
            throw new InputException(input + ": cannot list directory (" + reason(e) + ")", e);
        }
        if (empty) {
            throw new InputException(input + ": empty directory, expected a sysfs tree (" + sys
                    + "/bus/pci/devices)");
        }
        throw new InputException(input + ": not a sysfs tree: neither " + sys.resolve("bus/pci/devices") + " nor "
                + input.resolve("bus/pci/devices") + " exists");
    }

    private static boolean looksLikeSys(Path dir) {
        return Files.isDirectory(dir.resolve("bus/pci/devices")) || Files.isDirectory(dir.resolve("class/infiniband"));
    }
}
