package dev.railyard.scheduler.engine;

import dev.railyard.scheduler.ipam.NetworkSelection;
import dev.railyard.scheduler.ipam.PodNetworksRequest;

import java.util.Collections;
import java.util.Map;
import java.util.TreeMap;

/**
 * What one pod of a gang asks for, as plain data.
 *
 * @param namespace     pod namespace
 * @param name          pod name (or a placeholder such as {@code rdma-test-worker-2} for a pod not created yet)
 * @param gpus          {@code nvidia.com/gpu} count, ≥ 0
 * @param rdmaResources RDMA extended resources ({@code nvidia.com/mlx5_0 → 1}); other resources left out
 * @param networks      the pod's multus networks ({@link PodNetworksRequest#of}); null means none
 * @param hostNetwork   true for {@code hostNetwork: true} pods (no multus attachments, no address drawn)
 * @param nodeAffinity  the nodes the pod may run on by its own spec ({@link RequiredNodeAffinity}); null means any
 */
public record PodRequest(String namespace, String name, int gpus, Map<String, Long> rdmaResources,
                         PodNetworksRequest networks, boolean hostNetwork, RequiredNodeAffinity nodeAffinity) {
    /** A pod that may run on any node. */
    public PodRequest(String namespace, String name, int gpus, Map<String, Long> rdmaResources,
                      PodNetworksRequest networks, boolean hostNetwork) {
        this(namespace, name, gpus, rdmaResources, networks, hostNetwork, RequiredNodeAffinity.ANY);
    }

    public PodRequest {
        nodeAffinity = nodeAffinity == null ? RequiredNodeAffinity.ANY : nodeAffinity;
        if (gpus < 0) {
            throw new IllegalArgumentException("pod " + namespace + "/" + name + ": negative GPU count " + gpus);
        }
        rdmaResources = rdmaResources == null ? Map.of() : Collections.unmodifiableMap(new TreeMap<>(rdmaResources));
        if (networks == null || hostNetwork) {
            networks = PodNetworksRequest.ofAnnotation(namespace, null);
        }
    }

    /** @return {@code namespace/name} */
    public String key() {
        return namespace + "/" + name;
    }

    /** @return the network selections in annotation order (empty when none or when the annotation is invalid) */
    public java.util.List<NetworkSelection> selections() {
        return networks.selections();
    }

    /** @return true when the two pods ask for the same things (same GPUs, resources, networks) */
    public boolean sameShape(PodRequest o) {
        return gpus == o.gpus && rdmaResources.equals(o.rdmaResources) && hostNetwork == o.hostNetwork
                && java.util.Objects.equals(networks.annotation(), o.networks.annotation());
    }
}
