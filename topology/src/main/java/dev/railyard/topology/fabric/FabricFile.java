package dev.railyard.topology.fabric;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import dev.railyard.topology.InputException;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * Reads a static fabric file (Railyard's own YAML format) into a {@link FabricModel}.
 *
 * <p>Format (every key optional except those marked):
 * <pre>{@code
 * apiVersion: railyard.dev/v1alpha1     # if present, must be this
 * kind: Fabric                          # if present, must be this
 * tierNames: [leaf, spine, core]        # names of tiers 1, 2, 3, ...
 * switches:                             # required
 *   - name: core-0                      # required, unique
 *     tier: 3                           # required, >= 1 (1 = leaf)
 *   - name: spine-r0
 *     tier: 2
 *     uplinks: [core-0]                 # switches of a higher tier; several allowed
 *   - name: su1-leaf-r0
 *     tier: 1
 *     uplinks: [spine-r0]
 * nodes:                                # required
 *   - name: gpu-a1                      # or names: [gpu-a1, gpu-a2, ...]
 *     rails: [su1-leaf-r0, su1-leaf-r1] # rail-optimised: list position = rail index; null = rail not cabled
 *     nvlinkDomain: nvl72-rack-1        # optional: the nodes' multi-node NVLink domain (NVL72 rack)
 *   - name: cpu-1
 *     leaf: tor-1                       # or: every rail on one switch
 * }</pre>
 * Unknown keys, duplicate keys, missing required keys, unknown switches and uplinks that do not go up are errors.
 */
public final class FabricFile {
    /** The only accepted {@code apiVersion}. */
    public static final String API_VERSION = "railyard.dev/v1alpha1";
    /** The only accepted {@code kind}. */
    public static final String KIND = "Fabric";

    private static final ObjectMapper YAML = new ObjectMapper(new YAMLFactory())
            .enable(JsonParser.Feature.STRICT_DUPLICATE_DETECTION)
            .enable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES)
            .enable(DeserializationFeature.FAIL_ON_NULL_FOR_PRIMITIVES);

    record Doc(String apiVersion, String kind, List<String> tierNames, List<SwitchDoc> switches,
               List<NodeDoc> nodes) {
    }

    record SwitchDoc(String name, Integer tier, List<String> uplinks) {
    }

    record NodeDoc(String name, List<String> names, String leaf, List<String> rails, String nvlinkDomain) {
    }

    private FabricFile() {
    }

    /**
     * @param file the YAML file
     * @return the model
     * @throws InputException when the file cannot be read or is malformed; the message names the file and the line and
     *                        column, or the switch or node at fault
     */
    public static FabricModel read(Path file) {
        try (InputStream in = Files.newInputStream(file)) {
            return read(in, file.toString());
        } catch (NoSuchFileException e) {
            throw new InputException(file + ": no such file");
        } catch (IOException e) {
            throw InputException.reading(file.toString(), e);
        }
    }

    /**
     * @param in   YAML text
     * @param name a name for messages (file name or resource)
     * @return the model
     * @throws InputException when the text is malformed, naming {@code name} and where
     */
    public static FabricModel read(InputStream in, String name) {
        Doc doc;
        try {
            doc = YAML.readValue(in, Doc.class);
        } catch (IOException e) {
            // Jackson's own exceptions included: the key, line and column in words, no Java type names
            throw InputException.reading(name, e);
        }
        if (doc == null) {
            throw new InputException(name + ": empty fabric file");
        }
        return toModel(doc, name);
    }

    private static FabricModel toModel(Doc doc, String name) {
        if (doc.apiVersion() != null && !API_VERSION.equals(doc.apiVersion())) {
            throw new InputException(name + ": apiVersion '" + doc.apiVersion() + "' is not " + API_VERSION);
        }
        if (doc.kind() != null && !KIND.equals(doc.kind())) {
            throw new InputException(name + ": kind '" + doc.kind() + "' is not " + KIND);
        }
        if (doc.switches() == null || doc.switches().isEmpty()) {
            throw new InputException(name + ": no switches (key 'switches' is required)");
        }
        if (doc.nodes() == null || doc.nodes().isEmpty()) {
            throw new InputException(name + ": no nodes (key 'nodes' is required)");
        }
        FabricModel.Builder b = FabricModel.builder(FabricModel.Source.FILE, name);
        try {
            if (doc.tierNames() != null) {
                for (int i = 0; i < doc.tierNames().size(); i++) {
                    b.tierName(i + 1, doc.tierNames().get(i));
                }
            }
            int i = 0;
            for (SwitchDoc s : doc.switches()) {
                if (s == null || s.name() == null) {
                    throw new IllegalArgumentException("switches[" + i + "] has no name");
                }
                if (s.tier() == null) {
                    throw new IllegalArgumentException("switch " + s.name() + " has no tier");
                }
                b.addSwitch(s.name(), s.name(), s.tier(), s.uplinks());
                i++;
            }
            i = 0;
            for (NodeDoc n : doc.nodes()) {
                List<String> names = new ArrayList<>();
                if (n == null) {
                    throw new IllegalArgumentException("nodes[" + i + "] is empty");
                }
                if (n.name() != null) {
                    names.add(n.name());
                }
                if (n.names() != null) {
                    names.addAll(n.names());
                }
                if (names.isEmpty()) {
                    throw new IllegalArgumentException("nodes[" + i + "] has neither name nor names");
                }
                if ((n.leaf() == null) == (n.rails() == null)) {
                    throw new IllegalArgumentException("node " + names.get(0) + ": give exactly one of leaf and rails");
                }
                for (String node : names) {
                    if (b.isAttached(node)) {
                        throw new IllegalArgumentException("node " + node + " is listed twice");
                    }
                    b.nvlinkDomain(node, n.nvlinkDomain());
                    if (n.leaf() != null) {
                        b.attachAllRails(node, n.leaf());
                    } else {
                        for (int r = 0; r < n.rails().size(); r++) {
                            if (n.rails().get(r) != null) {
                                b.attach(node, r, n.rails().get(r));
                            }
                        }
                    }
                }
                i++;
            }
            return b.build();
        } catch (IllegalArgumentException e) {
            throw new InputException(name + ": " + e.getMessage(), e);
        }
    }
}
