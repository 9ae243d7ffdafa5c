package dev.railyard.scheduler.ipam;

import dev.railyard.api.multus.MacvlanNetwork;
import dev.railyard.api.multus.NetworkAttachmentDefinition;
import com.fasterxml.jackson.core.JacksonException;
import com.fasterxml.jackson.databind.JsonNode;

import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/**
 * Resolves a pod's network selection the way multus and the network-operator do: the NetworkAttachmentDefinition in
 * the pod's namespace (or the one it names), the MacvlanNetwork that renders it, and its CNI and whereabouts IPAM
 * config; a failure names what is missing or unreadable and where. A pure function of the objects it is given.
 */
final class NetworkResolver {
    private NetworkResolver() {
    }

    /**
     * @param s                    the pod's selection
     * @param nads                 NetworkAttachmentDefinitions by {@code namespace/name}
     * @param nadNamespacesByName  the namespaces holding a NetworkAttachmentDefinition of each name
     * @param macvlans             MacvlanNetworks by name
     * @return the resolution: the NetworkAttachmentDefinition's whereabouts config, or why there is none
     */
    static NetworkResolution resolve(NetworkSelection s, Map<String, NetworkAttachmentDefinition> nads,
                                     Map<String, Set<String>> nadNamespacesByName,
                                     Map<String, MacvlanNetwork> macvlans) {
        String key = s.key();
        NetworkAttachmentDefinition nad = nads.get(key);
        MacvlanNetwork macvlan = macvlans.get(s.name());
        boolean macvlanRendersHere = macvlan != null && macvlan.getSpec() != null
                && macvlan.getSpec().effectiveNetworkNamespace().equals(s.namespace());
        if (macvlanRendersHere) {
            String ipam = macvlan.getSpec().ipam();
            if (ipam != null && !ipam.isBlank() && !isJsonObject(ipam)) {
                return NetworkResolution.failed(key, PoolReason.NETWORK_CONFIG_INVALID, "MacvlanNetwork " + s.name()
                        + ": spec.ipam is not a JSON object (" + abbreviate(ipam) + "), so the network-operator cannot"
                        + " render NetworkAttachmentDefinition " + key
                        + (nad == null ? "" : " (the existing one is stale)"));
            }
        }
        if (nad == null) {
            StringBuilder m = new StringBuilder("no NetworkAttachmentDefinition " + s.name() + " in namespace "
                    + s.namespace());
            Set<String> elsewhere = new TreeSet<>(nadNamespacesByName.getOrDefault(s.name(), Set.of()));
            elsewhere.remove(s.namespace());
            if (!elsewhere.isEmpty()) {
                String other = elsewhere.iterator().next();
                m.append(" (multus resolves a name without namespace in the pod's namespace); it exists in ")
                        .append(String.join(", ", elsewhere)).append(": reference it as ").append(other).append('/')
                        .append(s.name());
            }
            if (macvlanRendersHere) {
                m.append("; MacvlanNetwork ").append(s.name()).append(" has not rendered it");
                if (macvlan.getStatus() != null && macvlan.getStatus().state() != null) {
                    m.append(" (state ").append(macvlan.getStatus().state());
                    if (macvlan.getStatus().reason() != null && !macvlan.getStatus().reason().isEmpty()) {
                        m.append(": ").append(macvlan.getStatus().reason());
                    }
                    m.append(')');
                }
            } else if (macvlan != null && macvlan.getSpec() != null) {
                m.append("; MacvlanNetwork ").append(s.name()).append(" renders it into namespace ")
                        .append(macvlan.getSpec().effectiveNetworkNamespace());
            }
            return NetworkResolution.failed(key, PoolReason.NETWORK_NOT_FOUND, m.toString());
        }
        String config = nad.getSpec() == null ? null : nad.getSpec().config();
        if (config == null || config.isBlank()) {
            return new NetworkResolution(key, null, null, null, null, List.of("NetworkAttachmentDefinition " + key
                    + " has no spec.config: multus reads the CNI config from each node's conf dir, so Railyard cannot"
                    + " count its addresses"));
        }
        CniNetworkConfig cni;
        try {
            cni = CniNetworkConfig.parse(config);
        } catch (IpamConfigException e) {
            return NetworkResolution.failed(key, PoolReason.NETWORK_CONFIG_INVALID,
                    "NetworkAttachmentDefinition " + key + ": " + e.getMessage());
        }
        if (!cni.whereabouts()) {
            return new NetworkResolution(key, null, null, null, cni.master(), List.of("NetworkAttachmentDefinition "
                    + key + (cni.ipam() == null ? " has no IPAM" : " uses IPAM type '" + cni.ipamType() + "'")
                    + ", not whereabouts: its addresses are not counted"));
        }
        try {
            IpamConfig ipam = IpamConfigParser.parse(cni.ipam(), cni.name());
            return new NetworkResolution(key, null, null, ipam, cni.master(), ipam.notes());
        } catch (IpamConfigException e) {
            return NetworkResolution.failed(key, PoolReason.IPAM_CONFIG_INVALID,
                    "NetworkAttachmentDefinition " + key + " IPAM: " + e.getMessage());
        }
    }

    private static boolean isJsonObject(String text) {
        try {
            JsonNode n = CniNetworkConfig.JSON.readTree(text);
            return n != null && n.isObject();
        } catch (JacksonException e) {
            return false;
        }
    }

    private static String abbreviate(String text) {
        String t = text.replaceAll("\\s+", " ").strip();
        return t.length() <= 60 ? t : t.substring(0, 57) + "...";
    }
}
