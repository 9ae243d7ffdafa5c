package dev.railyard.scheduler.cluster;

import com.fasterxml.jackson.core.JsonLocation;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.MappingIterator;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.json.JsonMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import com.fasterxml.jackson.dataformat.yaml.YAMLMapper;
import dev.railyard.topology.InputException;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.stream.Stream;

/**
 * Reads a snapshot directory: files of Kubernetes objects as {@code kubectl get -o yaml} or {@code -o json} writes
 * them, into the same {@link ClusterObjects} the live cache produces.
 *
 * <p>Accepted, in any mix: files ending in {@code .yaml}, {@code .yml} or {@code .json} anywhere under the
 * directory (hidden files and directories skipped), each holding one or more documents ({@code ---}-separated YAML,
 * or concatenated JSON values); a document is one object, a {@code kind: List} of objects (what {@code kubectl get}
 * prints for several objects, items carrying their own {@code apiVersion} and {@code kind}), or a typed list such as
 * {@code PodList} whose items may omit {@code apiVersion}/{@code kind} (the API server's list form). Objects are
 * classified by API group and kind against {@link WatchedKind}; other kinds are ignored with a note per file.
 *
 * <p>A file that cannot be read whole (a YAML or JSON syntax error, say a {@code pods.yaml} cut off mid-way; a list
 * whose {@code kind} never comes, which kubectl writes after the items; not UTF-8; unreadable) is bad input: the
 * answer would be built on a cluster missing every object after the damage (the pods of a {@code kind: List} are
 * all in its one document), so their GPUs would look free and their addresses unused. {@link #read} then throws,
 * naming the file, line, column and document. Problems of single objects in a
 * readable file become warnings that name the file, the document (1-based), the list item (0-based, as in
 * {@code items[3]}) and the object when its name is known: an object without {@code apiVersion}, {@code kind} or
 * {@code metadata.name}, metadata of the wrong shape, the same object in two places (the later one is used). A
 * namespaced object without a namespace is put in {@code default}, as {@code kubectl apply} would, with a warning.
 */
public final class SnapshotDirectory {
    private static final ObjectMapper YAML = YAMLMapper.builder(new YAMLFactory())
            .disable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES).build();
    private static final ObjectMapper JSON = JsonMapper.builder()
            .disable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES).build();

    /**
     * What was read.
     *
     * @param objects  the objects, as the live cache would hold them ({@code version} 0, {@code synced} true, no kind
     *                 disabled: a snapshot cannot tell a missing CRD from a kind with no objects)
     * @param files    files read, relative to the directory, in reading order
     * @param counts   objects read per kind
     * @param warnings problems, one line each, naming file and object
     * @param notes    things ignored on purpose (other kinds, other file types), one line each
     * @param others   readable objects of kinds Railyard does not watch (a Volcano Job, say), in reading order
     */
    public record Loaded(ClusterObjects objects, List<String> files, Map<WatchedKind, Integer> counts,
                         List<String> warnings, List<String> notes, List<GenericKubernetesResource> others) {
        public Loaded {
            files = List.copyOf(files);
            counts = Map.copyOf(counts);
            warnings = List.copyOf(warnings);
            notes = List.copyOf(notes);
            others = List.copyOf(others);
        }

        /** @return objects read, over all kinds */
        public int total() {
            return counts.values().stream().mapToInt(Integer::intValue).sum();
        }
    }

    private SnapshotDirectory() {
    }

    /**
     * @param dir the snapshot directory
     * @return the objects and what went wrong on the way
     * @throws InputException when {@code dir} is not a readable directory, holds no {@code .yaml}/{@code .yml}/
     *                        {@code .json} file, one of them cannot be read whole (syntax error, not UTF-8,
     *                        unreadable: the message names file, line and column), or no Railyard object could be
     *                        read from any of them (the message then carries the first problems)
     */
    public static Loaded read(Path dir) {
        if (!Files.isDirectory(dir)) {
            throw new InputException("snapshot " + dir + ": not a directory");
        }
        List<Path> files = new ArrayList<>();
        List<String> notes = new ArrayList<>();
        try (Stream<Path> walk = Files.walk(dir)) {
            walk.filter(Files::isRegularFile).sorted().forEach(p -> {
                Path rel = dir.relativize(p);
                for (Path part : rel) {
                    if (part.toString().startsWith(".")) {
                        return;
                    }
                }
                String n = p.getFileName().toString().toLowerCase(Locale.ROOT);
                if (n.endsWith(".yaml") || n.endsWith(".yml") || n.endsWith(".json")) {
                    files.add(p);
                } else {
                    notes.add(rel + ": ignored (not .yaml, .yml or .json)");
                }
            });
        } catch (IOException | RuntimeException e) {
            throw new InputException("snapshot " + dir + ": cannot list files: " + e.getMessage(), e);
        }
        if (files.isEmpty()) {
            throw new InputException("snapshot " + dir + ": no .yaml, .yml or .json files");
        }
        Reader reader = new Reader(dir);
        List<String> names = new ArrayList<>();
        for (Path f : files) {
            String name = dir.relativize(f).toString();
            names.add(name);
            reader.file(f, name);
        }
        Map<WatchedKind, List<GenericKubernetesResource>> objects = new LinkedHashMap<>();
        Map<WatchedKind, Integer> counts = new LinkedHashMap<>();
        for (WatchedKind k : WatchedKind.ALL) {
            List<GenericKubernetesResource> list = new ArrayList<>(reader.byKind.get(k).values());
            objects.put(k, List.copyOf(list));
            counts.put(k, list.size());
        }
        notes.addAll(reader.notes);
        if (counts.values().stream().allMatch(c -> c == 0)) {
            String first = reader.warnings.isEmpty() ? "no object of a kind Railyard reads (Node, Pod, NodeTopology, "
                    + "IPPool, OverlappingRangeIPReservation, NodeSlicePool, NetworkAttachmentDefinition, "
                    + "MacvlanNetwork, PodGroup of Volcano or scheduler-plugins, HyperNode)"
                    : String.join("; ", reader.warnings.subList(0, Math.min(3, reader.warnings.size())));
            throw new InputException("snapshot " + dir + ": nothing usable: " + first);
        }
        ClusterObjects co = new ClusterObjects(Instant.now(), 0, objects, Set.of(), true);
        return new Loaded(co, names, counts, reader.warnings, notes, reader.others);
    }

    /** Why a damaged file stops the read, at the end of its message. */
    static final String DAMAGED = "fix or remove the file: read in part, its missing objects would look absent "
            + "(their GPUs free, their addresses unused)";

    /** Accumulates objects over files. */
    private static final class Reader {
        final Map<WatchedKind, Map<String, GenericKubernetesResource>> byKind = new LinkedHashMap<>();
        final Map<String, String> whereSeen = new TreeMap<>();
        final List<String> warnings = new ArrayList<>();
        final List<String> notes = new ArrayList<>();
        final List<GenericKubernetesResource> others = new ArrayList<>();
        final Path dir;

        Reader(Path dir) {
            this.dir = dir;
            for (WatchedKind k : WatchedKind.ALL) {
                byKind.put(k, new LinkedHashMap<>());
            }
        }

        void file(Path path, String name) {
            boolean json = name.toLowerCase(Locale.ROOT).endsWith(".json");
            ObjectMapper mapper = json ? JSON : YAML;
            Map<String, Integer> ignored = new TreeMap<>();
            int doc = 0;
            try (InputStream in = Files.newInputStream(path);
                 MappingIterator<JsonNode> it = mapper.readerFor(JsonNode.class).readValues(in)) {
                while (it.hasNextValue()) {
                    JsonNode n = it.nextValue();
                    doc++;
                    document(n, name, doc, ignored);
                }
            } catch (JsonProcessingException e) {
                JsonLocation loc = e.getLocation();
                throw new InputException("snapshot " + dir + ": " + name + (loc == null || loc.getLineNr() < 1 ? ""
                        : " line " + loc.getLineNr() + ", column " + loc.getColumnNr()) + " (document " + (doc + 1)
                        + "): " + problem(e) + "; " + DAMAGED, e);
            } catch (IOException | RuntimeException e) {
                if (e instanceof InputException) {
                    throw (InputException) e;
                }
                throw new InputException("snapshot " + dir + ": " + name + ": cannot read: "
                        + oneLine(InputException.reason(e)) + "; " + DAMAGED, e);
            }
            if (!ignored.isEmpty()) {
                List<String> parts = new ArrayList<>();
                ignored.forEach((k, c) -> parts.add(c + " " + k));
                notes.add(name + ": kinds Railyard does not watch (kept only for Volcano Job look-ups): " + String.join(", ", parts));
            }
        }

        private void document(JsonNode n, String file, int doc, Map<String, Integer> ignored) {
            String where = file + " document " + doc;
            if (n == null || n.isNull() || n.isMissingNode()) {
                return;
            }
            if (!n.isObject()) {
                warnings.add(where + ": not an object (" + n.getNodeType().toString().toLowerCase(Locale.ROOT)
                        + "); skipped");
                return;
            }
            String kind = n.path("kind").asText("");
            JsonNode items = n.get("items");
            if (items != null && (kind.isEmpty() || kind.endsWith("List"))) {
                if (kind.isEmpty()) {
                    // kubectl -o yaml sorts the keys: apiVersion, items, kind, metadata. A list whose kind never
                    // came is a file cut off after (or inside) its items
                    throw new InputException("snapshot " + dir + ": " + where + ": a list of "
                            + (items.isArray() ? items.size() + " items" : "items") + " without kind (kubectl writes "
                            + "'kind: List' after the items): the file looks cut off; " + DAMAGED);
                }
                if (!items.isArray()) {
                    warnings.add(where + " (" + (kind.isEmpty() ? "list" : kind) + "): items is not a list; skipped");
                    return;
                }
                String itemKind = kind.endsWith("List") && !kind.equals("List")
                        ? kind.substring(0, kind.length() - "List".length()) : null;
                String itemApiVersion = n.path("apiVersion").asText(null);
                for (int i = 0; i < items.size(); i++) {
                    JsonNode item = items.get(i);
                    String w = where + " items[" + i + "]";
                    if (!item.isObject()) {
                        warnings.add(w + ": not an object; skipped");
                        continue;
                    }
                    ObjectNode o = (ObjectNode) item;
                    if (itemKind != null && !o.hasNonNull("kind")) {
                        o.put("kind", itemKind);
                        if (itemApiVersion != null && !o.hasNonNull("apiVersion")) {
                            o.put("apiVersion", itemApiVersion);
                        }
                    }
                    object(o, w, ignored);
                }
                return;
            }
            object((ObjectNode) n, where, ignored);
        }

        private void object(ObjectNode o, String where, Map<String, Integer> ignored) {
            String apiVersion = o.path("apiVersion").asText("");
            String kind = o.path("kind").asText("");
            JsonNode meta = o.get("metadata");
            String name = meta != null && meta.isObject() ? meta.path("name").asText("") : "";
            String ns = meta != null && meta.isObject() ? meta.path("namespace").asText("") : "";
            String id = (kind.isEmpty() ? "object" : kind) + " "
                    + (name.isEmpty() ? "(no name)" : ns.isEmpty() ? name : ns + "/" + name);
            if (kind.isEmpty() || apiVersion.isEmpty()) {
                warnings.add(where + " (" + id + "): no " + (kind.isEmpty() ? "kind" : "apiVersion") + "; skipped");
                return;
            }
            WatchedKind wk = classify(apiVersion, kind);
            if (wk == null) {
                ignored.merge(kind + " " + apiVersion, 1, Integer::sum);
                if (meta != null && meta.isObject() && !name.isBlank()) {
                    try {
                        others.add(YAML.treeToValue(o, GenericKubernetesResource.class));
                    } catch (JsonProcessingException | IllegalArgumentException e) {
                        // not read by Railyard: its shape does not matter
                    }
                }
                return;
            }
            if (meta == null || !meta.isObject()) {
                warnings.add(where + " (" + id + "): metadata is " + (meta == null ? "missing" : "not an object")
                        + "; skipped");
                return;
            }
            if (name.isBlank()) {
                warnings.add(where + " (" + id + "): metadata.name is missing; skipped");
                return;
            }
            if (!wk.apiVersion().equals(apiVersion)) {
                warnings.add(where + " (" + id + "): apiVersion " + apiVersion + ", Railyard reads "
                        + wk.apiVersion() + "; read as that version");
                o.put("apiVersion", wk.apiVersion());
            }
            ObjectNode m = (ObjectNode) meta;
            if (wk.namespaced() && ns.isBlank()) {
                warnings.add(where + " (" + id + "): no metadata.namespace; put in namespace default");
                m.put("namespace", "default");
                ns = "default";
                id = kind + " default/" + name;
            } else if (!wk.namespaced() && !ns.isBlank()) {
                m.remove("namespace");
                ns = "";
            }
            GenericKubernetesResource r;
            try {
                r = YAML.treeToValue(o, GenericKubernetesResource.class);
            } catch (JsonProcessingException | IllegalArgumentException e) {
                String msg = e instanceof JsonProcessingException j ? j.getOriginalMessage() : e.getMessage();
                String path = e instanceof com.fasterxml.jackson.databind.JsonMappingException jm
                        ? jm.getPathReference() : "";
                warnings.add(where + " (" + id + "): " + fieldPath(path) + oneLine(msg) + "; skipped");
                return;
            }
            String key = ns.isEmpty() ? name : ns + "/" + name;
            // by kind and API group: a Volcano and a coscheduling PodGroup may share a name
            String previous = whereSeen.put(wk + " " + key, where);
            if (previous != null) {
                warnings.add(where + " (" + id + "): also in " + previous + "; this one is used");
            }
            byKind.get(wk).put(key, r);
        }
    }

    /** @return the watched kind of this apiVersion and kind (same group and kind; versions may differ), or null */
    static WatchedKind classify(String apiVersion, String kind) {
        int slash = apiVersion.indexOf('/');
        String group = slash < 0 ? "" : apiVersion.substring(0, slash);
        for (WatchedKind k : WatchedKind.ALL) {
            if (k.kind().equals(kind) && k.group().equals(group)) {
                return k;
            }
        }
        return null;
    }

    private static String fieldPath(String jacksonPath) {
        if (jacksonPath == null || jacksonPath.isEmpty()) {
            return "";
        }
        // "io.fabric8...GenericKubernetesResource["metadata"]->io.fabric8...ObjectMeta["labels"]" -> metadata.labels
        StringBuilder b = new StringBuilder();
        java.util.regex.Matcher m = java.util.regex.Pattern.compile("\\[\"([^\"]*)\"]|\\[(\\d+)]").matcher(jacksonPath);
        while (m.find()) {
            if (m.group(1) != null) {
                if (!b.isEmpty()) {
                    b.append('.');
                }
                b.append(m.group(1));
            } else {
                b.append('[').append(m.group(2)).append(']');
            }
        }
        return b.isEmpty() ? "" : b + ": ";
    }

    /**
     * @return a YAML or JSON syntax error in one line, without the source excerpt and position lines SnakeYAML puts
     *         in its message ({@code while parsing a flow sequence: expected ',' or ']', but got <stream end>})
     */
    public static String problem(JsonProcessingException e) {
        // in words: "not UTF-8 text (a binary file?)", "nested more than 1000 levels deep", the parser's first
        // lines without Java type names
        return oneLine(InputException.reason(e));
    }

    private static String oneLine(String s) {
        if (s == null) {
            return "unreadable";
        }
        String t = s.replaceAll("\\s+", " ").trim();
        return t.length() > 200 ? t.substring(0, 200) + "..." : t;
    }
}
