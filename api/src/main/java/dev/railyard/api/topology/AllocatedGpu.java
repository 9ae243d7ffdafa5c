package dev.railyard.api.topology;

/**
 * One GPU device a pod holds, as the kubelet's PodResources API reported it.
 *
 * @param deviceId the device plugin's id as reported ({@code GPU-<uuid>}, {@code GPU-<uuid>::1} for a shared
 *                 replica, {@code MIG-<uuid>} for a MIG instance)
 * @param uuid     the physical GPU's UUID ({@code GPU-<uuid>}, the replica suffix removed), or null for ids that
 *                 do not name a physical GPU (MIG instances, other vendors' plugins)
 * @param index    the GPU's index in {@link NodeTopologySpec#gpus()}, or null when the UUID could not be matched
 *                 (no {@code nvidia-smi} on the node, or an id that is not a GPU UUID)
 */
public record AllocatedGpu(String deviceId, String uuid, Integer index) {
}
