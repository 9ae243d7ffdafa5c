package dev.railyard.scheduler.ipam;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import java.util.List;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The multus selection annotation forms (multus-cni pkg/k8sclient/k8sclient.go parsePodNetworkAnnotation). */
class NetworkSelectionParserTest {

    @Test
    void commaListWithNamespacesAndInterfaces() {
        List<NetworkSelection> s = NetworkSelectionParser.parse(" a ,other/b@eth5, c@net9 ,d", "prod");
        assertThat(s).extracting(NetworkSelection::key, NetworkSelection::podInterface).containsExactly(
                org.assertj.core.groups.Tuple.tuple("prod/a", "net1"),
                org.assertj.core.groups.Tuple.tuple("other/b", "eth5"),
                org.assertj.core.groups.Tuple.tuple("prod/c", "net9"),
                org.assertj.core.groups.Tuple.tuple("prod/d", "net4"));
    }

    @Test
    void jsonListWithEveryKeyAndGoCaseInsensitiveKeys() {
        List<NetworkSelection> s = NetworkSelectionParser.parse("[{\"name\":\"a\",\"namespace\":\"x\","
                + "\"interface\":\"rdma0\",\"ips\":[\"192.168.4.10/22\",\"fd00::5\"],\"mac\":\"c2:b0:57:49:47:f1\","
                + "\"default-route\":[\"192.168.4.1\"],\"cni-args\":{\"k\":1}},"
                + "{\"Name\":\"b\",\"NameSpace\":\"y\"},{\"name\":\"c\",\"interfaceRequest\":\"old0\"}]", "prod");
        assertThat(s).extracting(NetworkSelection::key, NetworkSelection::podInterface).containsExactly(
                org.assertj.core.groups.Tuple.tuple("x/a", "rdma0"),
                org.assertj.core.groups.Tuple.tuple("y/b", "net2"),
                org.assertj.core.groups.Tuple.tuple("prod/c", "old0"));
        assertThat(s.get(0).ips()).containsExactly("192.168.4.10/22", "fd00::5");
        assertThat(s.get(0).mac()).isEqualTo("c2:b0:57:49:47:f1");
    }

    @Test
    void sameNetworkTwiceIsTwoAttachments() {
        assertThat(NetworkSelectionParser.parse("a,a", "ns")).extracting(NetworkSelection::podInterface)
                .containsExactly("net1", "net2");
    }

    @Test
    void emptyAnnotationMeansNoNetworks() {
        assertThat(NetworkSelectionParser.parse(null, "ns")).isEmpty();
        assertThat(NetworkSelectionParser.parse("", "ns")).isEmpty();
        assertThat(PodNetworksRequest.of("ns", null).selections()).isEmpty();
    }

    static Stream<Arguments> rejected() {
        return Stream.of(
                Arguments.of("a/b/c", "entry 1 'a/b/c': more than one '/'"),
                Arguments.of("a@x@y", "entry 1 'a@x@y': more than one '@'"),
                Arguments.of("Net_A", "'Net_A' is not a DNS-1123 label"),
                Arguments.of("UPPER/a", "'UPPER' is not a DNS-1123 label"),
                Arguments.of("a@averyveryverylongname",
                        "interface name 'averyveryverylongname' must be at most 15 characters"),
                Arguments.of("a,,b", "entry 2 '': empty network name"),
                Arguments.of("{\"name\":\"a\"}", "the JSON form must be a list of objects"),
                Arguments.of("[{\"name\":\"a\"", "not valid JSON"),
                Arguments.of("[\"a\"]", "entry 1 \"a\": not an object"),
                Arguments.of("[{\"namespace\":\"x\"}]", "no \"name\""),
                Arguments.of("[{\"name\":\"a\",\"ips\":[\"10.0.0.300\"]}]",
                        "\"ips\" entry '10.0.0.300' is not an IP or CIDR"),
                Arguments.of("[{\"name\":\"a\",\"ips\":\"10.0.0.1\"}]", "entry 1"),
                Arguments.of("[{\"name\":\"a\",\"mac\":\"zz:00:00:00:00:00\"}]",
                        "\"mac\" 'zz:00:00:00:00:00' is not a MAC address"),
                Arguments.of("[{\"name\":\"ns/a\"}]", "multus-cni#705"));
    }

    @ParameterizedTest
    @MethodSource("rejected")
    void multusRejectsOrFails(String annotation, String expected) {
        assertThatThrownBy(() -> NetworkSelectionParser.parse(annotation, "prod"))
                .isInstanceOf(NetworkAnnotationException.class).hasMessageContaining(expected);
        PodNetworksRequest r = PodNetworksRequest.ofAnnotation("prod", annotation);
        assertThat(r.valid()).isFalse();
        assertThat(r.error()).startsWith("k8s.v1.cni.cncf.io/networks: ").doesNotContain("\n");
    }

    @Test
    void hardwareAddressFormsGoAccepts() {
        assertThat(NetworkSelectionParser.isHardwareAddress("00:00:5e:00:53:01")).isTrue();
        assertThat(NetworkSelectionParser.isHardwareAddress("00-00-5E-00-53-01")).isTrue();
        assertThat(NetworkSelectionParser.isHardwareAddress("0000.5e00.5301")).isTrue();
        assertThat(NetworkSelectionParser.isHardwareAddress("02:00:5e:10:00:00:00:01")).isTrue();
        assertThat(NetworkSelectionParser.isHardwareAddress(
                "00:00:00:00:fe:80:00:00:00:00:00:00:02:00:5e:10:00:00:00:01")).isTrue();
        assertThat(NetworkSelectionParser.isHardwareAddress("00:00:5e:00:53")).isFalse();
        assertThat(NetworkSelectionParser.isHardwareAddress("00:00-5e:00:53:01")).isFalse();
    }
}
