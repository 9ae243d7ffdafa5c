package dev.railyard.scheduler.cli;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.databind.MapperFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.json.JsonMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import com.fasterxml.jackson.dataformat.yaml.YAMLGenerator;
import dev.railyard.scheduler.engine.ClusterSnapshot;
import dev.railyard.scheduler.engine.HcaResource;
import dev.railyard.scheduler.engine.NodeState;
import dev.railyard.scheduler.ipam.IpamSnapshot;
import dev.railyard.topology.InputException;
import dev.railyard.topology.fabric.FabricModel;
import dev.railyard.topology.fabric.FabricPosition;
import dev.railyard.topology.fabric.FabricSwitch;
import dev.railyard.topology.fabric.HyperNodeFabric;
import dev.railyard.api.volcano.HyperNode;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * Writes the demo cluster ({@link DemoCluster}) as a snapshot directory, the files {@code kubectl get -o yaml} would
 * give for the same cluster, so that {@code railyard explain job jobs.yaml --snapshot DIR} can be checked against
 * {@code railyard demo} (hidden option {@code demo --export-snapshot DIR}).
 *
 * <p>Files: {@code nodes.yaml} (Nodes: labels, the RDMA resources as {@code status.allocatable}, Ready),
 * {@code nodetopologies.yaml} (the demo's paired topologies as {@code spec}; {@code status.allocatedGpus} = the GPUs
 * busy before the demo, {@code status.rdmaResources} = which HCA each resource exposes), {@code networks.yaml}
 * (MacvlanNetworks and their NetworkAttachmentDefinitions), {@code ippools.yaml}, {@code pods.yaml} (the live pods
 * holding addresses; the stale holders have none), {@code hypernodes.yaml} (the demo fabric as Volcano HyperNodes) and
 * {@code jobs.yaml} (the demo's Volcano Jobs, for the what-if).
 *
 * <p>The demo fabric is rail-optimised (one leaf per rail), which HyperNodes cannot say; but in it every rail of a
 * scalable unit goes to that unit's leaves, so for every two nodes the lowest common tier is the same on every rail
 * and a tree of HyperNodes (one per unit, per spine group, one core) gives the same distances. The export checks that
 * for every node pair and rail, and refuses otherwise.
 */
final class DemoSnapshotExport {
    private static final KubernetesSerialization SERIALIZATION = new KubernetesSerialization();
    private static final ObjectMapper JSON = JsonMapper.builder()
            .disable(MapperFeature.AUTO_DETECT_IS_GETTERS)
            .enable(SerializationFeature.ORDER_MAP_ENTRIES_BY_KEYS)
            .serializationInclusion(JsonInclude.Include.NON_NULL)
            .build();
    /** Keys sorted, as kubectl prints them; this also makes the files byte-stable from run to run. */
    private static final ObjectMapper YAML = new ObjectMapper(new YAMLFactory()
            .disable(YAMLGenerator.Feature.WRITE_DOC_START_MARKER)
            .enable(YAMLGenerator.Feature.MINIMIZE_QUOTES)
            .enable(YAMLGenerator.Feature.ALWAYS_QUOTE_NUMBERS_AS_STRINGS)
            .enable(YAMLGenerator.Feature.INDENT_ARRAYS_WITH_INDICATOR))
            .enable(SerializationFeature.ORDER_MAP_ENTRIES_BY_KEYS);

    private DemoSnapshotExport() {
    }

    /**
     * @param cluster the loaded demo cluster (before any job is placed)
     * @param dir     the directory to write into (created when missing; files of the same names are replaced)
     * @return the files written, relative to {@code dir}
     * @throws InputException when the directory cannot be written or the fabric cannot be expressed as HyperNodes
     */
    static List<String> write(DemoCluster.Loaded cluster, Path dir) {
        ClusterSnapshot s = cluster.snapshot();
        Map<String, List<Object>> files = new LinkedHashMap<>();
        List<Object> nodes = new ArrayList<>();
        List<Object> topologies = new ArrayList<>();
        for (NodeState n : s.nodes()) {
            nodes.add(node(n));
            topologies.add(topology(n));
        }
        files.put("nodes.yaml", nodes);
        files.put("nodetopologies.yaml", topologies);
        IpamSnapshot ipam = cluster.ledger() == null ? null : cluster.ledger().snapshot();
        List<Object> networks = new ArrayList<>();
        List<Object> pools = new ArrayList<>();
        List<Object> pods = new ArrayList<>();
        if (ipam != null) {
            ipam.macvlanNetworks().forEach(m -> networks.add(typed(m)));
            ipam.networkAttachmentDefinitions().forEach(m -> networks.add(typed(m)));
            ipam.ipPools().forEach(m -> pools.add(typed(m)));
            for (String ref : new TreeSet<>(ipam.livePods())) {
                int slash = ref.indexOf('/');
                Map<String, Object> pod = new LinkedHashMap<>();
                pod.put("apiVersion", "v1");
                pod.put("kind", "Pod");
                pod.put("metadata", Map.of("name", ref.substring(slash + 1), "namespace", ref.substring(0, slash)));
                pods.add(pod);
            }
        }
        files.put("networks.yaml", networks);
        files.put("ippools.yaml", pools);
        files.put("pods.yaml", pods);
        files.put("hypernodes.yaml", hyperNodes(s));
        try {
            Files.createDirectories(dir);
            List<String> written = new ArrayList<>();
            for (var e : files.entrySet()) {
                Map<String, Object> list = new LinkedHashMap<>();
                list.put("apiVersion", "v1");
                list.put("items", e.getValue());
                list.put("kind", "List");
                Files.writeString(dir.resolve(e.getKey()), header(e.getKey()) + YAML.writeValueAsString(list),
                        StandardCharsets.UTF_8);
                written.add(e.getKey());
            }
            try (InputStream in = DemoCluster.resource("jobs.yaml")) {
                Files.write(dir.resolve("jobs.yaml"), in.readAllBytes());
            }
            written.add("jobs.yaml");
            return written;
        } catch (IOException e) {
            throw new InputException(dir + ": cannot write the snapshot: " + e.getMessage(), e);
        }
    }

    private static String header(String file) {
        return "# Written by 'railyard demo --export-snapshot' from the built-in demo cluster: " + file + "\n";
    }

    private static Map<String, Object> node(NodeState n) {
        Map<String, Object> meta = new LinkedHashMap<>();
        meta.put("name", n.name());
        meta.put("labels", new TreeMap<>(n.labels()));
        Map<String, Object> resources = new TreeMap<>();
        int gpus = n.topology() == null ? 0 : n.topology().gpus().size();
        resources.put("nvidia.com/gpu", Integer.toString(gpus));
        for (HcaResource r : n.hcaResources()) {
            resources.put(r.resource(), Long.toString(r.capacity()));
        }
        Map<String, Object> status = new LinkedHashMap<>();
        status.put("allocatable", resources);
        status.put("capacity", resources);
        status.put("conditions", List.of(Map.of("type", "Ready", "status", n.schedulable() ? "True" : "False")));
        Map<String, Object> o = new LinkedHashMap<>();
        o.put("apiVersion", "v1");
        o.put("kind", "Node");
        o.put("metadata", meta);
        o.put("status", status);
        return o;
    }

    private static Map<String, Object> topology(NodeState n) {
        Map<String, Object> o = new LinkedHashMap<>();
        o.put("apiVersion", "railyard.dev/v1alpha1");
        o.put("kind", "NodeTopology");
        o.put("metadata", Map.of("name", n.name()));
        o.put("spec", JSON.convertValue(n.topology(), Map.class));
        Map<String, Object> status = new LinkedHashMap<>();
        status.put("allocatedGpus", List.copyOf(n.allocatedGpus()));
        List<Object> res = new ArrayList<>();
        for (HcaResource r : n.hcaResources()) {
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("resourceName", r.resource());
            m.put("hcas", r.hca() == null ? List.of() : List.of(r.hca()));
            m.put("mappedBy", "selectors");
            m.put("allocatable", r.capacity());
            m.put("allocated", r.allocated());
            res.add(m);
        }
        status.put("rdmaResources", res);
        o.put("status", status);
        return o;
    }

    @SuppressWarnings("unchecked")
    private static Map<String, Object> typed(Object o) {
        Map<String, Object> m = SERIALIZATION.convertValue(o, Map.class);
        return m;
    }

    /** The fabric as a HyperNode tree: one HyperNode per rail-0 switch and its uplinks, named without the rail suffix. */
    private static List<Object> hyperNodes(ClusterSnapshot s) {
        FabricModel f = s.fabric();
        if (f.isEmpty()) {
            return List.of();
        }
        Map<String, TreeSet<String>> members = new TreeMap<>();
        Map<String, Integer> tiers = new TreeMap<>();
        for (var e : new TreeMap<>(f.positions()).entrySet()) {
            FabricPosition p = e.getValue();
            String leaf = p.leaf(0);
            if (leaf == null) {
                throw new InputException("demo fabric: node " + e.getKey() + " has no rail-0 switch");
            }
            members.computeIfAbsent(unrail(leaf), k -> new TreeSet<>()).add("node:" + e.getKey());
            tiers.put(unrail(leaf), f.fabricSwitch(leaf).tier());
            String child = leaf;
            while (!f.fabricSwitch(child).uplinks().isEmpty()) {
                FabricSwitch cs = f.fabricSwitch(child);
                String up = cs.uplinks().get(0);
                members.computeIfAbsent(unrail(up), k -> new TreeSet<>()).add("hn:" + unrail(child));
                tiers.put(unrail(up), f.fabricSwitch(up).tier());
                child = up;
            }
        }
        List<HyperNode> model = new ArrayList<>();
        List<Object> out = new ArrayList<>();
        for (var e : members.entrySet()) {
            int tier = tiers.get(e.getKey());
            List<HyperNode.Member> ms = new ArrayList<>();
            List<Object> raw = new ArrayList<>();
            for (String m : e.getValue()) {
                boolean node = m.startsWith("node:");
                String name = m.substring(m.indexOf(':') + 1);
                ms.add(node ? HyperNode.Member.node(name) : HyperNode.Member.hyperNode(name));
                raw.add(Map.of("type", node ? "Node" : "HyperNode", "selector", Map.of("exactMatch",
                        Map.of("name", name))));
            }
            model.add(new HyperNode(e.getKey(), tier, f.tierName(tier), ms));
            Map<String, Object> spec = new LinkedHashMap<>();
            spec.put("tier", tier);
            spec.put("tierName", f.tierName(tier));
            spec.put("members", raw);
            Map<String, Object> o = new LinkedHashMap<>();
            o.put("apiVersion", "topology.volcano.sh/v1alpha1");
            o.put("kind", "HyperNode");
            o.put("metadata", Map.of("name", e.getKey()));
            o.put("spec", spec);
            out.add(o);
        }
        // the HyperNode tree must give every node pair the same common tier as the demo fabric on every rail
        Map<String, Map<String, String>> labels = new TreeMap<>();
        s.nodes().forEach(n -> labels.put(n.name(), n.labels()));
        FabricModel tree = HyperNodeFabric.build(model, labels);
        List<String> names = new ArrayList<>(new TreeSet<>(f.positions().keySet()));
        for (String a : names) {
            for (String b : names) {
                FabricPosition pa = f.position(a);
                for (int rail : pa.explicitRails()) {
                    if (f.position(b).knows(rail) && f.commonTier(a, b, rail) != tree.commonTier(a, b, rail)) {
                        throw new InputException("demo fabric: nodes " + a + " and " + b + " meet at tier "
                                + f.commonTier(a, b, rail) + " on rail " + rail + " but at tier "
                                + tree.commonTier(a, b, rail) + " in the HyperNode tree; it cannot be exported");
                    }
                }
            }
        }
        return out;
    }

    /** {@code su1-leaf-r0} → {@code su1-leaf}: the switch group of one rail-optimised unit. */
    private static String unrail(String name) {
        return name.replaceFirst("-r\\d+$", "");
    }
}
