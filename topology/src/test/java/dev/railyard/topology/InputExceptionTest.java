package dev.railyard.topology;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.zip.GZIPInputStream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

/**
 * {@link InputException#reading} and {@link InputException#reason}: what a person sees when a file cannot be read
 * or parsed. The causes are the real exceptions the JDK and Jackson throw for each input, not hand-made ones; the
 * expected texts carry no Java exception or class names.
 */
class InputExceptionTest {
    @TempDir
    Path dir;

    record Server(Integer port, String address) {
    }

    record Config(Server server, List<String> names) {
    }

    private static final ObjectMapper YAML = new ObjectMapper(new YAMLFactory())
            .enable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES);

    private Throwable yaml(String text) {
        return catchThrowable(() -> YAML.readValue(text, Config.class));
    }

    @Test
    void fileSystemFailuresAreWords() throws IOException {
        Path missing = dir.resolve("nope.yaml");
        Throwable noFile = catchThrowable(() -> Files.readString(missing));
        assertThat(InputException.reading(missing.toString(), noFile))
                .hasMessage(missing + ": no such file or directory");     // JDK: NoSuchFileException(path)

        Throwable isDir = catchThrowable(() -> Files.readString(dir));
        assertThat(InputException.reason(isDir)).isEqualTo("is a directory"); // JDK: IOException "Is a directory"

        // java.io.FileInputStream (Jackson's readValue(File)): FileNotFoundException "DIR (Is a directory)"
        Throwable oldIo = catchThrowable(() -> new java.io.FileInputStream(dir.toFile()).close());
        assertThat(InputException.reason(oldIo)).isEqualTo("is a directory");

        // Jackson reading a directory: JsonMappingException "java.io.IOException: Is a directory" at line 1,
        // column 1, wrapping the JDK's; no line or column applies to a file that could not be read at all
        Throwable yamlDir = catchThrowable(() -> YAML.readValue(Files.newInputStream(dir), Config.class));
        assertThat(InputException.reading("jobs", yamlDir)).hasMessage("jobs: is a directory");

        Path binary = dir.resolve("random.bin");
        Files.write(binary, new byte[]{'a', (byte) 0x91, (byte) 0xff, 0});
        Throwable notUtf8 = catchThrowable(() -> Files.readString(binary, StandardCharsets.UTF_8));
        // JDK: MalformedInputException "Input length = 1"
        assertThat(InputException.reason(notUtf8)).isEqualTo("not UTF-8 text (a binary file?)");
    }

    @Test
    void truncatedAndNonGzipArchives() throws IOException {
        Path gz = dir.resolve("cut.tar.gz");
        byte[] full;
        try (var bytes = new java.io.ByteArrayOutputStream();
             var out = new java.util.zip.GZIPOutputStream(bytes)) {
            out.write(new byte[4096]);
            out.finish();
            full = bytes.toByteArray();
        }
        Files.write(gz, java.util.Arrays.copyOf(full, full.length / 2));
        // JDK: EOFException "Unexpected end of ZLIB input stream"
        Throwable cut = catchThrowable(() -> new GZIPInputStream(Files.newInputStream(gz)).readAllBytes());
        assertThat(InputException.reason(cut)).isEqualTo("ends early (truncated?)");

        Files.writeString(gz, "plain text, not gzip");
        // JDK: ZipException "Not in GZIP format"
        Throwable plain = catchThrowable(() -> new GZIPInputStream(Files.newInputStream(gz)).readAllBytes());
        assertThat(InputException.reason(plain)).isEqualTo("not gzip-compressed");
    }

    @Test
    void jacksonProblemsNameTheKeyAndNoJavaType() {
        // Jackson: MismatchedInputException "No content to map due to end-of-input"
        assertThat(InputException.reading("fabric.yaml", yaml(""))).hasMessage("fabric.yaml: empty: no YAML or JSON content");

        // Jackson: UnrecognizedPropertyException "Unrecognized field "prot" (class ...InputExceptionTest$Server)";
        // its location is line 3, column 1 (past the value), so the key is named by its path alone
        assertThat(InputException.reading("serve.yaml", yaml("server:\n  prot: 1\n")))
                .hasMessage("serve.yaml: unknown key \"server.prot\" (known here: address, port)");

        // Jackson: "Cannot deserialize value of type `...$Server` from Array value (token `JsonToken.START_ARRAY`)"
        Throwable list = yaml("server: [1, 2]\n");
        assertThat(InputException.reading("serve.yaml", list))
                .hasMessage("serve.yaml line 1, column 9: \"server\": expected a mapping, got a list");

        // Jackson: InvalidFormatException "Cannot deserialize value of type `java.lang.Integer` from String "abc""
        assertThat(InputException.reason(yaml("server:\n  port: abc\n")))
                .isEqualTo("\"server.port\": 'abc' is not a whole number");

        // a top-level list where a mapping belongs
        assertThat(InputException.reason(yaml("- a\n- b\n"))).isEqualTo("expected a mapping, got a list");

        // YAML syntax: SnakeYAML's first line, without the indented excerpt lines
        Throwable syntax = yaml("a: [1, 2\n");
        assertThat(syntax).isInstanceOf(JsonProcessingException.class);
        assertThat(InputException.reading("a.yaml", syntax)).hasMessage(
                "a.yaml line 1, column 9: while parsing a flow sequence: expected ',' or ']', but got <stream end>");

        // Jackson: StreamConstraintsException "Document nesting depth (1001) exceeds the maximum allowed (1000, from
        // `StreamReadConstraints.getMaxNestingDepth()`)"
        Throwable deep = catchThrowable(() -> YAML.readValue("a: " + "[".repeat(1500) + "]".repeat(1500), Object.class));
        assertThat(InputException.reason(deep)).isEqualTo("nested more than 1000 levels deep");

        // a binary file handed to the YAML reader: Jackson wraps the CharConversionException
        Throwable binary = catchThrowable(() -> YAML.readValue(new byte[]{'a', ':', ' ', (byte) 0x91, (byte) 0xfe},
                Config.class));
        assertThat(InputException.reason(binary)).isEqualTo("not UTF-8 text (a binary file?)");
    }
}
