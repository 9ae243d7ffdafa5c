package dev.railyard.agent;

import com.fasterxml.jackson.core.JsonLocation;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.railyard.topology.InputException;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * The k8s-rdma-shared-dev-plugin's {@code config.json} (Mellanox/k8s-rdma-shared-dev-plugin {@code pkg/types/types.go},
 * README; the network-operator renders it into ConfigMap {@code rdma-devices}, key {@code config.json}):
 * {@code {"periodicUpdateInterval": N, "configList": [{resourceName, resourcePrefix, rdmaHcaMax,
 * selectors: {vendors, deviceIDs, drivers, ifNames, linkTypes}}]}}. The deprecated {@code devices} list (netdev
 * names) is read as {@code selectors.ifNames}.
 *
 * <p>Validation follows the plugin's: {@code resourceName} required, matching {@code ^[a-zA-Z0-9_]+$}, unique;
 * {@code rdmaHcaMax} required and at least 0; exactly one of {@code selectors} and {@code devices}.
 *
 * @param periodicUpdateInterval seconds between the plugin's rescans; null when unset (the plugin then uses 60)
 * @param configList             resource pools in file order
 */
public record RdmaSharedDevicePluginConfig(Integer periodicUpdateInterval, List<Pool> configList) {
    private static final Pattern RESOURCE_NAME = Pattern.compile("^[a-zA-Z0-9_]+$");
    private static final ObjectMapper JSON = new ObjectMapper();

    public RdmaSharedDevicePluginConfig {
        configList = configList == null ? List.of() : List.copyOf(configList);
    }

    /**
     * One shared pool, advertised to the kubelet as {@code <resourcePrefix>/<resourceName>} with {@code rdmaHcaMax}
     * device slots.
     *
     * @param resourcePrefix prefix, {@code rdma} when unset
     * @param resourceName   name ({@code mlx5_0}); a label only, it need not match the HCA's name
     * @param rdmaHcaMax     slots advertised (pods that can hold the resource at once)
     * @param selectors      which HCAs the pool covers
     */
    public record Pool(String resourcePrefix, String resourceName, int rdmaHcaMax, Selectors selectors) {
        /** @return the extended resource name, {@code <resourcePrefix>/<resourceName>} */
        public String extendedResourceName() {
            return resourcePrefix + "/" + resourceName;
        }
    }

    /**
     * Device selectors: OR within one list, AND across lists, exact string match; an empty list does not filter.
     *
     * @param vendors   PCI vendor ids in hex without {@code 0x} ({@code 15b3})
     * @param deviceIDs PCI device ids in hex ({@code 1021})
     * @param drivers   kernel driver names ({@code mlx5_core})
     * @param ifNames   PF netdev names ({@code lan2})
     * @param linkTypes netdev link types ({@code ether}, {@code infiniband})
     */
    public record Selectors(List<String> vendors, List<String> deviceIDs, List<String> drivers, List<String> ifNames,
                            List<String> linkTypes) {
        public Selectors {
            vendors = vendors == null ? List.of() : List.copyOf(vendors);
            deviceIDs = deviceIDs == null ? List.of() : List.copyOf(deviceIDs);
            drivers = drivers == null ? List.of() : List.copyOf(drivers);
            ifNames = ifNames == null ? List.of() : List.copyOf(ifNames);
            linkTypes = linkTypes == null ? List.of() : List.copyOf(linkTypes);
        }
    }

    /**
     * @param file the mounted {@code config.json}
     * @throws InputException when the file cannot be read or is invalid; the message names the file
     */
    public static RdmaSharedDevicePluginConfig read(Path file) {
        try {
            return parse(Files.readString(file), file.toString());
        } catch (IOException e) {
            // in words: "no such file or directory", "not UTF-8 text (a binary file?)", "is a directory"
            throw new InputException(file + ": cannot read rdma-shared-dev-plugin config: " + InputException.reason(e),
                    e);
        }
    }

    /**
     * @param json   the file's text
     * @param origin file name, for messages
     * @throws InputException on malformed JSON (line and column given) or a config the plugin would refuse (the
     *                        entry and field named)
     */
    public static RdmaSharedDevicePluginConfig parse(String json, String origin) {
        JsonNode root;
        try {
            root = JSON.readTree(json);
        } catch (JsonProcessingException e) {
            JsonLocation at = e.getLocation();
            String where = at == null ? "" : ": line " + at.getLineNr() + ", column " + at.getColumnNr();
            throw new InputException(origin + where + ": not valid JSON (" + e.getOriginalMessage() + ")", e);
        }
        if (root == null || !root.isObject()) {
            throw new InputException(origin + ": expected a JSON object with \"configList\"");
        }
        Integer interval = null;
        JsonNode intervalNode = root.get("periodicUpdateInterval");
        if (intervalNode != null && !intervalNode.isNull()) {
            if (!intervalNode.canConvertToInt() || intervalNode.asInt() < 0) {
                throw new InputException(origin + ": periodicUpdateInterval must be a number of seconds >= 0, got "
                        + intervalNode);
            }
            interval = intervalNode.asInt();
        }
        JsonNode list = root.get("configList");
        if (list == null || !list.isArray()) {
            throw new InputException(origin + ": \"configList\" is missing or not a list"
                    + (root.has("resourceList") ? " (\"resourceList\" belongs to the SR-IOV device plugin)" : ""));
        }
        List<Pool> pools = new ArrayList<>();
        Set<String> names = new HashSet<>();
        for (int i = 0; i < list.size(); i++) {
            String where = origin + ": configList[" + i + "]";
            JsonNode entry = list.get(i);
            if (!entry.isObject()) {
                throw new InputException(where + ": expected an object");
            }
            String name = text(entry, "resourceName", where);
            if (name == null || !RESOURCE_NAME.matcher(name).matches()) {
                throw new InputException(where + ": resourceName '" + name + "' must match ^[a-zA-Z0-9_]+$");
            }
            if (!names.add(name)) {
                throw new InputException(where + ": resourceName '" + name + "' appears twice");
            }
            String prefix = text(entry, "resourcePrefix", where);
            JsonNode max = entry.get("rdmaHcaMax");
            if (max == null || !max.canConvertToInt() || max.asInt() < 0) {
                throw new InputException(where + " (" + name + "): rdmaHcaMax must be a number >= 0, got " + max);
            }
            boolean hasSelectors = entry.has("selectors") && !entry.get("selectors").isNull();
            boolean hasDevices = entry.has("devices") && !entry.get("devices").isNull();
            if (hasSelectors == hasDevices) {
                throw new InputException(where + " (" + name + "): exactly one of \"selectors\" and \"devices\" "
                        + "must be given");
            }
            Selectors selectors;
            if (hasDevices) {
                selectors = new Selectors(null, null, null, strings(entry, "devices", where), null);
            } else {
                JsonNode s = entry.get("selectors");
                if (!s.isObject()) {
                    throw new InputException(where + " (" + name + "): selectors must be an object");
                }
                String sw = where + ".selectors";
                selectors = new Selectors(strings(s, "vendors", sw), strings(s, "deviceIDs", sw),
                        strings(s, "drivers", sw), strings(s, "ifNames", sw), strings(s, "linkTypes", sw));
            }
            pools.add(new Pool(prefix == null || prefix.isEmpty() ? "rdma" : prefix, name, max.asInt(), selectors));
        }
        return new RdmaSharedDevicePluginConfig(interval, pools);
    }

    private static String text(JsonNode node, String field, String where) {
        JsonNode v = node.get(field);
        if (v == null || v.isNull()) {
            return null;
        }
        if (!v.isTextual()) {
            throw new InputException(where + ": " + field + " must be a string, got " + v);
        }
        return v.asText();
    }

    private static List<String> strings(JsonNode node, String field, String where) {
        JsonNode v = node.get(field);
        if (v == null || v.isNull()) {
            return List.of();
        }
        if (!v.isArray()) {
            throw new InputException(where + ": " + field + " must be a list of strings, got " + v);
        }
        List<String> out = new ArrayList<>();
        for (JsonNode item : v) {
            if (!item.isTextual()) {
                throw new InputException(where + ": " + field + " must be a list of strings, got " + v);
            }
            out.add(item.asText());
        }
        return out;
    }
}
