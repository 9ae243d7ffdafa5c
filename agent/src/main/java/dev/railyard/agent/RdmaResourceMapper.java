package dev.railyard.agent;

import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.TreeSet;

/**
 * Maps each rdma-shared-dev-plugin resource to the HCAs behind it.
 *
 * <p>With the plugin's config, each pool's selectors are evaluated as the plugin does
 * (Mellanox/k8s-rdma-shared-dev-plugin {@code pkg/resources/device_selectors.go}): a candidate is an HCA with a PCI
 * function (software devices are never selected); every non-empty selector list must contain the HCA's value
 * (vendor and device id compared as hex without {@code 0x}, case-insensitive; driver, netdev name and link type
 * exactly). For {@code ifNames} the plugin looks at the first netdev of the PCI function; an mlx5 function carries
 * one port, so this mapper accepts any netdev of the HCA.
 *
 * <p>Without a config, a resource the kubelet advertises whose name part equals an HCA's name
 * ({@code nvidia.com/mlx5_0} and HCA {@code mlx5_0}) is mapped to it, marked {@code resource-name}: the plugin does
 * not require this (docs/formats/network-operator.md §2), so the status says how the mapping was made. Stateless.
 */
public final class RdmaResourceMapper {
    private RdmaResourceMapper() {
    }

    /**
     * @param config            the plugin's config, or null when the agent was given none
     * @param hcas              HCAs of the node in spec order
     * @param kubeletResources  extended resource names the kubelet reports as allocatable (used without a config)
     * @param gpuResources      resource names that are GPUs, never RDMA pools
     * @return one binding per pool (config order) or per name-matched resource (name order)
     */
    public static List<RdmaResourceBinding> map(RdmaSharedDevicePluginConfig config, List<HcaPciFacts> hcas,
                                                Collection<String> kubeletResources,
                                                Collection<String> gpuResources) {
        List<RdmaResourceBinding> out = new ArrayList<>();
        if (config != null) {
            for (RdmaSharedDevicePluginConfig.Pool pool : config.configList()) {
                List<String> matched = hcas.stream().filter(h -> selects(pool.selectors(), h))
                        .map(HcaPciFacts::hca).toList();
                out.add(new RdmaResourceBinding(pool.extendedResourceName(), matched,
                        RdmaResourceBinding.BY_SELECTORS, pool.rdmaHcaMax()));
            }
            return out;
        }
        Set<String> names = new TreeSet<>(kubeletResources);
        for (String resource : names) {
            int slash = resource.indexOf('/');
            if (slash < 0 || gpuResources.contains(resource)) {
                continue;
            }
            String local = resource.substring(slash + 1);
            hcas.stream().filter(h -> h.hca().equals(local) && h.pciBusId() != null).findFirst()
                    .ifPresent(h -> out.add(new RdmaResourceBinding(resource, List.of(h.hca()),
                            RdmaResourceBinding.BY_RESOURCE_NAME, null)));
        }
        return out;
    }

    /** @return true when the pool's selectors pick this HCA */
    static boolean selects(RdmaSharedDevicePluginConfig.Selectors s, HcaPciFacts h) {
        if (h.pciBusId() == null) {
            return false;
        }
        return matchesHex(s.vendors(), h.vendor())
                && matchesHex(s.deviceIDs(), h.deviceId())
                && (s.drivers().isEmpty() || (h.driver() != null && s.drivers().contains(h.driver())))
                && (s.ifNames().isEmpty() || h.netdevs().stream().anyMatch(s.ifNames()::contains))
                && (s.linkTypes().isEmpty() || h.linkTypes().stream().anyMatch(s.linkTypes()::contains));
    }

    private static boolean matchesHex(List<String> wanted, String actual) {
        if (wanted.isEmpty()) {
            return true;
        }
        if (actual == null) {
            return false;
        }
        String a = stripHex(actual);
        return wanted.stream().anyMatch(w -> stripHex(w).equals(a));
    }

    static String stripHex(String value) {
        String v = value.strip().toLowerCase(Locale.ROOT);
        return v.startsWith("0x") ? v.substring(2) : v;
    }
}
