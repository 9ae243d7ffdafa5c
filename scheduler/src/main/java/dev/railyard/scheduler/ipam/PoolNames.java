package dev.railyard.scheduler.ipam;

import inet.ipaddr.IPAddress;

/**
 * whereabouts' object naming rules (upstream {@code pkg/storage/kubernetes/ipam.go} {@code IPPoolName},
 * {@code normalizeRange}, {@code NormalizeIP}).
 */
final class PoolNames {
    private PoolNames() {
    }

    /**
     * {@code normalizeRange}: append {@code 0} when the text ends in {@code :}, then replace every {@code :} and
     * {@code /} by {@code -}. {@code 192.168.4.0/22} gives {@code 192.168.4.0-22}, {@code fd00:10::/64} gives
     * {@code fd00-10---64}.
     */
    static String normalize(String range) {
        String r = range.endsWith(":") ? range + "0" : range;
        return r.replace(':', '-').replace('/', '-');
    }

    /**
     * {@code IPPoolName}.
     *
     * @param networkName    {@code network_name}, or empty
     * @param nodeName       the node in node-slice mode, else null or empty
     * @param canonicalRange the canonical network CIDR (normal mode) or the node's slice CIDR (node-slice mode)
     */
    static String ipPool(String networkName, String nodeName, String canonicalRange) {
        StringBuilder b = new StringBuilder();
        if (networkName != null && !networkName.isEmpty()) {
            b.append(networkName).append('-');
        }
        if (nodeName != null && !nodeName.isEmpty()) {
            b.append(nodeName).append('-');
        }
        return b.append(normalize(canonicalRange)).toString();
    }

    /** {@code NormalizeIP}: the OverlappingRangeIPReservation name of one address. */
    static String reservation(String networkName, IPAddress ip) {
        String text = AddressText.format(ip);
        if (text.endsWith(":")) {
            text += "0";
        }
        text = text.replace(':', '-');
        return networkName == null || networkName.isEmpty() ? text : networkName + "-" + text;
    }

    /**
     * Inverse of {@link #reservation}: the address an OverlappingRangeIPReservation of this network name reserves.
     *
     * @return the address, or null when the name does not belong to this network name (whereabouts, which looks up
     *         reservations by exact name, would not find it either)
     */
    static IPAddress reservedAddress(String objectName, String networkName) {
        String rest = objectName;
        if (networkName != null && !networkName.isEmpty()) {
            if (!objectName.startsWith(networkName + "-")) {
                return null;
            }
            rest = objectName.substring(networkName.length() + 1);
        }
        IPAddress ip = AddressText.parseAddress(rest.indexOf('.') >= 0 && rest.indexOf('-') < 0
                ? rest : rest.replace('-', ':'));
        return ip == null || !reservation(networkName, ip).equals(objectName) ? null : ip;
    }
}
