package dev.railyard.scheduler.hints;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.railyard.api.hints.HintAnnotations;
import dev.railyard.api.hints.PlacementHint;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** Hint annotations as the engine would write them for the seed node (values from {@link SeedNode}). */
public final class HintFixtures {
    private HintFixtures() {
    }

    /** The placement JSON and the flat keys for a pod planned on GPU0..3 of {@code node}. */
    public static Map<String, String> annotations(String node) {
        PlacementHint seed = SeedNode.hint(List.of(0, 1, 2, 3), "=mlx5_0:1,mlx5_1:1", "192.168.0.0/20");
        PlacementHint h = new PlacementHint(seed.version(), node, seed.gang(), seed.gangSize(), seed.rank(),
                seed.fabric(), seed.gpus(), seed.nccl(), seed.nodeGpus());
        Map<String, String> m = new LinkedHashMap<>();
        try {
            m.put(HintAnnotations.PLACEMENT, new ObjectMapper().writeValueAsString(h));
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
        m.put(HintAnnotations.NCCL_IB_HCA, "=mlx5_0:1,mlx5_1:1");
        m.put(HintAnnotations.NCCL_SOCKET_IFNAME, "=eth0");
        m.put(HintAnnotations.NCCL_IB_ADDR_RANGE, "192.168.0.0/20");
        m.put(HintAnnotations.NCCL_IB_ADDR_FAMILY, "AF_INET");
        m.put(HintAnnotations.RANK, "0");
        m.put(HintAnnotations.RAILS, "0,0,1,1");
        return m;
    }
}
