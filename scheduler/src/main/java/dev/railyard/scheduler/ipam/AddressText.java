package dev.railyard.scheduler.ipam;

import inet.ipaddr.AddressStringParameters.RangeParameters;
import inet.ipaddr.AddressValueException;
import inet.ipaddr.IPAddress;
import inet.ipaddr.IPAddressString;
import inet.ipaddr.IPAddressStringParameters;
import inet.ipaddr.ipv4.IPv4Address;
import inet.ipaddr.ipv6.IPv6Address;

import java.math.BigInteger;

/**
 * IP and CIDR text as Go's {@code net} package reads and writes it, which is what whereabouts and multus use
 * ({@code net.ParseIP}, {@code net.ParseCIDR}, {@code k8s.io/utils/net} {@code ParseIPSloppy}/{@code ParseCIDRSloppy},
 * {@code net.IP.String}). Parsing and block arithmetic are done by the {@code ipaddress} library
 * ({@code com.github.seancfoley:ipaddress}) restricted to the forms Go accepts: dotted-quad IPv4 (leading zeros read
 * as decimal, as the sloppy parsers do), IPv6 with optional embedded IPv4, no zones, masks, wildcards, ranges,
 * {@code inet_aton} forms or surrounding whitespace.
 */
final class AddressText {
    private static final IPAddressStringParameters ADDRESS = params(false);
    private static final IPAddressStringParameters CIDR = params(true);

    private AddressText() {
    }

    private static IPAddressStringParameters params(boolean prefix) {
        IPAddressStringParameters.Builder b = new IPAddressStringParameters.Builder()
                .allowEmpty(false).allowAll(false).allowSingleSegment(false)
                .allowMask(false).allowPrefix(prefix).allowPrefixOnly(false)
                .allowWildcardedSeparator(false).setRangeOptions(RangeParameters.NO_RANGE)
                .allow_inet_aton(false);
        b.getIPv6AddressParametersBuilder().allowZone(false).allowEmptyZone(false).allowBase85(false)
                .allowBinary(false).allowPrefixesBeyondAddressSize(false);
        b.getIPv4AddressParametersBuilder().allowBinary(false).allowPrefixesBeyondAddressSize(false);
        return b.toParams();
    }

    /**
     * Parses one IP address without prefix, as Go's {@code ParseIP} does; an IPv4-mapped IPv6 text
     * ({@code ::ffff:10.0.0.5}) is returned as IPv4, as Go's {@code To4} treats it.
     *
     * @return the address without prefix length, or null when the text is not an IP address
     */
    static IPAddress parseAddress(String text) {
        if (text == null || text.isEmpty() || !text.strip().equals(text)) {
            return null;
        }
        IPAddress a = new IPAddressString(text, ADDRESS).getAddress();
        if (a == null || a.isMultiple()) {
            return null;
        }
        if (a instanceof IPv6Address v6 && v6.isIPv4Mapped()) {
            return v6.getEmbeddedIPv4Address();
        }
        return a.withoutPrefixLength();
    }

    /**
     * Parses {@code <ip>/<prefix>} as Go's {@code ParseCIDR} does: host bits may be set.
     *
     * @return the parsed CIDR, or null when the text is not one
     */
    static Cidr parseCidr(String text) {
        if (text == null || text.isEmpty() || !text.strip().equals(text) || text.indexOf('/') < 0) {
            return null;
        }
        IPAddress a = new IPAddressString(text, CIDR).getAddress();
        if (a == null || a.getNetworkPrefixLength() == null) {
            return null;
        }
        int prefix = a.getNetworkPrefixLength();
        IPAddress written = a.getLower().withoutPrefixLength();
        IPAddress block = written.toPrefixBlock(prefix);
        return new Cidr(written, prefix, block.getLower().withoutPrefixLength(), block.getUpper().withoutPrefixLength());
    }

    /** @return the address as Go's {@code net.IP.String} prints it (dotted IPv4, RFC 5952 IPv6) */
    static String format(IPAddress address) {
        return address.withoutPrefixLength().toCanonicalString();
    }

    /**
     * @return {@code address + offset}, or null when the sum leaves the address family's space (whereabouts
     *         {@code IPAddOffset} then yields no usable address either)
     */
    static IPAddress add(IPAddress address, BigInteger offset) {
        BigInteger sum = address.getValue().add(offset);
        return fromValue(address.isIPv4(), sum);
    }

    /** @return the address of the given family with the given numeric value, or null when out of range */
    static IPAddress fromValue(boolean ipv4, BigInteger value) {
        try {
            if (ipv4) {
                if (value.signum() < 0 || value.bitLength() > 32) {
                    return null;
                }
                return new IPv4Address(value.intValue());
            }
            if (value.signum() < 0 || value.bitLength() > 128) {
                return null;
            }
            return new IPv6Address(value);
        } catch (AddressValueException e) {
            return null;
        }
    }

    /**
     * A CIDR as written.
     *
     * @param written   the IP part as written (host bits possibly set)
     * @param prefix    prefix length in bits
     * @param network   the network (lowest) address of the block
     * @param broadcast the highest address of the block
     */
    record Cidr(IPAddress written, int prefix, IPAddress network, IPAddress broadcast) {
        boolean ipv4() {
            return written.isIPv4();
        }

        int bits() {
            return written.getBitCount();
        }

        boolean hostBitsSet() {
            return !written.equals(network);
        }

        /** @return the canonical network form, as Go's {@code (*net.IPNet).String} prints it */
        String canonical() {
            return format(network) + "/" + prefix;
        }

        boolean contains(IPAddress ip) {
            return ip.isIPv4() == ipv4() && ip.getValue().compareTo(network.getValue()) >= 0
                    && ip.getValue().compareTo(broadcast.getValue()) <= 0;
        }
    }
}
