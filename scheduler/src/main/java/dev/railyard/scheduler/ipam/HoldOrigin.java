package dev.railyard.scheduler.ipam;

/**
 * Which scheduler moment took an address hold, in the words {@code pools} and {@code /explain} print.
 */
public enum HoldOrigin {
    /**
     * kube-scheduler {@code filter} passed the pod: a short hold, so the next pod's filter sees the address as
     * taken before the first pod's {@code bind} arrives (kube-scheduler binds asynchronously).
     */
    FILTER("kube filter"),
    /** kube-scheduler {@code bind}: taken before the Binding is created, held until the pool shows the address. */
    BIND("kube bind"),
    /** Volcano {@code allocateFunc}: taken in the session, persisted on the pod, released by {@code deallocateFunc}. */
    ALLOCATE("volcano allocateFunc"),
    /** A plan being explained ({@code railyard explain}), never persisted. */
    PLAN("plan"),
    /** Not a hold: a pod bound to a node whose address whereabouts has not recorded yet (docs/adr/0005). */
    BOUND("bound, address not recorded yet");

    private final String words;

    HoldOrigin(String words) {
        this.words = words;
    }

    /** @return the origin as {@code pools} prints it ({@code kube bind}) */
    public String words() {
        return words;
    }

    /**
     * @param words what {@link #words()} prints
     * @return the origin, or null when the text names none
     */
    public static HoldOrigin ofWords(String words) {
        for (HoldOrigin o : values()) {
            if (o.words.equals(words)) {
                return o;
            }
        }
        return null;
    }
}
