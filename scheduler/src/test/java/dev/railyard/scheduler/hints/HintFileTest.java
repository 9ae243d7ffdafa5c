package dev.railyard.scheduler.hints;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.railyard.api.hints.PlacementHint;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

public class HintFileTest {
    @TempDir
    Path dir;

    public static String hintJson() throws Exception {
        return new ObjectMapper().writeValueAsString(SeedNode.hint(List.of(0, 1), "=mlx5_0:1", "192.168.4.0/22"));
    }

    /** Go's strconv.Quote for an ASCII string without control characters: escape \ and ". */
    public static String goQuote(String s) {
        return "\"" + s.replace("\\", "\\\\").replace("\"", "\\\"") + "\"";
    }

    @Test
    void downwardApiAnnotationsFileWithThePlacementKey() throws Exception {
        String json = hintJson();
        Path f = dir.resolve("annotations");
        Files.writeString(f, "k8s.v1.cni.cncf.io/networks=\"rdma-net-ipam-lan2\"\nrailyard.dev/placement="
                + goQuote(json));
        HintFile r = HintFile.read(f);
        assertThat(r).isInstanceOf(HintFile.Found.class);
        PlacementHint h = ((HintFile.Found) r).hint();
        // round trip of what SeedNode.hint wrote
        assertThat(h).isEqualTo(SeedNode.hint(List.of(0, 1), "=mlx5_0:1", "192.168.4.0/22"));
        assertThat(h.nodeGpus()).hasSize(8);
    }

    @Test
    void singleKeyFileAndJsonObjectOfAnnotations() throws Exception {
        String json = hintJson();
        assertThat(HintFile.parse(json, "placement")).isInstanceOf(HintFile.Found.class);
        String obj = new ObjectMapper().writeValueAsString(java.util.Map.of("railyard.dev/placement", json, "x", "y"));
        assertThat(HintFile.parse(obj, "kubectl")).isInstanceOf(HintFile.Found.class);
    }

    @Test
    void missingFileEmptyFileAndNoKeyAreAbsent() throws Exception {
        assertThat(HintFile.read(dir.resolve("nope"))).isInstanceOf(HintFile.Absent.class);
        assertThat(HintFile.parse("", "f")).isEqualTo(new HintFile.Absent("f is empty: the pod has no annotations"));
        assertThat(HintFile.parse("a=\"b\"", "f")).isEqualTo(new HintFile.Absent(
                "no railyard.dev/placement annotation in f (the pod was bound without Railyard hints)"));
    }

    @Test
    void malformedHintsAreIgnoredWithAReason() {
        assertThat(reason(HintFile.parse("railyard.dev/placement=\"{not json\"", "f")))
                .startsWith("f [railyard.dev/placement]: malformed hint JSON:");
        assertThat(reason(HintFile.parse("{\"version\":\"one\"}", "f")))
                .isEqualTo("f: the hint has no valid \"version\" (expected an integer >= 1)");
        assertThat(reason(HintFile.parse("{\"version\":1,\"gpus\":{\"not\":\"a list\"}}", "f")))
                .startsWith("f: hint does not match schema version 1:");
        assertThat(reason(HintFile.parse("{\"version\":1,\"gpus\":[{\"gpu\":null}]}", "f")))
                .startsWith("f: hint does not match schema version 1:");
        assertThat(reason(HintFile.parse("broken line", "f"))).startsWith("f:1:1: expected key=");
    }

    @Test
    void aFutureVersionIsIgnoredAndAnAdditiveFieldIsNot() {
        assertThat(reason(HintFile.parse("{\"version\":2,\"node\":\"n\",\"newThing\":{}}", "f")))
                .isEqualTo("f: hint schema version 2 is newer than this railyard understands (1); "
                        + "upgrade the railyard image");
        HintFile additive = HintFile.parse("{\"version\":1,\"node\":\"n\",\"gangSize\":1,\"extra\":[1,2]}", "f");
        assertThat(additive).isInstanceOf(HintFile.Found.class);
        assertThat(((HintFile.Found) additive).hint().node()).isEqualTo("n");
    }

    @Test
    void aFileLargerThanAnyPodsAnnotationsIsIgnoredWithoutReadingItAll() throws Exception {
        // was: read whole (railyard env --hints-file /dev/zero ran out of memory); this one, 1 MiB + 1 blanks,
        // was read and then called empty. Annotations are at most 256 KiB (apimachinery ValidateAnnotationsSize).
        Path f = dir.resolve("huge");
        Files.write(f, " ".repeat(HintFile.MAX_BYTES + 1).getBytes(java.nio.charset.StandardCharsets.US_ASCII));
        assertThat(reason(HintFile.read(f))).isEqualTo("hints file " + f + " is larger than 1 MiB, which no pod's "
                + "annotations are (at most 256 KiB): not a hints file");
    }

    @Test
    void aFileThatIsNotUtf8IsIgnoredInWords() throws Exception {
        // was: "cannot read hints file F: Input length = 1" (MalformedInputException's message)
        Path f = dir.resolve("binary");
        Files.write(f, new byte[]{'k', '=', '"', (byte) 0x91, (byte) 0xfe, '"'});
        assertThat(reason(HintFile.read(f)))
                .isEqualTo("cannot read hints file " + f + ": not UTF-8 text (a binary file?)");
    }

    @Test
    void aMissingNumberIsNamedByItsPath() {
        // was: "Cannot map `null` into type `int` (set DeserializationConfig.DeserializationFeature
        // .FAIL_ON_NULL_FOR_PRIMITIVES to 'false' to allow)"; gangSize, gpus[].port are ints in PlacementHint
        assertThat(reason(HintFile.parse("{\"version\":1,\"node\":\"n\",\"gang\":\"prod/j\"}", "f")))
                .isEqualTo("f: hint does not match schema version 1: \"gangSize\" is missing or null (expected a "
                        + "whole number)");
        assertThat(reason(HintFile.parse("{\"version\":1,\"gangSize\":2,\"gpus\":[{\"gpu\":0,\"hca\":\"mlx5_0\"}]}",
                "f"))).isEqualTo("f: hint does not match schema version 1: \"gpus[0].port\" is missing or null "
                + "(expected a whole number)");
        // a list where an object belongs is said in words too (InputException.reason)
        assertThat(reason(HintFile.parse("{\"version\":1,\"gpus\":{\"not\":\"a list\"}}", "f")))
                .isEqualTo("f: hint does not match schema version 1: \"gpus\": expected a list, got a mapping");
    }

    private static String reason(HintFile f) {
        assertThat(f).isInstanceOf(HintFile.Ignored.class);
        return ((HintFile.Ignored) f).reason();
    }
}
