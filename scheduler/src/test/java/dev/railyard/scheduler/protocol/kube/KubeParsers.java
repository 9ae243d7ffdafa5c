package dev.railyard.scheduler.protocol.kube;

import dev.railyard.scheduler.protocol.WireFormatException;

/** The kube-scheduler readers, for tests outside this package that need their verdict. */
public final class KubeParsers {
    private KubeParsers() {
    }

    /** ExtenderArgs (filter, prioritize). @throws WireFormatException when refused */
    public static void args(byte[] body, String verb) throws WireFormatException {
        KubeRequestReader.readArgs(body, verb);
    }

    /** ExtenderBindingArgs. @throws WireFormatException when refused */
    public static void bind(byte[] body, String verb) throws WireFormatException {
        KubeRequestReader.readBindArgs(body, verb);
    }
}
