package dev.railyard.scheduler.cli;

import dev.railyard.topology.InputException;
import io.fabric8.kubernetes.client.Config;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Collection;
import java.util.Map;

/**
 * Where the Kubernetes client of {@code serve}, {@code explain} and {@code pools} found its API server, as fabric8
 * looks (the rules kubectl follows): a kubeconfig file ({@code $KUBECONFIG}, else {@code ~/.kube/config}), the
 * in-cluster service account ({@code KUBERNETES_SERVICE_HOST} or its token file), or an explicit master URL
 * ({@code kubernetes.master} system property, {@code KUBERNETES_MASTER}).
 *
 * <p>When none of them exists, fabric8 still builds a client for {@code https://kubernetes.default.svc} and every
 * call then fails with a connection error, slowly and in Java terms; the commands ask {@link #require} first and
 * stop with one line saying what is missing and what to do instead.
 */
final class ApiServerConfigSource {
    /** The service account token file of an in-cluster pod. */
    static final Path SERVICE_ACCOUNT_TOKEN = Path.of("/var/run/secrets/kubernetes.io/serviceaccount/token");

    private ApiServerConfigSource() {
    }

    /**
     * @param kubeconfigs the kubeconfig files fabric8 would read, in order ({@link Config#getKubeconfigFilenames()}:
     *                    the {@code $KUBECONFIG} list, else {@code ~/.kube/config})
     * @param env         the process environment
     * @param masterProp  the {@code kubernetes.master} system property, or null
     * @param token       the service account token file to look for
     * @param insteadHint what the user can do instead, ending the message (e.g. "give --snapshot DIR")
     * @return where the configuration comes from, for a log line: {@code "kubeconfig /home/u/.kube/config"},
     *         {@code "in-cluster service account"}, {@code "KUBERNETES_MASTER"} or
     *         {@code "system property kubernetes.master"}
     * @throws InputException when there is no API server configuration at all; the message names what was
     *                        looked for and ends with {@code insteadHint}
     */
    static String require(Collection<String> kubeconfigs, Map<String, String> env, String masterProp, Path token,
                          String insteadHint) {
        for (String file : kubeconfigs) {
            if (file != null && !file.isBlank() && Files.isRegularFile(Path.of(file))) {
                return "kubeconfig " + file;
            }
        }
        if (notBlank(masterProp)) {
            return "system property kubernetes.master";
        }
        if (notBlank(env.get("KUBERNETES_MASTER"))) {
            return "KUBERNETES_MASTER";
        }
        if (notBlank(env.get("KUBERNETES_SERVICE_HOST")) || Files.isRegularFile(token)) {
            return "in-cluster service account";
        }
        String kubeconfig = env.get("KUBECONFIG");
        String files = notBlank(kubeconfig) ? "$KUBECONFIG=" + kubeconfig + " names no existing file"
                : "$KUBECONFIG is unset and ~/.kube/config does not exist";
        throw new InputException("no Kubernetes API server configured (" + files + ", and this is not a pod: no "
                + "KUBERNETES_SERVICE_HOST); " + insteadHint);
    }

    /** {@link #require} with this process's kubeconfig files, environment, system properties and token file. */
    static String require(String insteadHint) {
        return require(Config.getKubeconfigFilenames(), System.getenv(), System.getProperty("kubernetes.master"),
                SERVICE_ACCOUNT_TOKEN, insteadHint);
    }

    /**
     * fabric8's {@code Config.autoConfigure} (kubectl's rules), after {@link #require}.
     *
     * @param insteadHint what the user can do instead, for the message when nothing is configured
     * @return the client configuration
     * @throws InputException when nothing is configured, or the kubeconfig found cannot be parsed (naming it)
     */
    static Config autoConfigure(String insteadHint) {
        String from = require(insteadHint);
        try {
            return Config.autoConfigure(null);
        } catch (RuntimeException e) {
            throw unusable(from, e);
        }
    }

    /**
     * @param file a kubeconfig file given on the command line
     * @return the client configuration it holds (its current context)
     * @throws InputException when the file cannot be read or parsed, naming it
     */
    static Config fromKubeconfig(Path file) {
        try {
            return Config.fromKubeconfig(null, Files.readString(file), file.toString());
        } catch (IOException e) {
            throw new InputException("cannot read kubeconfig " + file + ": " + InputException.reason(e), e);
        } catch (RuntimeException e) {
            throw unusable("kubeconfig " + file, e);
        }
    }

    /** SnakeYAML's position line, followed by the quoted source line and a caret line. */
    private static final java.util.regex.Pattern YAML_MARK =
            java.util.regex.Pattern.compile("in (?:'?reader'?|.*?), (line \\d+, column \\d+):?");

    /**
     * The parser's message made one line: YAML's spans lines ("while parsing a flow node", " in reader, line 2,
     * column 3:", the source line, a caret, "expected ..."), so each position becomes "(line 2, column 3)" after
     * the words it belongs to and the quoted source and caret lines are left out.
     */
    static InputException unusable(String what, RuntimeException e) {
        java.util.List<String> kept = new java.util.ArrayList<>();
        String[] lines = String.valueOf(e.getMessage()).strip().split("\\R");
        for (int i = 0; i < lines.length; i++) {
            String line = lines[i].strip();
            java.util.regex.Matcher mark = YAML_MARK.matcher(line);
            if (mark.matches() && !kept.isEmpty()) {
                kept.set(kept.size() - 1, kept.get(kept.size() - 1) + " (" + mark.group(1) + ")");
                i += 2;
            } else if (!line.isEmpty()) {
                kept.add(line);
            }
        }
        return new InputException(what + " is not usable: " + String.join("; ", kept), e);
    }

    private static boolean notBlank(String s) {
        return s != null && !s.isBlank();
    }
}
