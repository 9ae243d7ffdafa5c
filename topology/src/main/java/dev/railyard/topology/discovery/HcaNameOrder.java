package dev.railyard.topology.discovery;

import java.util.Comparator;

/**
 * Orders device names with embedded numbers compared as numbers: {@code mlx5_2} before {@code mlx5_10},
 * {@code mlx5_9} before {@code mlx5_bond_0}. Runs of digits compare by value, everything else by character.
 * Both sysfs and NCCL XML list HCAs in this order, so one machine gives one HCA order from every source.
 */
public enum HcaNameOrder implements Comparator<String> {
    /** The only instance. */
    INSTANCE;

    @Override
    public int compare(String a, String b) {
        int i = 0;
        int j = 0;
        while (i < a.length() && j < b.length()) {
            char ca = a.charAt(i);
            char cb = b.charAt(j);
            if (Character.isDigit(ca) && Character.isDigit(cb)) {
                int endA = digitsEnd(a, i);
                int endB = digitsEnd(b, j);
                String na = stripZeros(a.substring(i, endA));
                String nb = stripZeros(b.substring(j, endB));
                int byValue = na.length() != nb.length() ? Integer.compare(na.length(), nb.length()) : na.compareTo(nb);
                if (byValue != 0) {
                    return byValue;
                }
                i = endA;
                j = endB;
            } else {
                if (ca != cb) {
                    return Character.compare(ca, cb);
                }
                i++;
                j++;
            }
        }
        int byRest = Integer.compare(a.length() - i, b.length() - j);
        return byRest != 0 ? byRest : a.compareTo(b);
    }

    private static int digitsEnd(String s, int from) {
        int end = from;
        while (end < s.length() && Character.isDigit(s.charAt(end))) {
            end++;
        }
        return end;
    }

    private static String stripZeros(String digits) {
        int k = 0;
        while (k < digits.length() - 1 && digits.charAt(k) == '0') {
            k++;
        }
        return digits.substring(k);
    }
}
