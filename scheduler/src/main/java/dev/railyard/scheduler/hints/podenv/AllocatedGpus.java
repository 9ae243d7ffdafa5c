package dev.railyard.scheduler.hints.podenv;

import dev.railyard.topology.discovery.PciBusId;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;

/**
 * Which GPUs this container actually got, from what the NVIDIA container stack leaves in it:
 * <ol>
 *   <li>{@code NVIDIA_VISIBLE_DEVICES} (set by the NVIDIA device plugin's default {@code envvar} strategy), with the
 *       meanings the NVIDIA Container Toolkit documents for it (user guide, "GPU Enumeration": a list,
 *       {@code all}, {@code none}, {@code void} or empty or unset):
 *       <ul>
 *         <li>a comma list of {@code GPU-<uuid>} or host GPU indices: those GPUs;</li>
 *         <li>a path (the device plugin's {@code volume-mounts} strategy, {@code /var/run/nvidia-container-devices})
 *             whose directory entries are the device ids: those GPUs;</li>
 *         <li>{@code all}: every GPU of the node; they are listed by 2, or, when {@code /proc} shows none, the
 *             resolution says {@link Resolution#allOfNode() all of the node} and the hint's rail map names them;</li>
 *         <li>{@code none}: no GPU (only the driver's capabilities);</li>
 *         <li>{@code void} or empty (set to nothing): the runtime behaves like plain runc, "neither GPUs nor
 *             capabilities are exposed": no GPU. Nothing else is consulted, since the toolkit mounted no
 *             {@code /proc} entries of its own and any there are the host's;</li>
 *         <li>unset: the container was not set up by the NVIDIA runtime at all (an init container without GPU
 *             limits, or {@code railyard env} run on a saved {@code --root}): go on with 2, and when that finds
 *             nothing the GPUs are not known (the caller assumes the planned ones and says so);</li>
 *       </ul></li>
 *   <li>{@code /proc/driver/nvidia/gpus/<bus id>/information} (the container toolkit mounts only the container's
 *       GPUs there): {@code GPU UUID:} and {@code Bus Location:} of each;</li>
 *   <li>then {@code CUDA_VISIBLE_DEVICES}, when set and not blank, narrows that list like CUDA does: UUIDs (or
 *       unique UUID prefixes) select by UUID; integers are positions in the container's GPUs ordered by PCI bus id
 *       (CUDA's order with {@code CUDA_DEVICE_ORDER=PCI_BUS_ID}, and its default {@code FASTEST_FIRST} order on a
 *       node of identical GPUs); the first entry that matches nothing ends the list, as in CUDA.</li>
 * </ol>
 * MIG device ids ({@code MIG-...}) name no whole GPU and are reported, not mapped.
 */
public final class AllocatedGpus {
    /** PCI bus order (NVML's enumeration order); GPUs without a bus id last. */
    private static final Comparator<GpuId> BUS_ORDER = Comparator.comparing(
            (GpuId g) -> g.busId() == null ? null : PciBusId.parse(g.busId()).orElse(null),
            Comparator.nullsLast(Comparator.naturalOrder()));

    /**
     * One GPU as the container identifies it; at least one field is set.
     *
     * @param index  host NVML index, or null
     * @param uuid   {@code GPU-<uuid>}, or null
     * @param busId  sysfs-form PCI bus id ({@code 0000:1a:00.0}), or null
     */
    public record GpuId(Integer index, String uuid, String busId) {
        @Override
        public String toString() {
            return uuid != null ? uuid : busId != null ? busId : "GPU" + index;
        }
    }

    /**
     * @param gpus      the container's GPUs, or null when nothing listed them (see {@link #allOfNode()}; otherwise
     *                  the plan's GPUs are assumed)
     * @param allOfNode true for {@code NVIDIA_VISIBLE_DEVICES=all} with no {@code /proc} entries to list them: the
     *                  container has every GPU of the node ({@code gpus} is then null)
     * @param source    where they came from, for messages
     * @param notes     problems met on the way, one line each
     */
    public record Resolution(List<GpuId> gpus, boolean allOfNode, String source, List<String> notes) {
        public Resolution {
            gpus = gpus == null ? null : List.copyOf(gpus);
            notes = List.copyOf(notes);
        }

        /** @return true when the container's GPUs are listed */
        public boolean known() {
            return gpus != null;
        }
    }

    private AllocatedGpus() {
    }

    /**
     * @param nvidiaVisibleDevices value of {@code NVIDIA_VISIBLE_DEVICES}, or null when unset (an empty string is
     *                             set-but-empty, which the toolkit treats like {@code void})
     * @param cudaVisibleDevices   value of {@code CUDA_VISIBLE_DEVICES}, or null
     * @param root                 the filesystem root ({@code /}; a fake tree in tests) for {@code /proc} and the
     *                             volume-mounts directory
     */
    public static Resolution resolve(String nvidiaVisibleDevices, String cudaVisibleDevices, Path root) {
        List<String> notes = new ArrayList<>();
        List<GpuId> gpus = null;
        boolean all = false;
        String source;
        String nv = nvidiaVisibleDevices == null ? null : nvidiaVisibleDevices.strip();
        String nvLower = nv == null ? null : nv.toLowerCase(Locale.ROOT);
        if (nv != null && (nv.isEmpty() || nvLower.equals("void"))) {
            // toolkit docs: "void or empty or unset: nvidia-container-runtime will have the same behavior as runc
            // (i.e. neither GPUs nor capabilities are exposed)"
            return new Resolution(List.of(), false, "NVIDIA_VISIBLE_DEVICES=" + (nv.isEmpty() ? "(empty)" : nv)
                    + ": the NVIDIA container runtime exposes no GPU", notes);
        }
        if (nv == null) {
            source = "/proc/driver/nvidia/gpus";
        } else if (nvLower.equals("none")) {
            // toolkit docs: "none: no GPU is accessible, but driver capabilities are enabled"
            gpus = List.of();
            source = "NVIDIA_VISIBLE_DEVICES=none";
        } else if (nvLower.equals("all")) {
            all = true;
            source = "NVIDIA_VISIBLE_DEVICES=all, /proc/driver/nvidia/gpus";
        } else if (nv.startsWith("/")) {
            gpus = fromIds(listNames(root.resolve(nv.substring(1)), notes), notes);
            source = "NVIDIA_VISIBLE_DEVICES directory " + nv;
        } else {
            gpus = fromIds(List.of(nv.split(",")), notes);
            source = "NVIDIA_VISIBLE_DEVICES";
        }
        // the proc entries carry UUID and bus id; prefer them for the GPUs NVIDIA_VISIBLE_DEVICES named
        List<GpuId> proc = fromProc(root.resolve("proc/driver/nvidia/gpus"), notes);
        if (gpus == null) {
            gpus = proc;
        } else if (proc != null) {
            gpus = enrich(gpus, proc);
        }
        boolean allOfNode = all && gpus == null;
        if (allOfNode) {
            source = "NVIDIA_VISIBLE_DEVICES=all";
        }
        String cuda = cudaVisibleDevices == null ? "" : cudaVisibleDevices.strip();
        if (!cuda.isEmpty() && gpus != null) {
            gpus = narrow(gpus, cuda, notes);
            source += " narrowed by CUDA_VISIBLE_DEVICES";
        } else if (!cuda.isEmpty()) {
            notes.add("CUDA_VISIBLE_DEVICES=" + cuda + " is relative to the container's GPUs, which nothing else "
                    + "names; ignored");
        }
        return new Resolution(gpus, allOfNode, source, notes);
    }

    private static List<GpuId> fromIds(List<String> ids, List<String> notes) {
        if (ids == null) {
            return null;
        }
        List<GpuId> out = new ArrayList<>();
        for (String raw : ids) {
            String id = raw.strip();
            if (id.isEmpty()) {
                continue;
            }
            if (id.regionMatches(true, 0, "GPU-", 0, 4)) {
                out.add(new GpuId(null, canonicalUuid(id), null));
            } else if (id.matches("\\d{1,4}")) {
                out.add(new GpuId(Integer.parseInt(id), null, null));
            } else if (id.regionMatches(true, 0, "MIG-", 0, 4)) {
                notes.add("MIG device " + id + " is not a whole GPU; railyard env cannot pair it with an HCA");
            } else {
                notes.add("'" + id + "' in NVIDIA_VISIBLE_DEVICES is neither a GPU UUID nor an index; ignored");
            }
        }
        return out;
    }

    private static List<String> listNames(Path dir, List<String> notes) {
        if (!Files.isDirectory(dir)) {
            notes.add("NVIDIA_VISIBLE_DEVICES names directory " + dir + ", which does not exist");
            return null;
        }
        List<String> names = new ArrayList<>();
        try (DirectoryStream<Path> ds = Files.newDirectoryStream(dir)) {
            ds.forEach(p -> names.add(p.getFileName().toString()));
        } catch (IOException e) {
            notes.add("cannot list " + dir + ": " + e.getMessage());
            return null;
        }
        names.sort(Comparator.naturalOrder());
        return names;
    }

    /** @return GPUs listed under {@code dir} ordered by bus id, or null when the directory is absent or empty */
    private static List<GpuId> fromProc(Path dir, List<String> notes) {
        if (!Files.isDirectory(dir)) {
            return null;
        }
        List<GpuId> out = new ArrayList<>();
        try (DirectoryStream<Path> ds = Files.newDirectoryStream(dir)) {
            for (Path p : ds) {
                String name = p.getFileName().toString();
                String uuid = null;
                String bus = PciBusId.parse(name).map(PciBusId::toString).orElse(null);
                String info = GidTable.readOrNull(p.resolve("information"));
                if (info != null) {
                    for (String line : info.split("\n")) {
                        int colon = line.indexOf(':');
                        if (colon < 0) {
                            continue;
                        }
                        String key = line.substring(0, colon).strip();
                        String value = line.substring(colon + 1).strip();
                        if (key.equals("GPU UUID") && value.regionMatches(true, 0, "GPU-", 0, 4)) {
                            uuid = canonicalUuid(value);
                        } else if (key.equals("Bus Location")) {
                            bus = PciBusId.parse(value).map(PciBusId::toString).orElse(bus);
                        }
                    }
                }
                if (uuid != null || bus != null) {
                    out.add(new GpuId(null, uuid, bus));
                }
            }
        } catch (IOException e) {
            notes.add("cannot list " + dir + ": " + e.getMessage());
            return null;
        }
        if (out.isEmpty()) {
            return null;
        }
        out.sort(BUS_ORDER);
        return out;
    }


    /** Adds the UUID/bus id the proc entries know to GPUs named by UUID. */
    private static List<GpuId> enrich(List<GpuId> gpus, List<GpuId> proc) {
        List<GpuId> out = new ArrayList<>();
        for (GpuId g : gpus) {
            GpuId match = null;
            for (GpuId p : proc) {
                if (g.uuid() != null && g.uuid().equals(p.uuid())) {
                    match = p;
                }
            }
            out.add(match == null ? g : new GpuId(g.index(), match.uuid(), match.busId()));
        }
        return out;
    }

    private static List<GpuId> narrow(List<GpuId> gpus, String cuda, List<String> notes) {
        List<GpuId> ordered = new ArrayList<>(gpus);
        ordered.sort(BUS_ORDER.thenComparing(g -> g.index() == null ? Integer.MAX_VALUE : g.index()));
        List<GpuId> out = new ArrayList<>();
        for (String raw : cuda.split(",")) {
            String id = raw.strip();
            GpuId pick = null;
            if (id.matches("\\d{1,4}")) {
                int i = Integer.parseInt(id);
                pick = i < ordered.size() ? ordered.get(i) : null;
            } else if (id.regionMatches(true, 0, "GPU-", 0, 4)) {
                String prefix = canonicalUuid(id);
                List<GpuId> hits = ordered.stream().filter(g -> g.uuid() != null && g.uuid().startsWith(prefix))
                        .toList();
                pick = hits.size() == 1 ? hits.get(0) : null;
            }
            if (pick == null) {
                notes.add("CUDA_VISIBLE_DEVICES entry '" + id + "' matches none of the container's GPUs; CUDA "
                        + "ignores it and every entry after it");
                break;
            }
            if (!out.contains(pick)) {
                out.add(pick);
            }
        }
        return out;
    }

    /** {@code GPU-} in upper case, the hex part in lower case, as nvidia-smi prints it. */
    static String canonicalUuid(String uuid) {
        String s = uuid.strip();
        return "GPU-" + s.substring(4).toLowerCase(Locale.ROOT);
    }
}
