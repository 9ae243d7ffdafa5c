package dev.railyard.scheduler.engine;

/**
 * A secondary network a pod can attach to through multus (a NetworkAttachmentDefinition, for example rendered from
 * a network-operator MacvlanNetwork of the same name).
 *
 * @param namespace namespace of the NetworkAttachmentDefinition
 * @param name      its name ({@code rdma-net-ipam-lan2})
 * @param master    host netdev the macvlan hangs off ({@code lan2}), or null when the CNI has none
 * @param range     the IPAM range as CIDR ({@code 192.168.4.0/22}), or null when unknown
 * @param pool      the whereabouts IPPool name ({@code 192.168.4.0-22}), or null when unknown
 */
public record SecondaryNetwork(String namespace, String name, String master, String range, String pool) {
    /** @return {@code namespace/name} */
    public String key() {
        return namespace + "/" + name;
    }
}
