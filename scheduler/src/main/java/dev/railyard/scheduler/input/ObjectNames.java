package dev.railyard.scheduler.input;

import java.util.Optional;

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

    /**
     * The two formats as regular expressions, as apimachinery writes them; the checks below scan characters instead
     * (a kube filter checks every one of thousands of node names per call, and the regex was 15 % of its CPU) and
     * ObjectNamesTest holds the scan to these expressions.
     */
    static final String LABEL = "[a-z0-9]([-a-z0-9]*[a-z0-9])?";
    static final String SUBDOMAIN = LABEL + "(\\." + LABEL + ")*";

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
        return isSubdomain(name) ? Optional.empty()
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
        return labelsEnd(name, false) == name.length() ? Optional.empty()
                : Optional.of("is not a DNS-1123 label (lower-case letters, digits and '-', starting and ending "
                + "with a letter or digit)");
    }

    /** @return {@code name} matches {@link #SUBDOMAIN}: labels of {@link #LABEL} joined by '.' */
    static boolean isSubdomain(String name) {
        return labelsEnd(name, true) == name.length();
    }

    /**
     * Scans {@link #LABEL}s from the start of {@code name}, joined by '.' when {@code dots}.
     *
     * @return where the scan ended: {@code name.length()} when the whole name matched, else less (-1 when empty)
     */
    private static int labelsEnd(String name, boolean dots) {
        int i = 0;
        while (true) {
            int start = i;
            while (i < name.length() && isLabelChar(name.charAt(i))) {
                i++;
            }
            if (i == start || name.charAt(start) == '-' || name.charAt(i - 1) == '-') {
                return -1;
            }
            if (!dots || i == name.length() || name.charAt(i) != '.') {
                return i;
            }
            i++;
        }
    }

    private static boolean isLabelChar(char c) {
        return c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-';
    }

    /** The name quoted for a message: escaped ({@link LogText}) and cut to 80 characters. */
    public static String quote(String name) {
        String t = name == null ? "null" : name.length() > 80 ? name.substring(0, 80) + "..." : name;
        return "\"" + LogText.escape(t) + "\"";
    }
}
