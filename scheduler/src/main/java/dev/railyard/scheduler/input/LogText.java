package dev.railyard.scheduler.input;

/**
 * Makes text that came from a caller safe to put in one log line or one-line reply: every character that could
 * end or rewrite a line is written as an escape, so a pod name or map key holding a newline cannot forge a log
 * line.
 *
 * <p>Escaped: the C0 controls (U+0000–U+001F) as {@code \n}, {@code \r}, {@code \t} or <code>&#92;u00XX</code>, DEL
 * (U+007F), the C1 controls (U+0080–U+009F, NEL among them) and the Unicode line and paragraph separators
 * (U+2028, U+2029) as <code>&#92;uXXXX</code>. Everything else, backslashes included, is kept, so ordinary names read as
 * they are. Stateless, thread-safe.
 */
public final class LogText {
    private LogText() {
    }

    /**
     * @return {@code text} with line-breaking and control characters escaped; the same instance when there are
     *         none; {@code "null"} for null
     */
    public static String escape(CharSequence text) {
        if (text == null) {
            return "null";
        }
        int n = text.length();
        int first = 0;
        while (first < n && !needsEscape(text.charAt(first))) {
            first++;
        }
        if (first == n) {
            return text.toString();
        }
        StringBuilder sb = new StringBuilder(n + 16).append(text, 0, first);
        for (int i = first; i < n; i++) {
            char c = text.charAt(i);
            if (!needsEscape(c)) {
                sb.append(c);
            } else if (c == '\n') {
                sb.append("\\n");
            } else if (c == '\r') {
                sb.append("\\r");
            } else if (c == '\t') {
                sb.append("\\t");
            } else {
                sb.append(String.format("\\u%04x", (int) c));
            }
        }
        return sb.toString();
    }

    /** @return whether {@link #escape} would change {@code c} */
    public static boolean needsEscape(char c) {
        return c < 0x20 || (c >= 0x7f && c <= 0x9f) || c == '\u2028' || c == '\u2029';
    }
}
