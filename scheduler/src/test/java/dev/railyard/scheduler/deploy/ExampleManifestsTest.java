package dev.railyard.scheduler.deploy;

import com.fasterxml.jackson.databind.JsonNode;
import dev.railyard.api.hints.HintAnnotations;
import dev.railyard.scheduler.cli.RailyardCommand;
import dev.railyard.scheduler.ipam.NetworkSelection;
import dev.railyard.scheduler.ipam.NetworkSelectionParser;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.net.InetAddress;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The example manifests ({@code deploy/examples/}) against the seed setup ({@code docs/seed-setup.md}) and
 * against what Railyard reads: hint annotation keys from {@link HintAnnotations}, the multus network annotation
 * through Railyard's own parser, and {@code railyard env} arguments through the real command line.
 */
class ExampleManifestsTest {
    private static final Pattern ANNOTATION_REF = Pattern.compile("metadata\\.annotations\\['([^']+)'\\]");

    @Test
    void macvlanNetworksAreTheSeedsFourWithQuotedWhereaboutsJson() throws Exception {
        // docs/seed-setup.md, "Networks": lan2..lan5 -> 192.168.4/8/12/16.0/22, gateway .1 of each, namespace prod.
        Map<String, List<String>> expected = Map.of(
                "rdma-net-ipam-lan2", List.of("lan2", "192.168.4.0/22", "192.168.4.1"),
                "rdma-net-ipam-lan3", List.of("lan3", "192.168.8.0/22", "192.168.8.1"),
                "rdma-net-ipam-lan4", List.of("lan4", "192.168.12.0/22", "192.168.12.1"),
                "rdma-net-ipam-lan5", List.of("lan5", "192.168.16.0/22", "192.168.16.1"));
        List<JsonNode> docs = DeployFiles.documents("examples/macvlan-networks.yaml");
        Map<String, List<String>> actual = new LinkedHashMap<>();
        for (JsonNode d : docs) {
            assertThat(d.path("apiVersion").asText()).isEqualTo("mellanox.com/v1alpha1");
            assertThat(d.path("kind").asText()).isEqualTo("MacvlanNetwork");
            JsonNode spec = d.path("spec");
            assertThat(spec.path("networkNamespace").asText()).isEqualTo("prod");
            assertThat(spec.path("mode").asText()).isEqualTo("bridge");
            // Strict JSON: the seed's unquoted keys would fail here, as they fail in whereabouts.
            JsonNode ipam = DeployFiles.JSON.readTree(spec.path("ipam").asText());
            assertThat(ipam.path("type").asText()).isEqualTo("whereabouts");
            assertThat(ipam.path("datastore").asText()).isEqualTo("kubernetes");
            String range = ipam.path("range").asText();
            String gateway = ipam.path("gateway").asText();
            assertThat(inCidr(gateway, range)).as("gateway %s inside %s", gateway, range).isTrue();
            actual.put(d.path("metadata").path("name").asText(), List.of(spec.path("master").asText(), range, gateway));
        }
        assertThat(actual).isEqualTo(expected);
    }

    @Test
    void rdmaTestTakesItsNcclSettingsFromHintAnnotations() {
        JsonNode job = DeployFiles.single("examples/rdma-test-job.yaml");
        assertThat(job.path("metadata").path("name").asText()).isEqualTo("rdma-test");
        JsonNode template = job.path("spec").path("tasks").get(0).path("template");
        JsonNode container = template.path("spec").path("containers").get(0);
        Map<String, JsonNode> env = new LinkedHashMap<>();
        container.path("env").forEach(e -> env.put(e.path("name").asText(), e));
        // The seed hard-coded both; the GID index differs per host and port (case-25, case-27).
        assertThat(env).doesNotContainKey("NCCL_IB_GID_INDEX");
        assertThat(fieldRef(env.get("NCCL_IB_HCA"))).isEqualTo(HintAnnotations.NCCL_IB_HCA);
        assertThat(fieldRef(env.get("NCCL_SOCKET_IFNAME"))).isEqualTo(HintAnnotations.NCCL_SOCKET_IFNAME);
        assertThat(fieldRef(env.get("NCCL_IB_ADDR_FAMILY"))).isEqualTo(HintAnnotations.NCCL_IB_ADDR_FAMILY);
        assertThat(fieldRef(env.get("NCCL_IB_ADDR_RANGE"))).isEqualTo(HintAnnotations.NCCL_IB_ADDR_RANGE);
        // The seed's request is unchanged: 8 GPUs and one slot of each HCA.
        assertThat(container.path("resources").path("requests").path("nvidia.com/gpu").asInt()).isEqualTo(8);
        assertSelectsTheExampleNetworks(template, job.path("metadata").path("namespace").asText());
    }

    @Test
    void everyRailyardAnnotationInTheExamplesIsAKeyRailyardDefines() throws Exception {
        Set<String> defined = hintKeys();
        Set<String> used = new TreeSet<>();
        for (String file : List.of("examples/rdma-test-job.yaml", "examples/rail-aligned-gang.yaml")) {
            Matcher m = ANNOTATION_REF.matcher(DeployFiles.text(file));
            while (m.find()) {
                used.add(m.group(1));
            }
            for (JsonNode task : DeployFiles.single(file).path("spec").path("tasks")) {
                task.path("template").path("metadata").path("annotations").fieldNames().forEachRemaining(k -> {
                    if (k.startsWith(HintAnnotations.PREFIX)) {
                        used.add(k);
                    }
                });
            }
        }
        assertThat(used).isNotEmpty().allMatch(defined::contains, "a railyard.dev/ key in HintAnnotations");
    }

    @Test
    void railAlignedGangIsOneGangWithAlignmentRequiredOnEveryPod() {
        JsonNode job = DeployFiles.single("examples/rail-aligned-gang.yaml");
        int replicas = 0;
        for (JsonNode task : job.path("spec").path("tasks")) {
            replicas += task.path("replicas").asInt();
            JsonNode annotations = task.path("template").path("metadata").path("annotations");
            assertThat(annotations.path(HintAnnotations.RAIL_ALIGNMENT).asText()).isEqualTo("required");
            assertSelectsTheExampleNetworks(task.path("template"), job.path("metadata").path("namespace").asText());
        }
        // All or nothing: minAvailable is the gang size.
        assertThat(replicas).isEqualTo(4);
        assertThat(job.path("spec").path("minAvailable").asInt()).isEqualTo(replicas);
        assertThat(job.path("spec").path("tasks")).hasSize(2);
    }

    @Test
    void railyardEnvInitContainerIsWiredToTheHintFileAndTheMainContainer() {
        JsonNode job = DeployFiles.single("examples/rail-aligned-gang.yaml");
        for (JsonNode task : job.path("spec").path("tasks")) {
            JsonNode spec = task.path("template").path("spec");
            JsonNode init = spec.path("initContainers").get(0);
            List<String> args = new ArrayList<>();
            init.path("args").forEach(a -> args.add(a.asText()));
            // The real command line accepts them (the image's entrypoint is `java -jar /app/railyard.jar`).
            CommandLine.ParseResult parsed = RailyardCommand.commandLine().parseArgs(args.toArray(String[]::new));
            CommandLine.ParseResult env = parsed.subcommand();
            assertThat(env.commandSpec().name()).isEqualTo("env");
            String hintsFile = env.matchedOptionValue("--hints-file", null).toString();
            String envFile = env.matchedOptionValue("--env-file", null).toString();

            Map<String, JsonNode> volumes = new LinkedHashMap<>();
            spec.path("volumes").forEach(v -> volumes.put(v.path("name").asText(), v));
            Map<String, String> initMounts = mounts(init);
            Map<String, String> mainMounts = mounts(spec.path("containers").get(0));
            // --hints-file is the downward-API file of all annotations.
            String hintsVolume = volumeAt(initMounts, parent(hintsFile));
            JsonNode item = volumes.get(hintsVolume).path("downwardAPI").path("items").get(0);
            assertThat(item.path("path").asText()).isEqualTo(hintsFile.substring(hintsFile.lastIndexOf('/') + 1));
            assertThat(item.path("fieldRef").path("fieldPath").asText()).isEqualTo("metadata.annotations");
            // --env-file lands on an emptyDir the main container mounts too, and sources.
            String envVolume = volumeAt(initMounts, parent(envFile));
            assertThat(volumes.get(envVolume).has("emptyDir")).isTrue();
            assertThat(mainMounts).containsEntry(envVolume, parent(envFile));
            assertThat(spec.path("containers").get(0).path("command").toString()).contains(". " + envFile);
            // Same GPUs as the main container, so `railyard env` sees what the training process gets.
            assertThat(init.path("resources").path("requests").path("nvidia.com/gpu"))
                    .isEqualTo(spec.path("containers").get(0).path("resources").path("requests").path("nvidia.com/gpu"));
        }
    }

    private static void assertSelectsTheExampleNetworks(JsonNode template, String namespace) {
        String annotation = template.path("metadata").path("annotations").path("k8s.v1.cni.cncf.io/networks").asText();
        List<String> selected = NetworkSelectionParser.parse(annotation, namespace).stream()
                .map(NetworkSelection::key).toList();
        List<String> defined = DeployFiles.documents("examples/macvlan-networks.yaml").stream()
                .map(d -> d.path("spec").path("networkNamespace").asText() + "/" + d.path("metadata").path("name").asText())
                .toList();
        assertThat(selected).containsExactlyElementsOf(defined);
    }

    private static String fieldRef(JsonNode envVar) {
        assertThat(envVar).as("env var present").isNotNull();
        Matcher m = ANNOTATION_REF.matcher(envVar.path("valueFrom").path("fieldRef").path("fieldPath").asText());
        assertThat(m.matches()).as("downward-API annotation reference in %s", envVar).isTrue();
        return m.group(1);
    }

    private static Set<String> hintKeys() throws IllegalAccessException {
        Set<String> keys = new TreeSet<>();
        for (Field f : HintAnnotations.class.getFields()) {
            if (Modifier.isStatic(f.getModifiers()) && f.getType() == String.class) {
                String v = (String) f.get(null);
                if (v.startsWith(HintAnnotations.PREFIX) && v.length() > HintAnnotations.PREFIX.length()) {
                    keys.add(v);
                }
            }
        }
        return keys;
    }

    private static Map<String, String> mounts(JsonNode container) {
        Map<String, String> m = new LinkedHashMap<>();
        container.path("volumeMounts").forEach(v -> m.put(v.path("name").asText(), v.path("mountPath").asText()));
        return m;
    }

    private static String volumeAt(Map<String, String> mounts, String dir) {
        return mounts.entrySet().stream().filter(e -> e.getValue().equals(dir)).map(Map.Entry::getKey).findFirst()
                .orElseThrow(() -> new AssertionError("no volume mounted at " + dir + " in " + mounts));
    }

    private static String parent(String file) {
        return file.substring(0, file.lastIndexOf('/'));
    }

    private static boolean inCidr(String address, String cidr) throws Exception {
        String[] parts = cidr.split("/");
        int prefix = Integer.parseInt(parts[1]);
        long mask = prefix == 0 ? 0 : (0xffffffffL << (32 - prefix)) & 0xffffffffL;
        long net = ipv4(parts[0]);
        return (net & mask) == net && (ipv4(address) & mask) == net;
    }

    private static long ipv4(String dotted) throws Exception {
        return ByteBuffer.wrap(InetAddress.getByName(dotted).getAddress()).getInt() & 0xffffffffL;
    }
}
