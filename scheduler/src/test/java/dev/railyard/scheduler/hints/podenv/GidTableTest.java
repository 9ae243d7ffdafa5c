package dev.railyard.scheduler.hints.podenv;

import dev.railyard.scheduler.hints.SeedNode;
import dev.railyard.scheduler.hints.SeedNode.Row;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.net.InetAddress;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class GidTableTest {
    @TempDir
    Path sys;

    @Test
    void readsGidsTypesAndNdevsAndDecodesIpv4MappedEntries() throws Exception {
        // docs/formats/node-topology.md §3: 0000:...:ffff:c0a8:040c is 192.168.4.12
        SeedNode.writePort(sys, "mlx5_0", 1, "Ethernet", List.of(
                new Row(0, "fe80:0000:0000:0000:0000:00ff:fe00:0001", "IB/RoCE v1", "lan2"),
                new Row(1, SeedNode.ZERO, null, null),
                new Row(10, "0000:0000:0000:0000:0000:ffff:c0a8:040c", "RoCE v2", "net1"),
                new Row(2, "0000:0000:0000:0000:0000:ffff:c0a8:040d", null, null)));
        GidTable t = GidTable.read(sys, "mlx5_0", 1);
        assertThat(t.linkLayer()).isEqualTo("Ethernet");
        // numeric order (10 after 2), the empty entry kept but not read further
        assertThat(t.entries()).extracting(GidTable.Entry::index).containsExactly(0, 1, 2, 10);
        assertThat(t.entries().get(1).isEmpty()).isTrue();
        assertThat(t.entries().get(0).ipv4()).isNull();
        assertThat(t.entries().get(3).ipv4()).isEqualTo(InetAddress.getByName("192.168.4.12"));
        assertThat(t.entries().get(3).isRoceV2()).isTrue();
        // EINVAL on types (a directory here) is recorded as null, not thrown
        assertThat(t.entries().get(2).type()).isNull();
        assertThat(t.entries().get(2).ipv4()).isEqualTo(InetAddress.getByName("192.168.4.13"));
    }

    @Test
    void aPortWithoutGidsIsAnErrorNamingThePath() {
        assertThatThrownBy(() -> GidTable.read(sys, "mlx5_9", 1)).isInstanceOf(NoSuchFileException.class)
                .hasMessageContaining("class/infiniband/mlx5_9/ports/1/gids");
    }

    @Test
    void aGidFileHoldingGarbageIsKeptEmptyAndNamed() throws Exception {
        SeedNode.writePort(sys, "mlx5_0", 1, "Ethernet", List.of(
                new Row(0, "fe80:0000:0000:0000:0000:00ff:fe00:0001", "IB/RoCE v1", "lan2"),
                new Row(3, "0000:0000:0000:0000:0000:ffff:c0a8:040c\u0000garbage", "RoCE v2", "net1")));
        GidTable t = GidTable.read(sys, "mlx5_0", 1);
        // entry 3 has the pod's address and type RoCE v2, but its gids file is not a GID: never picked
        assertThat(t.entries().get(1).isEmpty()).isTrue();
        assertThat(t.roceV2For(java.util.Set.of((java.net.Inet4Address) InetAddress.getByName("192.168.4.12")),
                java.util.Set.of("net1"))).isEmpty();
        // was: dropped without a word
        assertThat(t.notes()).containsExactly(sys.resolve("class/infiniband/mlx5_0/ports/1/gids/3")
                + ": '0000:0000:0000:0000:0000:ffff:c0a8:040c?garbage' is not a GID (8 groups of 4 hex digits); "
                + "entry 3 ignored");
        assertThat(GidTable.read(sys, "mlx5_0", 1).entries().get(0).isEmpty()).isFalse();
    }

    @Test
    void malformedGidTextIsNoGid() {
        assertThat(GidTable.parseGid("fe80::1")).isNull();
        assertThat(GidTable.parseGid("zzzz:0000:0000:0000:0000:0000:0000:0000")).isNull();
        assertThat(GidTable.parseGid("0000:0000:0000:0000:0000:ffff:c633:6406")).hasSize(16);
    }
}
