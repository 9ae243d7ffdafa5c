package dev.railyard.topology.discovery.sysfs;

import dev.railyard.topology.InputException;
import org.apache.commons.compress.archivers.tar.TarArchiveEntry;
import org.apache.commons.compress.archivers.tar.TarArchiveInputStream;
import org.apache.commons.compress.archivers.tar.TarArchiveOutputStream;
import org.apache.commons.compress.archivers.tar.TarConstants;

import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Instant;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.function.Function;
import java.util.stream.Stream;
import java.util.zip.GZIPInputStream;
import java.util.zip.GZIPOutputStream;

/**
 * The sysfs snapshot archive of {@code railyard topology collect}: a gzip-compressed POSIX tar holding exactly the
 * entries {@link SysfsTopologyParser} reads (recorded by a {@link SysfsReadLog}) below {@code sys/}, attribute
 * files with the bytes read, symlinks as symlinks with their targets unchanged. Extracting it anywhere and parsing
 * the extracted root (or handing the {@code .tar.gz} to the parser directly) reproduces what was read on the host.
 *
 * <p>Extraction refuses entries that would land outside the target directory (absolute names, {@code ..}, a path
 * through a symlink), more than {@value #MAX_ENTRIES} entries or more than {@value #MAX_EXTRACTED_BYTES} bytes of
 * file content; hard links, devices and FIFOs are skipped. Tar handling is Apache Commons Compress.
 */
public final class SysfsArchive {
    /** Most entries extracted from one archive. */
    public static final int MAX_ENTRIES = 500_000;
    /** Most file bytes extracted from one archive (256 MiB). */
    public static final long MAX_EXTRACTED_BYTES = 256L * 1024 * 1024;
    private static final String PREFIX = "sys/";

    private SysfsArchive() {
    }

    /**
     * What one collection wrote.
     *
     * @param archive     the file written
     * @param files       attribute files archived
     * @param symlinks    symlinks archived
     * @param directories directories archived
     * @param bytes       attribute bytes archived (before compression)
     * @param discovery   what the parser read while collecting
     */
    public record Summary(Path archive, int files, int symlinks, int directories, long bytes,
                          SysfsDiscovery discovery) {
    }

    /**
     * Reads a host's sysfs with {@link SysfsTopologyParser} and archives everything it read.
     *
     * @param root the root containing {@code sys/} ({@code /} on a live host) or the {@code sys} directory itself
     * @param out  the {@code .tar.gz} to write; replaced if it exists, written through a temporary file next to it
     * @return counts and the discovery
     * @throws InputException when {@code root} is not a sysfs tree or {@code out} cannot be written
     */
    public static Summary collect(Path root, Path out) {
        SysfsReadLog log = new SysfsReadLog();
        SysfsDiscovery discovery = new SysfsTopologyParser().discover(SysfsTree.open(root, log));
        int[] counts = write(log, out, Instant.now());
        return new Summary(out, counts[0], counts[1], counts[2], counts[3], discovery);
    }

    /**
     * Writes the entries of {@code log} below {@code sys/} as a gzip-compressed POSIX tar.
     *
     * @param mtime modification time stamped on every entry
     * @return {@code {files, symlinks, directories, bytes}}
     * @throws InputException when {@code out} cannot be written
     */
    static int[] write(SysfsReadLog log, Path out, Instant mtime) {
        Path absolute = out.toAbsolutePath();
        Path dir = absolute.getParent();
        int files = 0;
        int links = 0;
        int dirs = 0;
        long bytes = 0;
        Path temp = null;
        try {
            temp = Files.createTempFile(dir, ".railyard-collect-", ".tmp");
            try (OutputStream file = Files.newOutputStream(temp);
                 TarArchiveOutputStream tar = new TarArchiveOutputStream(
                         new GZIPOutputStream(new BufferedOutputStream(file)))) {
                tar.setLongFileMode(TarArchiveOutputStream.LONGFILE_POSIX);
                tar.setBigNumberMode(TarArchiveOutputStream.BIGNUMBER_POSIX);
                for (Map.Entry<String, SysfsReadLog.Entry> e : log.entries().entrySet()) {
                    String name = PREFIX + e.getKey();
                    TarArchiveEntry entry;
                    switch (e.getValue()) {
                        case SysfsReadLog.Directory d -> {
                            entry = new TarArchiveEntry(name + "/");
                            entry.setMode(0755);
                            dirs++;
                        }
                        case SysfsReadLog.Symlink s -> {
                            entry = new TarArchiveEntry(name, TarConstants.LF_SYMLINK);
                            entry.setLinkName(s.target());
                            entry.setMode(0777);
                            links++;
                        }
                        case SysfsReadLog.File f -> {
                            entry = new TarArchiveEntry(name);
                            entry.setSize(f.content().length);
                            entry.setMode(0444);
                            files++;
                            bytes += f.content().length;
                        }
                    }
                    entry.setModTime(mtime.toEpochMilli());
                    tar.putArchiveEntry(entry);
                    if (e.getValue() instanceof SysfsReadLog.File f) {
                        tar.write(f.content());
                    }
                    tar.closeArchiveEntry();
                }
                tar.finish();
            }
            Files.move(temp, absolute, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
            temp = null;
        } catch (IOException | UncheckedIOException e) {
            throw new InputException(out + ": cannot write archive (" + e.getMessage() + ")", e);
        } finally {
            if (temp != null) {
                try {
                    Files.deleteIfExists(temp);
                } catch (IOException ignored) {
                    // best effort: the temporary file is hidden and named after us
                }
            }
        }
        return new int[]{files, links, dirs, (int) Math.min(bytes, Integer.MAX_VALUE)};
    }

    /**
     * Extracts an archive into a temporary directory, applies {@code action} to it and deletes the directory.
     *
     * @param archive a {@code .tar.gz}
     * @param action  what to do with the extracted root (it contains {@code sys/})
     * @return what {@code action} returned
     * @throws InputException when the archive is unreadable, corrupt or unsafe; the message names it
     */
    public static <T> T withExtracted(Path archive, Function<Path, T> action) {
        Path dir;
        try {
            dir = Files.createTempDirectory("railyard-sysfs-");
        } catch (IOException e) {
            throw new InputException(archive + ": cannot create a temporary directory to extract into ("
                    + e.getMessage() + ")", e);
        }
        try {
            extract(archive, dir);
            return action.apply(dir);
        } finally {
            deleteTree(dir);
        }
    }

    /**
     * Extracts {@code archive} (gzip-compressed or plain tar) into {@code into} (which must exist).
     *
     * @throws InputException when the archive is unreadable, corrupt, too large or holds an entry that would land
     *                        outside {@code into}
     */
    public static void extract(Path archive, Path into) {
        Path root = into.toAbsolutePath().normalize();
        Set<Path> checkedDirs = new HashSet<>();
        int entries = 0;
        long bytes = 0;
        boolean gzip = isGzip(archive);
        try (InputStream file = new BufferedInputStream(Files.newInputStream(archive));
             TarArchiveInputStream tar = new TarArchiveInputStream(gzip ? new GZIPInputStream(file) : file)) {
            TarArchiveEntry entry;
            while ((entry = tar.getNextEntry()) != null) {
                if (++entries > MAX_ENTRIES) {
                    throw new InputException(archive + ": more than " + MAX_ENTRIES + " entries");
                }
                Path target = safeTarget(archive, root, entry.getName());
                if (target == null) {
                    continue;
                }
                ensureNoLinkOnTheWay(archive, root, target.getParent(), checkedDirs, entry.getName());
                Files.createDirectories(target.getParent());
                if (entry.isDirectory()) {
                    if (!Files.isDirectory(target, LinkOption.NOFOLLOW_LINKS)) {
                        Files.createDirectory(target);
                    }
                } else if (entry.isSymbolicLink()) {
                    try {
                        Files.createSymbolicLink(target, Path.of(entry.getLinkName()));
                    } catch (FileAlreadyExistsException e) {
                        throw new InputException(archive + ": entry " + entry.getName() + " appears twice", e);
                    }
                } else if (entry.isFile()) {
                    bytes += entry.getSize();
                    if (bytes > MAX_EXTRACTED_BYTES) {
                        throw new InputException(archive + ": more than " + MAX_EXTRACTED_BYTES
                                + " bytes of content");
                    }
                    Files.copy(tar, target, StandardCopyOption.REPLACE_EXISTING);
                }
            }
        } catch (InputException e) {
            throw e;
        } catch (IOException | UncheckedIOException | IllegalArgumentException e) {
            throw new InputException(archive + ": not a readable " + (gzip ? "tar.gz" : "tar")
                    + " sysfs snapshot: " + InputException.reason(e), e);
        }
    }

    /** @return true when the file name ends in {@code .tar.gz}, {@code .tgz} or {@code .tar} (any case) */
    static boolean looksLikeArchiveName(Path file) {
        String name = file.getFileName() == null ? "" : file.getFileName().toString().toLowerCase(Locale.ROOT);
        return name.endsWith(".tar.gz") || name.endsWith(".tgz") || name.endsWith(".tar");
    }

    /**
     * @return true when the file starts with the gzip magic bytes {@code 1f 8b} or is a plain tar ({@code ustar}
     *         magic at offset 257); both are accepted by {@link #extract(Path, Path)}
     */
    static boolean isArchive(Path file) {
        try (InputStream in = Files.newInputStream(file)) {
            byte[] head = in.readNBytes(263);
            boolean gzip = head.length >= 2 && (head[0] & 0xff) == 0x1f && (head[1] & 0xff) == 0x8b;
            boolean tar = head.length >= 262 && new String(head, 257, 5, java.nio.charset.StandardCharsets.US_ASCII)
                    .equals("ustar");
            return gzip || tar;
        } catch (IOException e) {
            return false;
        }
    }

    private static boolean isGzip(Path file) {
        try (InputStream in = Files.newInputStream(file)) {
            return in.read() == 0x1f && in.read() == 0x8b;
        } catch (IOException e) {
            return false;
        }
    }

    private static Path safeTarget(Path archive, Path root, String name) {
        String clean = name;
        while (clean.startsWith("./")) {
            clean = clean.substring(2);
        }
        if (clean.isEmpty() || clean.equals(".") || clean.equals("./")) {
            return null;
        }
        if (clean.startsWith("/") || List.of(clean.split("/")).contains("..")) {
            throw new InputException(archive + ": entry " + name + " would be extracted outside the target directory");
        }
        Path target = root.resolve(clean).normalize();
        if (!target.startsWith(root) || target.equals(root)) {
            throw new InputException(archive + ": entry " + name + " would be extracted outside the target directory");
        }
        return target;
    }

    private static void ensureNoLinkOnTheWay(Path archive, Path root, Path dir, Set<Path> checked, String name) {
        Path current = dir;
        while (current != null && !current.equals(root) && !checked.contains(current)) {
            if (Files.isSymbolicLink(current)) {
                throw new InputException(archive + ": entry " + name + " would be extracted through the symlink "
                        + root.relativize(current));
            }
            current = current.getParent();
        }
        if (Files.isDirectory(dir, LinkOption.NOFOLLOW_LINKS)) {
            checked.add(dir);
        }
    }

    private static void deleteTree(Path dir) {
        try (Stream<Path> paths = Files.walk(dir)) {
            for (Path p : paths.sorted(Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(p);
            }
        } catch (IOException | UncheckedIOException ignored) {
            // best effort: a temporary directory left behind is harmless
        }
    }
}
