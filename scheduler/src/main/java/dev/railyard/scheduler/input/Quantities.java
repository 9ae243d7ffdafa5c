package dev.railyard.scheduler.input;

import java.math.BigDecimal;
import java.math.BigInteger;
import java.math.RoundingMode;

/**
 * Kubernetes resource quantities ({@code "8"}, {@code "500m"}, {@code "960Gi"}, {@code "1e3"}) parsed with bounds
 * checked on the text before any arithmetic, so that no quantity can cost more than a few microseconds
 * (docs/quantities.md).
 *
 * <p>Grammar, as k8s.io/apimachinery {@code pkg/api/resource/quantity.go} (v0.35.4) defines it: an optional sign,
 * digits with an optional decimal point ({@code 1}, {@code 1.5}, {@code 1.}, {@code .5}), then a suffix: a binary
 * SI suffix ({@code Ki Mi Gi Ti Pi Ei}), a decimal SI suffix ({@code n u m k M G T P E} or none) or a decimal
 * exponent ({@code e3}, {@code E-2}, {@code e+6}).
 *
 * <p>Bounds (Kubernetes documents that no quantity may exceed 2<sup>63</sup>−1 and rounds amounts finer than
 * 1n up to 1n):
 * <ul>
 *   <li>at most {@value #MAX_TEXT_LENGTH} characters;</li>
 *   <li>not negative (requests, limits and overhead never are);</li>
 *   <li>zero, or from 1n (10<sup>−9</sup>) to {@link #MAX_AMOUNT} = 2<sup>63</sup>−1 base units; anything
 *       outside is refused, judged from the digit count and the exponent, never by computing the value;</li>
 *   <li>amounts with more than nine decimal places are rounded up to 1n steps, as Kubernetes does.</li>
 * </ul>
 * Thread-safe, stateless.
 */
public final class Quantities {
    /** Longest quantity text accepted. Kubernetes writes at most about 25 characters. */
    public static final int MAX_TEXT_LENGTH = 64;
    /** The largest amount accepted, in base units: 2^63 - 1. */
    public static final BigDecimal MAX_AMOUNT = BigDecimal.valueOf(Long.MAX_VALUE);
    /**
     * Most devices of one countable resource ({@code nvidia.com/gpu}, {@code nvidia.com/mlx5_N}) one pod may ask
     * for: 2^31 - 1. Far beyond any node, and what the placement engine's {@code int} counts hold.
     */
    public static final long MAX_DEVICES = Integer.MAX_VALUE;

    /** Powers of ten of the decimal SI suffixes. */
    private static final String DECIMAL_SUFFIXES = "num kMGTPE";
    private static final int[] DECIMAL_POWERS = {-9, -6, -3, 0, 3, 6, 9, 12, 15, 18};
    private static final BigDecimal NANO = new BigDecimal("1e-9");
    private static final BigInteger KI = BigInteger.valueOf(1024);

    private Quantities() {
    }

    /** A quantity that is not one, or outside the bounds; the message says which and shows the text. */
    public static final class QuantityException extends Exception {
        QuantityException(String message) {
            super(message, null, false, false);
        }
    }

    /**
     * Parses a quantity into its amount in base units (cores for {@code cpu}, bytes for memory, devices for
     * extended resources).
     *
     * @return the exact amount, 0 &le; amount &le; {@link #MAX_AMOUNT}, at most nine decimal places, trailing
     *         zeros stripped
     * @throws QuantityException naming the problem: not a quantity, negative, too long, too large, too small
     */
    public static BigDecimal parse(String text) throws QuantityException {
        if (text == null || text.isEmpty()) {
            throw new QuantityException("empty quantity");
        }
        if (text.length() > MAX_TEXT_LENGTH) {
            throw new QuantityException("quantity of " + text.length() + " characters is longer than "
                    + MAX_TEXT_LENGTH + " (" + show(text) + ")");
        }
        int i = 0;
        int n = text.length();
        boolean negative = false;
        if (text.charAt(0) == '+' || text.charAt(0) == '-') {
            negative = text.charAt(0) == '-';
            i++;
        }
        int intStart = i;
        while (i < n && isDigit(text.charAt(i))) {
            i++;
        }
        String intDigits = text.substring(intStart, i);
        String fracDigits = "";
        if (i < n && text.charAt(i) == '.') {
            int fracStart = ++i;
            while (i < n && isDigit(text.charAt(i))) {
                i++;
            }
            fracDigits = text.substring(fracStart, i);
        }
        if (intDigits.isEmpty() && fracDigits.isEmpty()) {
            throw notAQuantity(text);
        }
        Suffix suffix = suffix(text, i);
        String digits = stripLeadingZeros(intDigits + fracDigits);
        if (digits.isEmpty()) {
            return BigDecimal.ZERO;
        }
        if (negative) {
            throw new QuantityException("quantity " + show(text) + " is negative");
        }
        // power of ten of the leading digit, plus the suffix's: 2^(10k) lies within [10^(3k), 1.153 * 10^(3k)),
        // so the true value is at least 10^power and below 10^(power + 1.07); only amounts near the bounds are
        // computed (a few dozen digits at most) before the exact comparison
        long power = digits.length() - fracDigits.length() - 1L + suffix.decimalPower + 3L * suffix.binaryPower / 10;
        if (power >= 19) {
            throw tooLarge(text);
        }
        if (power < -10) {
            throw tooSmall(text);
        }
        BigDecimal amount = new BigDecimal(new BigInteger(digits), fracDigits.length() - suffix.decimalPower);
        if (suffix.binaryPower > 0) {
            amount = amount.multiply(new BigDecimal(KI.pow(suffix.binaryPower / 10)));
        }
        if (amount.compareTo(MAX_AMOUNT) > 0) {
            throw tooLarge(text);
        }
        if (amount.compareTo(NANO) < 0) {
            throw tooSmall(text);
        }
        if (amount.scale() > 9) {
            amount = amount.setScale(9, RoundingMode.UP);
        }
        return amount.stripTrailingZeros();
    }

    /**
     * Whole devices of a countable resource: the amount rounded up, checked against {@link #MAX_DEVICES}.
     *
     * @throws QuantityException when the count is over {@link #MAX_DEVICES}
     */
    public static long devices(BigDecimal amount) throws QuantityException {
        BigDecimal whole = amount.setScale(0, RoundingMode.CEILING);
        if (whole.compareTo(BigDecimal.valueOf(MAX_DEVICES)) > 0) {
            throw new QuantityException(whole.toPlainString() + " devices is more than " + MAX_DEVICES
                    + ", the most Railyard counts for one pod");
        }
        return whole.longValueExact();
    }

    /** The suffix of {@code text} from {@code at}: its power of ten, or its power of two for binary SI. */
    private record Suffix(int decimalPower, int binaryPower) {
    }

    private static Suffix suffix(String text, int at) throws QuantityException {
        String s = text.substring(at);
        if (s.isEmpty()) {
            return new Suffix(0, 0);
        }
        if (s.length() == 2 && s.charAt(1) == 'i') {
            int k = "KMGTPE".indexOf(s.charAt(0));
            if (k >= 0) {
                return new Suffix(0, 10 * (k + 1));
            }
            throw notAQuantity(text);
        }
        if (s.length() == 1) {
            int k = DECIMAL_SUFFIXES.indexOf(s.charAt(0));
            if (k >= 0 && s.charAt(0) != ' ') {
                return new Suffix(DECIMAL_POWERS[k], 0);
            }
            if (s.charAt(0) != 'e' && s.charAt(0) != 'E') {
                throw notAQuantity(text);
            }
        }
        if (s.charAt(0) != 'e' && s.charAt(0) != 'E') {
            throw notAQuantity(text);
        }
        // a decimal exponent: an optionally signed integer
        int j = 1;
        boolean negative = false;
        if (j < s.length() && (s.charAt(j) == '+' || s.charAt(j) == '-')) {
            negative = s.charAt(j) == '-';
            j++;
        }
        String exp = stripLeadingZeros(s.substring(j));
        if (j == s.length() || !s.substring(j).chars().allMatch(Quantities::isDigit)) {
            throw notAQuantity(text);
        }
        if (exp.length() > 6) {
            // |exponent| of a million or more: no amount within the bounds has one (unless the digits are all
            // zeros, which parse() returns as 0 before looking at the power)
            return new Suffix(negative ? -1_000_000 : 1_000_000, 0);
        }
        int e = exp.isEmpty() ? 0 : Integer.parseInt(exp);
        return new Suffix(negative ? -e : e, 0);
    }

    private static QuantityException notAQuantity(String text) {
        return new QuantityException(show(text) + " is not a Kubernetes quantity");
    }

    private static QuantityException tooSmall(String text) {
        return new QuantityException("quantity " + show(text) + " is below 1n (1e-9), the smallest non-zero "
                + "Kubernetes quantity");
    }

    private static QuantityException tooLarge(String text) {
        return new QuantityException("quantity " + show(text) + " is above 2^63-1 (" + MAX_AMOUNT
                + "), the largest Kubernetes quantity");
    }

    private static boolean isDigit(int c) {
        return c >= '0' && c <= '9';
    }

    private static String stripLeadingZeros(String digits) {
        int k = 0;
        while (k < digits.length() && digits.charAt(k) == '0') {
            k++;
        }
        return digits.substring(k);
    }

    /** The text in quotes, control characters escaped, cut to 40 characters. */
    private static String show(String text) {
        String t = text.length() > 40 ? text.substring(0, 40) + "..." : text;
        return "\"" + LogText.escape(t) + "\"";
    }
}
