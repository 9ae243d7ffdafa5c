package dev.railyard.scheduler.protocol.volcano;

import dev.railyard.scheduler.protocol.WireFormatException;

/** The Volcano readers' full parse (no fast path), for tests outside this package that need its verdict. */
public final class VolcanoParsers {
    private VolcanoParsers() {
    }

    /**
     * @param nodesKey {@code node}, {@code nodes} or null (allocateFunc, deallocateFunc)
     * @throws WireFormatException when the full parse refuses the body
     */
    public static void task(byte[] body, String verb, String nodesKey) throws WireFormatException {
        VolcanoRequestReader.readTaskRequest(body, verb, nodesKey, false);
    }

    /** @throws WireFormatException when the full parse refuses the body */
    public static void job(byte[] body, String verb) throws WireFormatException {
        VolcanoRequestReader.readJobRequest(body, verb);
    }
}
