package dev.railyard.scheduler.service;

import dev.railyard.api.volcano.PodGroup;
import dev.railyard.scheduler.cluster.ClusterView;
import dev.railyard.scheduler.cluster.PodView;
import dev.railyard.scheduler.engine.PodRequest;
import dev.railyard.scheduler.ipam.PodNetworksRequest;
import dev.railyard.scheduler.protocol.ExtenderPod;
import dev.railyard.scheduler.protocol.GangJob;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/** The engine requests a deciding verb judges: from the wire's pod, or the informer's pod when it has it. */
final class AdmissionRequests {
    private AdmissionRequests() {
    }

    /**
     * The requests of a Volcano job's gang for {@code jobEnqueueable}, in this order:
     * <ol>
     *   <li>its tasks as vc-scheduler sends them, once each, in the job's namespace, leaving out those the cluster
     *       shows bound, finished or being deleted (the informer's pod when known: it carries what the wire form
     *       leaves out, node selector and affinity);</li>
     *   <li>the pending members of the PodGroup the cluster shows that the scheduler's snapshot does not carry yet
     *       (vc-scheduler's pod and PodGroup informers race, and a gang judged on a partial view is enqueued short of
     *       room), counting only pods of the scheduler the tasks name (else of {@code schedulers} other than
     *       kube-scheduler's {@code default-scheduler}), as vc-scheduler itself only gangs its own pods: a pod of
     *       another scheduler that names the PodGroup cannot hold the gang out of the queue;</li>
     *   <li>cut to the job's {@code minAvailable} (the PodGroup's {@code minMember}) when it has more: Volcano enqueues
     *       an elastic gang when its minimum fits (its {@code minResources}).</li>
     * </ol>
     *
     * @param schedulers the {@code spec.schedulerName}s Railyard serves ({@code --scheduler-names})
     * @return the requests; empty when neither the tasks nor the cluster show a pending pod
     */
    static List<PodRequest> of(ClusterView view, PodGroup group, GangJob job, Set<String> schedulers) {
        List<PodRequest> requests = new ArrayList<>();
        Set<String> asked = new HashSet<>();
        Set<String> gangSchedulers = new LinkedHashSet<>();
        for (ExtenderPod t : job.tasks()) {
            String key = t.ref().namespace() + "/" + t.ref().name();
            if (!t.ref().namespace().equals(job.namespace()) || !asked.add(key)) {
                continue;
            }
            gangSchedulers.add(t.schedulerName() == null || t.schedulerName().isEmpty() ? "default-scheduler"
                    : t.schedulerName());
            PodView known = view.pod(key);
            if (known == null) {
                requests.add(requestOf(t));
            } else if (pending(known)) {
                requests.add(view.request(known));
            }
        }
        if (gangSchedulers.isEmpty()) {
            gangSchedulers.addAll(schedulers);
            gangSchedulers.remove("default-scheduler");
        }
        if (group != null) {
            for (PodView m : view.members(group)) {
                String scheduler = m.schedulerName().isEmpty() ? "default-scheduler" : m.schedulerName();
                if (pending(m) && gangSchedulers.contains(scheduler) && asked.add(m.key())) {
                    requests.add(view.request(m));
                }
            }
        }
        int min = job.minAvailable();
        return min > 0 && requests.size() > min ? List.copyOf(requests.subList(0, min)) : requests;
    }

    private static boolean pending(PodView p) {
        return p.node() == null && !p.finished() && !p.terminating();
    }

    /** @return the engine's request for a pod as the wire describes it (GPUs, HCA devices, networks) */
    static PodRequest requestOf(ExtenderPod pod) {
        return new PodRequest(pod.ref().namespace(), pod.ref().name(), (int) pod.requests().gpus(),
                pod.requests().hcaDevices(), PodNetworksRequest.of(pod.ref().namespace(), pod.annotations()), false);
    }

    /**
     * The tasks of a refused job that the cluster shows as pending members of its PodGroup (same namespace and
     * name, same uid where both are known), each once, in request order: the Events go on those only, so a caller
     * cannot have Railyard write Events about pods it invents, repeats or names from other gangs and namespaces.
     */
    static List<ExtenderPod> pendingMembers(ClusterView view, PodGroup group, List<ExtenderPod> tasks) {
        if (group == null || tasks.isEmpty()) {
            return List.of();
        }
        Map<String, String> uids = new HashMap<>();
        for (PodView m : view.members(group)) {
            if (pending(m)) {
                uids.put(m.namespace() + "/" + m.name(), m.uid() == null ? "" : m.uid());
            }
        }
        List<ExtenderPod> out = new ArrayList<>();
        for (ExtenderPod t : tasks) {
            String uid = uids.remove(t.ref().namespace() + "/" + t.ref().name());
            if (uid != null && (uid.isEmpty() || t.ref().uid() == null || t.ref().uid().isEmpty()
                    || uid.equals(t.ref().uid()))) {
                out.add(t);
            }
        }
        return out;
    }
}
