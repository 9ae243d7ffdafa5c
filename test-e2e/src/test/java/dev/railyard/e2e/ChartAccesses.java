package dev.railyard.e2e;

import io.fabric8.kubernetes.api.model.authorization.v1.SelfSubjectAccessReview;
import io.fabric8.kubernetes.api.model.authorization.v1.SelfSubjectAccessReviewBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.util.ArrayList;
import java.util.List;

/**
 * The calls the chart's ServiceAccounts must be allowed (the code makes them) and denied (the chart README rules
 * them out), for {@link HelmChartIT}'s SelfSubjectAccessReviews.
 */
final class ChartAccesses {
    static final String NS = HelmChart.NAMESPACE;
    static final String EXTENDER_SA = "railyard-extender";
    static final String AGENT_SA = "railyard-agent";

    private ChartAccesses() {
    }

    /**
     * One access the extender or agent code makes, or must never be able to make.
     *
     * @param namespace empty for cluster-wide (all namespaces, or cluster-scoped)
     * @param name empty for any name
     */
    record Access(String serviceAccount, boolean allowed, String verb, String group, String resource,
                  String subresource, String namespace, String name, String why) {
        @Override
        public String toString() {
            return serviceAccount + " " + verb + " " + (group.isEmpty() ? "core" : group) + "/" + resource
                    + (subresource.isEmpty() ? "" : "/" + subresource)
                    + (namespace.isEmpty() ? " (all namespaces)" : " in " + namespace)
                    + (name.isEmpty() ? "" : " named " + name) + " (" + why + ")";
        }
    }

    static Access allow(String sa, String verb, String group, String resource, String ns, String name,
                                String why) {
        String[] r = resource.split("/", 2);
        return new Access(sa, true, verb, group, r[0], r.length > 1 ? r[1] : "", ns, name, why);
    }

    static Access deny(String sa, String verb, String group, String resource, String ns, String name,
                               String why) {
        String[] r = resource.split("/", 2);
        return new Access(sa, false, verb, group, r[0], r.length > 1 ? r[1] : "", ns, name, why);
    }

    /**
     * The calls the code makes (source in each reason) and the ones the chart README says it must not have. The
     * extender's informers list and watch every kind of {@code WatchedKind.ALL} in all namespaces.
     */
    static List<Access> accesses() {
        List<Access> list = new ArrayList<>(extender(EXTENDER_SA));
        list.addAll(agent(AGENT_SA));
        return list;
    }

    /** The extender's calls (default rendering: no secure port). */
    private static List<Access> extender(String e) {
        List<Access> list = new ArrayList<>();
        for (String verb : List.of("list", "watch")) {
            list.add(allow(e, verb, "", "nodes", "", "", "ClusterCache informer, WatchedKind.NODE"));
            list.add(allow(e, verb, "", "pods", "", "", "ClusterCache informer, WatchedKind.POD"));
            list.add(allow(e, verb, "railyard.dev", "nodetopologies", "", "", "WatchedKind.NODE_TOPOLOGY"));
            list.add(allow(e, verb, "whereabouts.cni.cncf.io", "ippools", "", "", "WatchedKind.IP_POOL"));
            list.add(allow(e, verb, "whereabouts.cni.cncf.io", "overlappingrangeipreservations", "", "",
                    "WatchedKind.OVERLAPPING_RANGE_RESERVATION"));
            list.add(allow(e, verb, "whereabouts.cni.cncf.io", "nodeslicepools", "", "", "WatchedKind.NODE_SLICE_POOL"));
            list.add(allow(e, verb, "k8s.cni.cncf.io", "network-attachment-definitions", "", "",
                    "WatchedKind.NETWORK_ATTACHMENT_DEFINITION"));
            list.add(allow(e, verb, "mellanox.com", "macvlannetworks", "", "", "WatchedKind.MACVLAN_NETWORK"));
            list.add(allow(e, verb, "scheduling.volcano.sh", "podgroups", "", "", "WatchedKind.POD_GROUP"));
            list.add(allow(e, verb, "scheduling.x-k8s.io", "podgroups", "", "", "WatchedKind.COSCHEDULING_POD_GROUP"));
            list.add(allow(e, verb, "topology.volcano.sh", "hypernodes", "", "", "WatchedKind.HYPER_NODE"));
        }
        list.add(allow(e, "get", "", "pods", "prod", "rdma-test-master-0", "HintBackfill reads the pod"));
        list.add(allow(e, "patch", "", "pods", "prod", "rdma-test-master-0", "HintBackfill writes the hints"));
        list.add(allow(e, "patch", "", "pods", NS, "railyard-extender-0", "LeaderElection leader label"));
        // the default rendering has no secure-port certificate: no kube-scheduler verbs, so no bind and no /explain
        list.add(deny(e, "create", "", "bindings", "prod", "", "no secure port: the bind verb is not served"));
        list.add(deny(e, "create", "", "pods/binding", "prod", "rdma-test-master-0", "binds only through bindings"));
        list.add(deny(e, "create", "authentication.k8s.io", "tokenreviews", "", "", "no secure port: no /explain"));
        list.add(deny(e, "create", "authorization.k8s.io", "subjectaccessreviews", "", "", "no secure port: no /explain"));
        list.add(allow(e, "create", "", "events", "prod", "", "SchedulingEvents, HintBackfill (core/v1 Events)"));
        list.add(allow(e, "create", "coordination.k8s.io", "leases", NS, "", "LeaderElection: first replica"));
        list.add(allow(e, "get", "coordination.k8s.io", "leases", NS, "railyard", "LeaderElection"));
        // fabric8 8.0 ResourceLock.update: a JSON merge patch carrying the resourceVersion (never a PUT).
        list.add(allow(e, "patch", "coordination.k8s.io", "leases", NS, "railyard", "LeaderElection acquire, renew"));
        list.add(allow(e, "get", "", "secrets", NS, "railyard-webhook-tls", "WebhookCertificateSecret read"));
        list.add(allow(e, "update", "", "secrets", NS, "railyard-webhook-tls", "WebhookCertificateSecret write"));
        list.add(allow(e, "get", "admissionregistration.k8s.io", "mutatingwebhookconfigurations", "", "railyard-hints",
                "WebhookCertificateSecret caBundle read"));
        list.add(allow(e, "patch", "admissionregistration.k8s.io", "mutatingwebhookconfigurations", "",
                "railyard-hints", "WebhookCertificateSecret caBundle JSON patch"));

        list.add(deny(e, "list", "", "secrets", "", "", "no secrets beyond one name"));
        list.add(deny(e, "list", "", "secrets", NS, "", "no secrets beyond one name"));
        list.add(deny(e, "get", "", "secrets", NS, "other", "no secrets beyond one name"));
        list.add(deny(e, "get", "", "secrets", "prod", "railyard-webhook-tls", "the Secret only in the release namespace"));
        list.add(deny(e, "delete", "", "pods", "prod", "", "no write on pods except patch"));
        list.add(deny(e, "create", "", "pods", "prod", "", "no write on pods except patch"));
        list.add(deny(e, "update", "", "pods", "prod", "", "no write on pods except patch"));
        list.add(deny(e, "create", "", "pods/eviction", "prod", "", "Railyard never preempts"));
        list.add(deny(e, "create", "", "pods/exec", "prod", "", "no exec"));
        list.add(deny(e, "patch", "", "nodes", "", "", "nodes are read only"));
        list.add(deny(e, "create", "railyard.dev", "nodetopologies", "", "", "only agents write NodeTopology"));
        list.add(deny(e, "patch", "railyard.dev", "nodetopologies", "", "", "only agents write NodeTopology"));
        list.add(deny(e, "patch", "admissionregistration.k8s.io", "mutatingwebhookconfigurations", "", "other",
                "only its own webhook configuration"));
        list.add(deny(e, "create", "admissionregistration.k8s.io", "mutatingwebhookconfigurations", "", "",
                "only its own webhook configuration"));
        list.add(deny(e, "patch", "coordination.k8s.io", "leases", NS, "other", "only its own Lease"));
        list.add(deny(e, "update", "coordination.k8s.io", "leases", NS, "railyard", "the Lease is patched, never put"));
        list.add(deny(e, "delete", "coordination.k8s.io", "leases", NS, "railyard", "a Lease is never deleted"));
        list.add(deny(e, "get", "", "configmaps", NS, "", "reads no ConfigMap"));
        list.add(deny(e, "create", "events.k8s.io", "events", "prod", "", "Events go through core/v1 only"));
        list.add(deny(e, "create", "", "serviceaccounts/token", NS, "railyard-extender", "mints no tokens"));
        list.add(deny(e, "update", "scheduling.volcano.sh", "podgroups", "prod", "", "Volcano objects are read only"));
        list.add(deny(e, "impersonate", "", "users", "", "", "no impersonation"));
        return list;
    }

    /** The agent's calls. */
    private static List<Access> agent(String a) {
        List<Access> list = new ArrayList<>();
        list.add(allow(a, "create", "railyard.dev", "nodetopologies", "", "",
                "NodeTopologyPublisher: create after a 404 apply"));
        list.add(allow(a, "patch", "railyard.dev", "nodetopologies", "", "", "NodeTopologyPublisher: apply"));
        list.add(allow(a, "patch", "railyard.dev", "nodetopologies/status", "", "",
                "NodeTopologyPublisher: status apply"));
        // fabric8 8.0 HasMetadataOperation.patch(PatchContext, String) on a name reads the object first
        // (getItemOrRequireFromServer): the publisher's status apply is such a call.
        list.add(allow(a, "get", "railyard.dev", "nodetopologies", "", "gpu-own",
                "NodeTopologyPublisher: fabric8 reads before the status apply"));
        list.add(deny(a, "list", "railyard.dev", "nodetopologies", "", "", "reads no other node's object in bulk"));
        list.add(deny(a, "watch", "railyard.dev", "nodetopologies", "", "", "reads no other node's object in bulk"));
        list.add(deny(a, "update", "railyard.dev", "nodetopologies", "", "", "apply is a patch"));
        list.add(deny(a, "delete", "railyard.dev", "nodetopologies", "", "", "never deletes"));
        list.add(deny(a, "update", "railyard.dev", "nodetopologies/status", "", "", "apply is a patch"));
        list.add(deny(a, "get", "", "nodes", "", "", "reads its host, not the API"));
        list.add(deny(a, "list", "", "pods", "", "", "allocations come from the kubelet's PodResources API"));
        list.add(deny(a, "get", "", "configmaps", NS, "", "the rdma config is a mounted file"));
        list.add(deny(a, "get", "", "secrets", NS, "railyard-webhook-tls", "no secrets"));
        list.add(deny(a, "create", "", "events", NS, "", "writes no Events"));
        return list;
    }

    /**
     * Asks a SelfSubjectAccessReview for each access as {@code as} (a client impersonating its ServiceAccount).
     *
     * @return one line per access whose answer differs from what is expected
     */
    static List<String> wrong(KubernetesClient as, List<Access> accesses) {
        List<String> wrong = new ArrayList<>();
        for (Access access : accesses) {
            SelfSubjectAccessReview review = as.authorization().v1().selfSubjectAccessReview().create(
                    new SelfSubjectAccessReviewBuilder().withNewSpec().withNewResourceAttributes()
                            .withVerb(access.verb()).withGroup(access.group()).withResource(access.resource())
                            .withSubresource(access.subresource()).withNamespace(access.namespace())
                            .withName(access.name()).endResourceAttributes().endSpec().build());
            if (review.getStatus().getAllowed() != access.allowed()) {
                wrong.add((access.allowed() ? "denied but needed: " : "allowed but must not be: ") + access);
            }
        }
        return wrong;
    }
}
