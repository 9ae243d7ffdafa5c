package dev.railyard.scheduler.ipam;

import java.util.List;

/**
 * One entry of a pod's {@code k8s.v1.cni.cncf.io/networks} annotation after multus' parsing and namespace resolution.
 *
 * @param index         position in the annotation, from 0
 * @param namespace     namespace of the NetworkAttachmentDefinition: the entry's own, else the pod's
 * @param name          NetworkAttachmentDefinition name
 * @param interfaceName the interface the entry asks for, or null for multus' default
 * @param ips           static addresses asked for ({@code "ips"}, JSON form only); whereabouts still allocates one
 *                      address from the pool besides them
 * @param mac           MAC address asked for, or null
 */
public record NetworkSelection(int index, String namespace, String name, String interfaceName, List<String> ips,
                               String mac) {
    public NetworkSelection {
        ips = ips == null ? List.of() : List.copyOf(ips);
    }

    /** @return {@code "<namespace>/<name>"}, the form multus writes in {@code network-status} */
    public String key() {
        return namespace + "/" + name;
    }

    /**
     * @return the pod-side interface name: the one asked for, else {@code net<index+1>} (multus {@code getIfname}:
     *         the delegate's position, where position 0 is the cluster default network)
     */
    public String podInterface() {
        return interfaceName != null && !interfaceName.isEmpty() ? interfaceName : "net" + (index + 1);
    }
}
