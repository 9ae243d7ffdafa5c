package dev.railyard.e2e;

import static org.awaitility.Awaitility.await;

import java.io.IOException;
import java.time.Duration;
import java.util.concurrent.TimeUnit;

/**
 * Takes the control plane's kube-apiserver away and brings it back, for the "API server gone" scenarios: stopped
 * (SIGKILL: connections refused, as after a crash or with its node gone) and started again with the same flags, port
 * and etcd, or paused (SIGSTOP: connections accepted and never answered, the slow failure) and resumed (SIGCONT).
 * Acts only on the PID it started or recorded.
 */
final class ApiServerOutage {
    private final ControlPlane controlPlane;
    private ComponentProcess current;
    private int restarts;

    ApiServerOutage(ControlPlane controlPlane) {
        this.controlPlane = controlPlane;
        this.current = controlPlane.process("kube-apiserver")
                .orElseThrow(() -> new IllegalStateException("no kube-apiserver process in this control plane"));
    }

    /** SIGKILL to kube-apiserver. */
    void stop() {
        current.kill();
    }

    /** Starts kube-apiserver again with the same command and waits until it answers. */
    void start() throws IOException {
        restarts++;
        current = controlPlane.launch("kube-apiserver-" + restarts, current.command(), current.env());
        ComponentProcess p = current;
        await().atMost(Duration.ofSeconds(90)).pollInterval(Duration.ofMillis(250))
                .ignoreExceptions().until(() -> {
                    p.assertAlive();
                    return controlPlane.client().namespaces().withName("default").get() != null;
                });
    }

    /** SIGSTOP: the process keeps its port, the kernel accepts connections, nothing answers. */
    void pause() throws IOException, InterruptedException {
        signal("STOP");
    }

    /** SIGCONT. */
    void resume() throws IOException, InterruptedException {
        signal("CONT");
    }

    private void signal(String sig) throws IOException, InterruptedException {
        Process kill = new ProcessBuilder("kill", "-" + sig, Long.toString(current.pid())).inheritIO().start();
        if (!kill.waitFor(10, TimeUnit.SECONDS) || kill.exitValue() != 0) {
            throw new IOException("kill -" + sig + " " + current.pid() + " failed");
        }
    }
}
