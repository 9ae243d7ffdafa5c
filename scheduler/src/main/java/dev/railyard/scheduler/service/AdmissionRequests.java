package dev.railyard.scheduler.service;

import dev.railyard.api.volcano.PodGroup;
import dev.railyard.scheduler.cluster.ClusterView;
import dev.railyard.scheduler.cluster.PodView;
import dev.railyard.scheduler.engine.PodRequest;
import dev.railyard.scheduler.ipam.PodNetworksRequest;
import dev.railyard.scheduler.protocol.ExtenderPod;
import dev.railyard.scheduler.protocol.GangJob;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/** The engine requests a deciding verb judges: from the wire's pod, or the informer's pod when it has it. */
final class AdmissionRequests {
    private AdmissionRequests() {
    }

    /**
     * @return the requests of a Volcano job's gang for {@code jobEnqueueable}: its tasks (the informer's pod when
     *         known: it carries what the wire form leaves out, node selector and affinity), then the pending members
     *         the cluster shows that the scheduler's snapshot does not carry yet (vc-scheduler's pod and PodGroup
     *         informers race, and a gang judged on a partial view is enqueued short of room); empty when neither
     *         has any
     */
    static List<PodRequest> of(ClusterView view, PodGroup group, GangJob job) {
        List<PodRequest> requests = new ArrayList<>();
        Set<String> asked = new HashSet<>();
        for (ExtenderPod t : job.tasks()) {
            String key = t.ref().namespace() + "/" + t.ref().name();
            asked.add(key);
            PodView known = view.pod(key);
            requests.add(known != null ? view.request(known) : requestOf(t));
        }
        if (group != null) {
            for (PodView m : view.members(group)) {
                if (m.node() == null && !m.finished() && !m.terminating() && asked.add(m.key())) {
                    requests.add(view.request(m));
                }
            }
        }
        return requests;
    }

    /** @return the engine's request for a pod as the wire describes it (GPUs, HCA devices, networks) */
    static PodRequest requestOf(ExtenderPod pod) {
        return new PodRequest(pod.ref().namespace(), pod.ref().name(), (int) pod.requests().gpus(),
                pod.requests().hcaDevices(), PodNetworksRequest.of(pod.ref().namespace(), pod.annotations()), false);
    }
}
