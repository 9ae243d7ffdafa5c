package dev.railyard.scheduler.cli;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonMappingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.exc.InvalidFormatException;
import com.fasterxml.jackson.databind.exc.MismatchedInputException;
import com.fasterxml.jackson.databind.exc.UnrecognizedPropertyException;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import dev.railyard.topology.InputException;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;

/**
 * The {@code railyard serve --config FILE} YAML file. Every key is optional; flags given on the command line
 * win over the file. Documented with an example in docs/serve.md. Unknown keys are errors (a typo must not
 * silently leave a default in place).
 *
 * <pre>
 * server:
 *   address: 127.0.0.1        # bind address (the chart gives the pod IP)
 *   port: 8888
 *   maxRequestSize: 64Mi      # bytes, or a Kubernetes quantity
 *   requestReadTimeout: 15s   # first byte of a request to the end of its body; 100ms..24h
 *   idleTimeout: 120s         # a keep-alive connection between requests; 100ms..24h
 *   maxIdleConnections: 200   # idle keep-alive connections kept at most
 *   tls:                      # either certFile + keyFile (PEM), or pkcs12 (+ pkcs12PasswordFile)
 *     certFile: /etc/railyard/tls/tls.crt
 *     keyFile: /etc/railyard/tls/tls.key
 *   secure:                   # HTTPS for kube-scheduler (client certificate) and /explain (bearer token)
 *     port: 8444
 *     certFile: /etc/railyard/secure/tls.crt
 *     keyFile: /etc/railyard/secure/tls.key
 *     clientCAFile: /etc/railyard/secure/ca.crt
 * placement:
 *   neutralScore: 50          # 0..100, the score when Railyard cannot judge a node
 * volcano:
 *   scoreWeight: 1.0          # nodeScore sent to Volcano = score (0..100) x scoreWeight
 *   replyDialect: v1.10       # v1.6 | v1.8 | v1.10 (the Volcano release's predicate reply shape)
 * logging:
 *   level: info               # error | warn | info | debug | trace
 * </pre>
 */
record ServeConfig(Server server, Placement placement, Volcano volcano, Logging logging) {

    record Server(String address, Integer port, String maxRequestSize, String requestReadTimeout,
                  String idleTimeout, Integer maxIdleConnections, Tls tls, Secure secure) {
    }

    record Secure(Integer port, String certFile, String keyFile, String clientCAFile) {
    }

    record Tls(String certFile, String keyFile, String pkcs12, String pkcs12PasswordFile) {
    }

    record Placement(Integer neutralScore) {
    }

    record Volcano(Double scoreWeight, String replyDialect) {
    }

    record Logging(String level) {
    }

    static final ServeConfig EMPTY = new ServeConfig(null, null, null, null);

    ServeConfig {
        server = server == null ? new Server(null, null, null, null, null, null, null, null) : server;
        placement = placement == null ? new Placement(null) : placement;
        volcano = volcano == null ? new Volcano(null, null) : volcano;
        logging = logging == null ? new Logging(null) : logging;
    }

    /**
     * Reads the file.
     *
     * @throws InputException with one line naming the file, line and column for a missing file, bad YAML, an
     *                        unknown key or a value of the wrong type
     */
    static ServeConfig read(Path file) {
        ObjectMapper yaml = new ObjectMapper(new YAMLFactory())
                .enable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES)
                .enable(DeserializationFeature.FAIL_ON_NULL_FOR_PRIMITIVES);
        try {
            if (Files.size(file) == 0) {
                return EMPTY;
            }
            ServeConfig c = yaml.readValue(file.toFile(), ServeConfig.class);
            return c == null ? EMPTY : c;
        } catch (NoSuchFileException e) {
            throw new InputException(file + ": no such config file");
        } catch (UnrecognizedPropertyException e) {
            // the parser's location is past the value by then, so name the key by its path instead
            throw new InputException(file + ": unknown key \"" + InputException.keyPath(e) + "\""
                    + (e.getKnownPropertyIds() == null ? "" : " (known here: " + known(e) + ")"));
        } catch (JsonMappingException e) {
            if (notUtf8(e)) {
                throw new InputException(file + ": " + InputException.reason(e), e);
            }
            String detail = e instanceof MismatchedInputException m && !(e instanceof InvalidFormatException)
                    // "expected a mapping, got a list" instead of Jackson's "Cannot deserialize value of type
                    // `dev.railyard...ServeConfig$Server` from Array value"
                    ? InputException.reason(m).replaceFirst("^\"[^\"]*\": ", "")
                    : firstSentence(e.getOriginalMessage());
            throw new InputException(file + where(e) + ": bad value for \"" + InputException.keyPath(e) + "\": "
                    + detail, e);
        } catch (JsonProcessingException e) {
            throw new InputException(file + (notUtf8(e) ? "" : where(e)) + ": " + (notUtf8(e)
                    ? InputException.reason(e) : e.getOriginalMessage().replaceAll("\\s+", " ")), e);
        } catch (IOException e) {
            throw new InputException(file + ": cannot read config: " + InputException.reason(e), e);
        }
    }

    /** @return true when the file is not UTF-8 text (Jackson wraps the decoder's exception) */
    private static boolean notUtf8(Throwable e) {
        return InputException.reason(e).startsWith("not UTF-8");
    }

    private static String where(JsonProcessingException e) {
        return e.getLocation() == null ? ""
                : ":" + e.getLocation().getLineNr() + ":" + e.getLocation().getColumnNr();
    }

    private static String firstSentence(String message) {
        String m = message == null ? "unreadable value" : message.replaceAll("\\s+", " ");
        int colon = m.indexOf(": not a valid");
        String r = colon > 0 ? m.substring(colon + 2) : m;
        return r.replace("`java.lang.Integer` value", "integer").replace("`java.lang.Double` value", "number")
                .replace("`java.lang.String` value", "string");
    }

    private static String known(UnrecognizedPropertyException e) {
        return String.join(", ", e.getKnownPropertyIds().stream().map(Object::toString).sorted().toList());
    }
}
