package dev.railyard.scheduler.input;

import java.util.Optional;
import java.util.regex.Pattern;

/**
 * Kubernetes' name rules for the objects Railyard names in requests: pods and nodes are DNS-1123 subdomains,
 * namespaces DNS-1123 labels (kubernetes v1.35.4 {@code pkg/apis/core/validation/validation.go}
 * {@code ValidatePodName}, {@code ValidateNodeName}, {@code ValidateNamespaceName}; the formats in
 * k8s.io/apimachinery {@code pkg/util/validation/validation.go}; docs/hostile-input.md). The API server admits no
 * other name, so a request naming one is not about a real object and is refused.
 */
public final class ObjectNames {
    /** Longest DNS-1123 subdomain. */
    public static final int SUBDOMAIN_MAX = 253;
    /** Longest DNS-1123 label. */
    public static final int LABEL_MAX = 63;

    private static final String LABEL = "[a-z0-9]([-a-z0-9]*[a-z0-9])?";
    private static final Pattern LABEL_RE = Pattern.compile(LABEL);
    private static final Pattern SUBDOMAIN_RE = Pattern.compile(LABEL + "(\\." + LABEL + ")*");

    private ObjectNames() {
    }

    /**
     * Checks a DNS-1123 subdomain (pod and node names): at most 253 characters, lower-case letters, digits, '-'
     * and '.', starting and ending with a letter or digit, no empty label.
     *
     * @return the problem, or empty when the name is valid
     */
    public static Optional<String> subdomainProblem(String name) {
        if (name == null || name.isEmpty()) {
            return Optional.of("is empty");
        }
        if (name.length() > SUBDOMAIN_MAX) {
            return Optional.of("is " + name.length() + " characters long, more than " + SUBDOMAIN_MAX);
        }
        return SUBDOMAIN_RE.matcher(name).matches() ? Optional.empty()
                : Optional.of("is not a DNS-1123 subdomain (lower-case letters, digits, '-' and '.', starting and "
                + "ending with a letter or digit)");
    }

    /**
     * Checks a DNS-1123 label (namespace names): at most 63 characters, lower-case letters, digits and '-',
     * starting and ending with a letter or digit.
     *
     * @return the problem, or empty when the name is valid
     */
    public static Optional<String> labelProblem(String name) {
        if (name == null || name.isEmpty()) {
            return Optional.of("is empty");
        }
        if (name.length() > LABEL_MAX) {
            return Optional.of("is " + name.length() + " characters long, more than " + LABEL_MAX);
        }
        return LABEL_RE.matcher(name).matches() ? Optional.empty()
                : Optional.of("is not a DNS-1123 label (lower-case letters, digits and '-', starting and ending "
                + "with a letter or digit)");
    }

    /** The name quoted for a message: escaped ({@link LogText}) and cut to 80 characters. */
    public static String quote(String name) {
        String t = name == null ? "null" : name.length() > 80 ? name.substring(0, 80) + "..." : name;
        return "\"" + LogText.escape(t) + "\"";
    }
}
