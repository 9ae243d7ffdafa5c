package dev.railyard.agent;

import java.util.List;

/**
 * What the rdma-shared-dev-plugin's selectors test, for one HCA, read from the host's sysfs.
 *
 * @param hca       HCA name ({@code mlx5_0})
 * @param pciBusId  PCI function in sysfs form, or null for software devices (siw, rxe), which the plugin never
 *                  selects
 * @param vendor    {@code vendor} in hex without {@code 0x}, lower case ({@code 15b3}), or null when unreadable
 * @param deviceId  {@code device} in hex without {@code 0x}, lower case ({@code 1021}), or null
 * @param driver    the bound kernel driver ({@code mlx5_core}), or null
 * @param netdevs   netdev names of the HCA's ports
 * @param linkTypes link types of its ports as the plugin names them: {@code ether} for an Ethernet (RoCE) link
 *                  layer, {@code infiniband} for InfiniBand
 */
public record HcaPciFacts(String hca, String pciBusId, String vendor, String deviceId, String driver,
                          List<String> netdevs, List<String> linkTypes) {
    public HcaPciFacts {
        netdevs = netdevs == null ? List.of() : List.copyOf(netdevs);
        linkTypes = linkTypes == null ? List.of() : List.copyOf(linkTypes);
    }
}
