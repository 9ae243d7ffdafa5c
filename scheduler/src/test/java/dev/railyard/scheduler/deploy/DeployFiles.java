package dev.railyard.scheduler.deploy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.MissingNode;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import com.fasterxml.jackson.dataformat.yaml.YAMLParser;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/** Reads the files under the repository's {@code deploy/} directory for the deploy tests. */
final class DeployFiles {
    static final ObjectMapper YAML = new ObjectMapper(new YAMLFactory());
    static final ObjectMapper JSON = new ObjectMapper();

    private DeployFiles() {
    }

    /** {@code deploy/} (tests run with the module directory as working directory). */
    static Path root() {
        Path p = Path.of(System.getProperty("railyard.deploy.dir", "../deploy")).toAbsolutePath().normalize();
        if (!Files.isDirectory(p)) {
            throw new IllegalStateException("deploy directory not found at " + p);
        }
        return p;
    }

    static Path path(String relative) {
        return root().resolve(relative);
    }

    static String text(String relative) {
        try {
            return Files.readString(path(relative), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Every YAML document of a file, in order (empty documents left out). */
    static List<JsonNode> documents(String relative) {
        List<JsonNode> docs = new ArrayList<>();
        try (YAMLParser parser = new YAMLFactory().createParser(path(relative).toFile())) {
            var it = YAML.readValues(parser, JsonNode.class);
            while (it.hasNext()) {
                JsonNode d = it.next();
                if (d != null && !d.isNull() && !d.isMissingNode()) {
                    docs.add(d);
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException(relative + ": " + e.getMessage(), e);
        }
        return docs;
    }

    static JsonNode single(String relative) {
        List<JsonNode> docs = documents(relative);
        if (docs.size() != 1) {
            throw new IllegalStateException(relative + " has " + docs.size() + " documents, expected 1");
        }
        return docs.getFirst();
    }

    /** The value at a dotted path of object keys ({@code a.b.c}), or a missing node. */
    static JsonNode at(JsonNode node, String dotted) {
        JsonNode n = node;
        for (String key : dotted.split("\\.")) {
            n = n == null ? MissingNode.getInstance() : n.path(key);
        }
        return n;
    }
}
