package dev.railyard.e2e;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.util.ArrayList;
import java.util.List;

/** Picks free TCP ports on 127.0.0.1 for the control-plane listeners. */
public final class LoopbackPorts {

    private LoopbackPorts() {
    }

    /**
     * Returns {@code count} distinct ports that were free on 127.0.0.1 a moment ago. All sockets are held open
     * until every port is chosen, so the ports differ from each other; another process may still take one before
     * the component binds it, which then shows up as that component failing to start.
     *
     * @throws UncheckedIOException if the OS cannot give an ephemeral port
     */
    public static int[] pick(int count) {
        List<ServerSocket> held = new ArrayList<>();
        try {
            int[] ports = new int[count];
            for (int i = 0; i < count; i++) {
                ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress());
                s.setReuseAddress(true);
                held.add(s);
                ports[i] = s.getLocalPort();
            }
            return ports;
        } catch (IOException e) {
            throw new UncheckedIOException("cannot pick a free port on 127.0.0.1", e);
        } finally {
            for (ServerSocket s : held) {
                try {
                    s.close();
                } catch (IOException ignored) {
                    // closing a listening socket we own; nothing to do
                }
            }
        }
    }
}
