package dev.railyard.scheduler.ipam;

import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.core.JacksonException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.MapperFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.json.JsonMapper;

import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;

/**
 * Parses the multus network-selection annotation ({@code k8s.v1.cni.cncf.io/networks}) exactly as multus does
 * (multus-cni {@code pkg/k8sclient/k8sclient.go} {@code parsePodNetworkAnnotation} and
 * {@code parsePodNetworkObjectName}):
 * <ul>
 *   <li>a value containing any of {@code [ { "} is JSON and must be a list of selection objects ({@code name},
 *       {@code namespace}, {@code interface} or its pre-3.2 alias {@code interfaceRequest}, {@code ips}, {@code mac},
 *       ...), keys matched case-insensitively as Go's {@code encoding/json} does;</li>
 *   <li>otherwise a comma list of {@code [<namespace>/]<name>[@<ifname>]}, each part trimmed, namespace and name
 *       DNS-1123 labels, ifname at most 15 characters without {@code /} or whitespace;</li>
 *   <li>an entry without namespace resolves in the pod's namespace.</li>
 * </ul>
 * Railyard is stricter than multus where multus would accept the annotation and then fail the pod at sandbox creation:
 * an empty name, and a JSON {@code name} holding {@code namespace/name} (multus looks that up literally and fails,
 * multus-cni#705) are rejected here with a message saying how to write it.
 */
public final class NetworkSelectionParser {
    private static final Pattern DNS1123_LABEL = Pattern.compile("^[a-z0-9]([-a-z0-9]*[a-z0-9])?$");
    private static final int IFNAMSIZ = 16;
    private static final ObjectMapper JSON = JsonMapper.builder()
            .enable(MapperFeature.ACCEPT_CASE_INSENSITIVE_PROPERTIES)
            .disable(MapperFeature.ALLOW_COERCION_OF_SCALARS)
            .disable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES)
            .enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS)
            .build();

    private NetworkSelectionParser() {
    }

    /**
     * @param annotation   the annotation value; null or empty means no secondary networks
     * @param podNamespace the pod's namespace, used for entries without one
     * @return the selections in annotation order
     * @throws NetworkAnnotationException when multus would reject the value or fail the pod on it
     */
    public static List<NetworkSelection> parse(String annotation, String podNamespace) {
        if (annotation == null || annotation.isEmpty()) {
            return List.of();
        }
        List<NetworkSelection> out = annotation.chars().anyMatch(c -> c == '[' || c == '{' || c == '"')
                ? parseJson(annotation, podNamespace) : parseText(annotation, podNamespace);
        return List.copyOf(out);
    }

    private static List<NetworkSelection> parseText(String annotation, String podNamespace) {
        List<NetworkSelection> out = new ArrayList<>();
        String[] items = annotation.split(",", -1);
        for (int i = 0; i < items.length; i++) {
            String item = items[i].strip();
            String where = "entry " + (i + 1) + " '" + item + "'";
            String[] slash = item.split("/", -1);
            String namespace = "";
            String rest;
            if (slash.length == 2) {
                namespace = slash[0].strip();
                rest = slash[1];
            } else if (slash.length == 1) {
                rest = slash[0];
            } else {
                throw new NetworkAnnotationException(where + ": more than one '/'; write [<namespace>/]<name>[@<ifname>]");
            }
            String[] at = rest.split("@", -1);
            String name = at[0].strip();
            String ifname = null;
            if (at.length == 2) {
                ifname = at[1].strip();
            } else if (at.length != 1) {
                throw new NetworkAnnotationException(where + ": more than one '@'; write [<namespace>/]<name>[@<ifname>]");
            }
            if (name.isEmpty()) {
                throw new NetworkAnnotationException(where + ": empty network name");
            }
            for (String label : new String[] {namespace, name}) {
                if (!label.isEmpty() && !DNS1123_LABEL.matcher(label).matches()) {
                    throw new NetworkAnnotationException(where + ": '" + label + "' is not a DNS-1123 label "
                            + "(lower-case letters, digits and '-', starting and ending alphanumeric)");
                }
            }
            if (ifname != null && !ifname.isEmpty() && (ifname.length() > IFNAMSIZ - 1
                    || ifname.chars().anyMatch(c -> c == '/' || Character.isWhitespace(c)))) {
                throw new NetworkAnnotationException(where + ": interface name '" + ifname
                        + "' must be at most 15 characters without '/' or spaces");
            }
            out.add(new NetworkSelection(i, namespace.isEmpty() ? podNamespace : namespace, name,
                    ifname == null || ifname.isEmpty() ? null : ifname, List.of(), null));
        }
        return out;
    }

    /** The JSON selection object; unknown keys are ignored as Go does. */
    private record JsonEntry(String name, String namespace, @JsonProperty("interface") String interfaceRequest,
                             @JsonProperty("interfaceRequest") String deprecatedInterfaceRequest, List<String> ips,
                             String mac, @JsonProperty("infiniband-guid") String infinibandGuid) {
    }

    private static List<NetworkSelection> parseJson(String annotation, String podNamespace) {
        JsonNode root;
        try {
            root = JSON.readTree(annotation);
        } catch (JacksonException e) {
            throw new NetworkAnnotationException("not valid JSON: " + oneLine(e));
        }
        if (root == null || !root.isArray()) {
            throw new NetworkAnnotationException("the JSON form must be a list of objects ([{\"name\": ...}]), found "
                    + (root == null ? "nothing" : root.getNodeType().toString().toLowerCase()));
        }
        List<NetworkSelection> out = new ArrayList<>();
        for (int i = 0; i < root.size(); i++) {
            JsonNode node = root.get(i);
            String where = "entry " + (i + 1) + " " + node;
            if (!node.isObject()) {
                throw new NetworkAnnotationException(where + ": not an object");
            }
            JsonEntry e;
            try {
                e = JSON.treeToValue(node, JsonEntry.class);
            } catch (JacksonException ex) {
                throw new NetworkAnnotationException(where + ": " + oneLine(ex));
            }
            String name = e.name() == null ? "" : e.name();
            if (name.isEmpty()) {
                throw new NetworkAnnotationException(where + ": no \"name\"");
            }
            if (name.contains("/")) {
                int slash = name.indexOf('/');
                throw new NetworkAnnotationException(where + ": \"name\" holds a namespace; multus looks it up "
                        + "literally as a NetworkAttachmentDefinition name and fails (multus-cni#705): write "
                        + "{\"namespace\": \"" + name.substring(0, slash) + "\", \"name\": \""
                        + name.substring(slash + 1) + "\"}");
            }
            for (String ip : e.ips() == null ? List.<String>of() : e.ips()) {
                boolean ok = ip != null && (ip.contains("/") ? AddressText.parseCidr(ip) != null
                        : AddressText.parseAddress(ip) != null);
                if (!ok) {
                    throw new NetworkAnnotationException(where + ": \"ips\" entry '" + ip + "' is not an IP or CIDR");
                }
            }
            if (e.mac() != null && !e.mac().isEmpty() && !isHardwareAddress(e.mac())) {
                throw new NetworkAnnotationException(where + ": \"mac\" '" + e.mac() + "' is not a MAC address");
            }
            if (e.infinibandGuid() != null && !e.infinibandGuid().isEmpty()
                    && !isHardwareAddress(e.infinibandGuid())) {
                throw new NetworkAnnotationException(where + ": \"infiniband-guid\" '" + e.infinibandGuid()
                        + "' is not a GUID");
            }
            String ifname = e.interfaceRequest();
            if ((ifname == null || ifname.isEmpty()) && e.deprecatedInterfaceRequest() != null) {
                ifname = e.deprecatedInterfaceRequest();
            }
            String namespace = e.namespace() == null || e.namespace().isEmpty() ? podNamespace : e.namespace();
            out.add(new NetworkSelection(i, namespace, name, ifname == null || ifname.isEmpty() ? null : ifname,
                    e.ips(), e.mac() == null || e.mac().isEmpty() ? null : e.mac()));
        }
        return out;
    }

    /**
     * Go {@code net.ParseMAC}: 6, 8 or 20 octets written {@code xx:xx:..}, {@code xx-xx-..} or
     * {@code xxxx.xxxx.xxxx..}.
     */
    static boolean isHardwareAddress(String text) {
        String[] groups;
        int digits;
        if (text.length() >= 14 && text.charAt(4) == '.') {
            groups = text.split("\\.", -1);
            digits = 4;
        } else if (text.length() >= 17 && (text.charAt(2) == ':' || text.charAt(2) == '-')) {
            groups = text.split(text.charAt(2) == ':' ? ":" : "-", -1);
            digits = 2;
        } else {
            return false;
        }
        int octets = groups.length * digits / 2;
        if (octets != 6 && octets != 8 && octets != 20) {
            return false;
        }
        for (String g : groups) {
            if (g.length() != digits || !g.chars().allMatch(c -> Character.digit(c, 16) >= 0)) {
                return false;
            }
        }
        return true;
    }

    static String oneLine(JacksonException e) {
        String msg = e.getOriginalMessage() == null ? e.getClass().getSimpleName() : e.getOriginalMessage();
        msg = msg.replaceAll("\\s+", " ").strip();
        if (e.getLocation() != null && e.getLocation().getLineNr() > 0) {
            msg += " (line " + e.getLocation().getLineNr() + ", column " + e.getLocation().getColumnNr() + ")";
        }
        return msg;
    }
}
