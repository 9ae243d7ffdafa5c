package dev.railyard.scheduler.ipam;

import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.core.JacksonException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.MapperFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.json.JsonMapper;
import inet.ipaddr.IPAddress;

import java.util.ArrayList;
import java.util.List;

/**
 * Reads a whereabouts {@code ipam} object into an {@link IpamConfig}, applying whereabouts' own normalisation
 * ({@code pkg/types/types.go} {@code UnmarshalJSON}, {@code pkg/config/config.go} {@code LoadIPAMConfig}):
 * <ul>
 *   <li>a non-empty top-level {@code range} (with its {@code range_start}, {@code range_end}, {@code exclude}) is
 *       prepended to {@code ipRanges};</li>
 *   <li>{@code range} is a CIDR, or {@code <first-ip>-<ip>/<prefix>} where the first IP becomes {@code range_start},
 *       the IP after the dash {@code range_end}, and its network the range (the first IP must lie inside it);</li>
 *   <li>an unparsable top-level {@code range_start}/{@code range_end} is silently dropped, while one inside
 *       {@code ipRanges[]} fails the whole config (it is a Go {@code net.IP} there);</li>
 *   <li>{@code exclude} entries are CIDRs (host bits allowed) or bare IPs; an unparsable one fails every allocation;</li>
 *   <li>{@code enable_overlapping_ranges} defaults to true; an unparsable {@code gateway} fails the config; the gateway
 *       is never excluded.</li>
 * </ul>
 * A CIDR {@code range} with host bits set ({@code 192.168.2.225/28}, whereabouts' own README example) is widened to its
 * network as whereabouts does, with a note ({@code docs/formats/whereabouts.md} §5). Railyard refuses one thing
 * whereabouts accepts: an {@code exclude} that covers the whole range (whereabouts fails every allocation with "could
 * not allocate IP in range"), a configuration mistake the operator should see before a pod hangs.
 */
final class IpamConfigParser {
    private static final ObjectMapper JSON = JsonMapper.builder()
            .enable(MapperFeature.ACCEPT_CASE_INSENSITIVE_PROPERTIES)
            .disable(MapperFeature.ALLOW_COERCION_OF_SCALARS)
            .disable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES)
            .enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS)
            .build();

    private IpamConfigParser() {
    }

    private record RawRange(String range, @JsonProperty("range_start") String rangeStart,
                            @JsonProperty("range_end") String rangeEnd, List<String> exclude) {
    }

    private record RawIpam(String type, String range, @JsonProperty("range_start") String rangeStart,
                           @JsonProperty("range_end") String rangeEnd, List<String> exclude,
                           List<RawRange> ipRanges, @JsonProperty("network_name") String networkName,
                           @JsonProperty("enable_overlapping_ranges") Boolean enableOverlappingRanges,
                           @JsonProperty("node_slice_size") String nodeSliceSize, String gateway) {
    }

    /**
     * @param ipam    the {@code ipam} JSON object, {@code type} already checked to be {@code whereabouts}
     * @param cniName the CNI config's {@code name}
     * @throws IpamConfigException naming the key and value whereabouts would fail on
     */
    static IpamConfig parse(JsonNode ipam, String cniName) {
        RawIpam raw;
        try {
            raw = JSON.treeToValue(ipam, RawIpam.class);
        } catch (JacksonException e) {
            throw new IpamConfigException("IPAM JSON: " + NetworkSelectionParser.oneLine(e));
        }
        List<String> notes = new ArrayList<>();
        List<IpamRange> ranges = new ArrayList<>();
        // node-slice mode drops exclude in IPManagementKubernetesUpdate (pkg/storage/kubernetes/ipam.go)
        boolean nodeSliceMode = raw.nodeSliceSize() != null && !raw.nodeSliceSize().isEmpty();
        if (raw.range() != null && !raw.range().isEmpty()) {
            IPAddress start = lenientAddress("range_start", raw.rangeStart(), notes);
            IPAddress end = lenientAddress("range_end", raw.rangeEnd(), notes);
            ranges.add(range("range", raw.range(), start, end, raw.exclude(), nodeSliceMode, notes));
        }
        if (raw.ipRanges() != null) {
            for (int i = 0; i < raw.ipRanges().size(); i++) {
                RawRange r = raw.ipRanges().get(i);
                String where = "ipRanges[" + i + "]";
                if (r == null) {
                    throw new IpamConfigException(where + " is null");
                }
                ranges.add(range(where + ".range", r.range() == null ? "" : r.range(),
                        strictAddress(where + ".range_start", r.rangeStart()),
                        strictAddress(where + ".range_end", r.rangeEnd()), r.exclude(), nodeSliceMode, notes));
            }
        }
        if (ranges.isEmpty()) {
            throw new IpamConfigException("no range: set \"range\" or \"ipRanges\"");
        }
        if (raw.gateway() != null && !raw.gateway().isEmpty() && AddressText.parseAddress(raw.gateway()) == null) {
            throw new IpamConfigException("gateway '" + raw.gateway() + "' is not an IP address");
        }
        Integer sliceSize = null;
        if (nodeSliceMode) {
            sliceSize = nodeSlice(raw.nodeSliceSize(), ranges);
            notes.add("node-slice mode: whereabouts ignores exclude, range_start and range_end, and draws each "
                    + "node's addresses from its own slice");
        }
        boolean overlapping = raw.enableOverlappingRanges() == null || raw.enableOverlappingRanges();
        return new IpamConfig(ranges, raw.networkName(), overlapping, sliceSize, cniName == null ? "" : cniName,
                notes);
    }

    private static IpamRange range(String key, String text, IPAddress start, IPAddress end, List<String> exclude,
                                   boolean nodeSliceMode, List<String> notes) {
        AddressText.Cidr cidr;
        int dash = text.indexOf('-');
        if (dash >= 0) {
            IPAddress first = AddressText.parseAddress(text.substring(0, dash));
            if (first == null) {
                throw new IpamConfigException(key + " '" + text + "': '" + text.substring(0, dash)
                        + "' before the dash is not an IP address");
            }
            cidr = AddressText.parseCidr(text.substring(dash + 1));
            if (cidr == null) {
                throw new IpamConfigException(key + " '" + text + "': '" + text.substring(dash + 1)
                        + "' after the dash is not <ip>/<prefix>");
            }
            if (!cidr.contains(first)) {
                throw new IpamConfigException(key + " '" + text + "': start " + AddressText.format(first)
                        + " is outside " + cidr.canonical());
            }
            start = first;
            end = cidr.written();
        } else {
            cidr = AddressText.parseCidr(text);
            if (cidr == null) {
                throw new IpamConfigException(key + " '" + text + "' is not a CIDR (<ip>/<prefix>)");
            }
            if (cidr.hostBitsSet()) {
                // LoadIPAMConfig keeps ParseCIDR's network and masks the written IP into range_start, which
                // GetIPRange then ignores as unusable: the whole network, from network + 1 (whereabouts.md §5)
                notes.add(key + " '" + text + "' has host bits set: whereabouts uses " + cidr.canonical() + " (pool "
                        + PoolNames.normalize(cidr.canonical()) + "); write the network address, and "
                        + "range_start/range_end to narrow it");
                cidr = AddressText.parseCidr(cidr.canonical());
            }
        }
        List<AddressText.Cidr> excludes = new ArrayList<>();
        String excludeKey = key.equals("range") ? "exclude" : key.replace(".range", ".exclude");
        if (exclude != null && !nodeSliceMode) {
            for (String e : exclude) {
                AddressText.Cidr block = excludeBlock(e);
                if (block == null) {
                    throw new IpamConfigException(excludeKey + " '" + e
                            + "' is neither a CIDR nor an IP address (whereabouts fails every allocation on it)");
                }
                if (block.ipv4() == cidr.ipv4() && block.prefix() <= cidr.prefix() && block.contains(cidr.network())) {
                    throw new IpamConfigException(excludeKey + " '" + e + "' covers the whole "
                            + "range " + cidr.canonical() + ", leaving no address to allocate");
                }
                excludes.add(block);
            }
        }
        return new IpamRange(text, cidr, start, end, excludes);
    }

    /** whereabouts {@code parseExcludedRange}: a CIDR, else a bare IP as /32 or /128. */
    static AddressText.Cidr excludeBlock(String text) {
        if (text == null) {
            return null;
        }
        AddressText.Cidr cidr = AddressText.parseCidr(text);
        if (cidr != null) {
            return cidr;
        }
        IPAddress ip = AddressText.parseAddress(text);
        return ip == null ? null : AddressText.parseCidr(AddressText.format(ip) + "/" + ip.getBitCount());
    }

    private static IPAddress lenientAddress(String key, String text, List<String> notes) {
        if (text == null || text.isEmpty()) {
            return null;
        }
        IPAddress ip = AddressText.parseAddress(text);
        if (ip == null) {
            notes.add(key + " '" + text + "' is not an IP address; whereabouts ignores it");
        }
        return ip;
    }

    private static IPAddress strictAddress(String key, String text) {
        if (text == null || text.isEmpty()) {
            return null;
        }
        IPAddress ip = AddressText.parseAddress(text);
        if (ip == null) {
            throw new IpamConfigException(key + " '" + text + "' is not an IP address");
        }
        return ip;
    }

    private static int nodeSlice(String text, List<IpamRange> ranges) {
        String digits = text.startsWith("/") ? text.substring(1) : text;
        int size;
        try {
            size = Integer.parseInt(digits);
        } catch (NumberFormatException e) {
            throw new IpamConfigException("node_slice_size '" + text + "' is not a prefix length such as \"/26\"");
        }
        if (ranges.size() != 1) {
            throw new IpamConfigException("node_slice_size with " + ranges.size() + " ranges: whereabouts' node-slice "
                    + "controller supports a single range");
        }
        AddressText.Cidr cidr = ranges.get(0).cidr();
        if (!cidr.ipv4()) {
            throw new IpamConfigException("node_slice_size with IPv6 range " + cidr.canonical()
                    + ": whereabouts node slices are IPv4-only");
        }
        if (size < cidr.prefix() || size > 30) {
            throw new IpamConfigException("node_slice_size '" + text + "' must lie between the range's /"
                    + cidr.prefix() + " and /30 (a slice needs usable addresses besides its first and last)");
        }
        return size;
    }
}
