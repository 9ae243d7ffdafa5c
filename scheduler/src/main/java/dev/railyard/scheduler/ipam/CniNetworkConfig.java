package dev.railyard.scheduler.ipam;

import com.fasterxml.jackson.core.JacksonException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.json.JsonMapper;

import java.util.Map;

/**
 * The parts of a NetworkAttachmentDefinition's {@code spec.config} (a CNI config or conflist JSON string) that decide
 * its IPAM: the CNI {@code name}, the main plugin {@code type} and {@code master}, and the {@code ipam} object. For a
 * conflist the first plugin whose {@code ipam.type} is {@code whereabouts} is used (whereabouts' own
 * {@code LoadIPAMConfiguration} reads {@code plugins[0]}, where macvlan puts it). Keys match case-insensitively, as
 * Go's {@code encoding/json} does.
 *
 * @param name     CNI network name ({@code "name"}), or empty
 * @param type     CNI plugin type of the plugin carrying the IPAM ({@code macvlan}), or empty
 * @param master   {@code master} netdev of that plugin, or null
 * @param ipam     the {@code ipam} object, or null when there is none
 * @param ipamType {@code ipam.type}, or empty
 */
record CniNetworkConfig(String name, String type, String master, JsonNode ipam, String ipamType) {
    /** Go {@code encoding/json}: one value, nothing after it. */
    static final ObjectMapper JSON = JsonMapper.builder()
            .enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS).build();

    boolean whereabouts() {
        return "whereabouts".equals(ipamType);
    }

    /**
     * @param config the {@code spec.config} JSON string
     * @throws IpamConfigException when it is not a JSON object
     */
    static CniNetworkConfig parse(String config) {
        JsonNode root;
        try {
            root = JSON.readTree(config);
        } catch (JacksonException e) {
            throw new IpamConfigException("spec.config is not valid JSON: " + NetworkSelectionParser.oneLine(e));
        }
        if (root == null || !root.isObject()) {
            throw new IpamConfigException("spec.config is not a JSON object");
        }
        String name = text(field(root, "name"));
        JsonNode plugins = field(root, "plugins");
        if (text(field(root, "type")).isEmpty() && plugins != null && plugins.isArray()) {
            JsonNode chosen = null;
            for (JsonNode plugin : plugins) {
                JsonNode ipam = field(plugin, "ipam");
                if (ipam != null && "whereabouts".equals(text(field(ipam, "type")))) {
                    chosen = plugin;
                    break;
                }
                if (chosen == null && ipam != null && ipam.isObject()) {
                    chosen = plugin;
                }
            }
            if (chosen == null) {
                return new CniNetworkConfig(name, "", null, null, "");
            }
            return of(name, chosen);
        }
        return of(name, root);
    }

    private static CniNetworkConfig of(String name, JsonNode plugin) {
        JsonNode ipam = field(plugin, "ipam");
        if (ipam != null && !ipam.isObject()) {
            if (ipam.isNull()) {
                ipam = null;
            } else {
                throw new IpamConfigException("\"ipam\" is a " + ipam.getNodeType().toString().toLowerCase()
                        + ", not a JSON object");
            }
        }
        JsonNode master = field(plugin, "master");
        return new CniNetworkConfig(name, text(field(plugin, "type")), master == null || !master.isTextual() ? null
                : master.asText(), ipam, ipam == null ? "" : text(field(ipam, "type")));
    }

    /** Go {@code encoding/json} field lookup: the exact key, else the first key equal ignoring case. */
    static JsonNode field(JsonNode object, String key) {
        if (object == null || !object.isObject()) {
            return null;
        }
        JsonNode exact = object.get(key);
        if (exact != null) {
            return exact;
        }
        for (Map.Entry<String, JsonNode> e : object.properties()) {
            if (e.getKey().equalsIgnoreCase(key)) {
                return e.getValue();
            }
        }
        return null;
    }

    private static String text(JsonNode node) {
        return node != null && node.isTextual() ? node.asText() : "";
    }
}
