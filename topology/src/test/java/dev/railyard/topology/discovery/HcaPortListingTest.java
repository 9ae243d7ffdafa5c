package dev.railyard.topology.discovery;

import dev.railyard.api.topology.HcaPort;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

class HcaPortListingTest {

    @Test
    void readsIbdev2netdevOfCase23() {
        // case-23: "mlx5_0 port 1 ==> eth2 (Up)" .. "mlx5_3 port 1 ==> eth5 (Up)", then NCCL_IB_HCA lists that
        // must not be mistaken for devices
        HcaPortListing listing = HcaPortListing.parse(
                NvidiaSmiTopoParserTest.fixture("case-23-ibdev2netdev-4roce-hca-combinations.txt"));

        assertThat(listing.devices()).containsOnlyKeys("mlx5_0", "mlx5_1", "mlx5_2", "mlx5_3");
        assertThat(listing.devices().get("mlx5_0")).isEqualTo(new HcaPortListing.Device("mlx5_0", null,
                List.of(new HcaPort(1, null, "ACTIVE", null, List.of("eth2"), null)), 2));
        assertThat(listing.devices().get("mlx5_3").ports().getFirst().netdevs()).containsExactly("eth5");
        assertThat(listing.devices().values()).allSatisfy(d -> assertThat(d.ports().getFirst().isUp()).isTrue());
    }

    @Test
    void readsIbvDevinfoOfCase16() {
        // case-16: mlx5_0 port 1 "state: PORT_DOWN (1)", "link_layer: InfiniBand"; mlx5_1's ports are not in the
        // stored copy
        HcaPortListing listing = HcaPortListing.parse(
                NvidiaSmiTopoParserTest.fixture("case-16-8gpu-14nic-topo-mp-nic-down.txt"));

        assertThat(listing.devices()).containsOnlyKeys("mlx5_0", "mlx5_1");
        HcaPort port = listing.devices().get("mlx5_0").ports().getFirst();
        assertThat(port).isEqualTo(new HcaPort(1, "InfiniBand", "PORT_DOWN", null, List.of(), null));
        assertThat(port.isUp()).isFalse();
        assertThat(listing.devices().get("mlx5_1").ports()).isEmpty();
    }

    @Test
    void combinesRateAndWidthAndMergesIbdev2netdevVerbose() {
        String text = """
                hca_id:\tmlx5_2
                \tphys_port_cnt:\t\t\t1
                \t\tport:\t1
                \t\t\tstate:\t\t\tPORT_ACTIVE (4)
                \t\t\tactive_width:\t\t4X (2)
                \t\t\tactive_speed:\t\t50.0 Gbps (64)
                \t\t\tlink_layer:\t\tEthernet

                $ ibdev2netdev -v
                0000:1A:00.1 mlx5_2 (MT4129 - MCX755106AS-HEAT) ConnectX-7 fw 28.39.2048 port 1 (ACTIVE) ==> lan3 (Up)
                mlx5_3 port 1 ==> lan4 (Down)
                """;
        HcaPortListing listing = HcaPortListing.parse(text);

        HcaPortListing.Device mlx52 = listing.devices().get("mlx5_2");
        assertThat(mlx52.pciBusId()).isEqualTo("0000:1a:00.1");
        // 4 lanes x 50 Gbit/s = 200 Gbit/s; ibv_devinfo's state is kept over ibdev2netdev's
        assertThat(mlx52.ports()).containsExactly(new HcaPort(1, "Ethernet", "ACTIVE", 200, List.of("lan3"), null));
        assertThat(listing.devices().get("mlx5_3").ports().getFirst().state()).isEqualTo("DOWN");
    }

    @Test
    void findsNothingInAMatrix() {
        assertThat(HcaPortListing.parse(NvidiaSmiTopoParserTest.fixture("case-01-dgx-h100-8gpu-8nic-1to1.txt"))
                .isEmpty()).isTrue();
    }
}
