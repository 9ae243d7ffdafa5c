package dev.railyard.e2e;

import java.nio.file.Path;
import java.util.Arrays;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.TestWatcher;

/**
 * JUnit 5 extension that runs one {@link ControlPlane} for a test class. Register it as a static field:
 *
 * <pre>{@code
 * @RegisterExtension
 * static final ControlPlaneExtension CLUSTER =
 *         new ControlPlaneExtension(ControlPlane.Options.kubeScheduler(List.of("gpu-node-1", "gpu-node-2")));
 * }</pre>
 *
 * <p>Before all tests it checks the binaries the options need and starts the control plane; after all tests it
 * stops it. When a binary is missing, each test is skipped (reported as skipped, with the reason), or the class
 * fails when system property {@code railyard.e2e.required} is {@code true} or a comma-separated list naming that
 * binary (e.g. {@code etcd,kube-apiserver,kube-scheduler}). Test classes therefore set up cluster state in
 * {@code @BeforeEach}, not {@code @BeforeAll}. Component logs
 * stay under {@code target/e2e-logs/<run>/} (system property {@code railyard.e2e.logs}); their location is printed
 * when a test fails.
 *
 * <p>With system property {@code railyard.e2e.kubeconfig} (or {@code RAILYARD_E2E_KUBECONFIG}) set, no binaries are
 * needed: the extension {@linkplain ControlPlane#attach attaches} to that cluster instead, and skips the classes
 * whose options need a local control plane ({@link ControlPlane.Options#localOnlyReason()}).
 */
public final class ControlPlaneExtension implements BeforeAllCallback, BeforeEachCallback, AfterAllCallback,
        TestWatcher {

    private final ControlPlane.Options options;
    private final AtomicInteger failures = new AtomicInteger();
    private ControlPlane controlPlane;
    /** Why the binaries are missing, when they are; every test of the class is then skipped. */
    private String skipReason;
    /** What else the suite needs besides the control-plane binaries, said in a skip message; empty when nothing. */
    private String alsoNeeds = "";

    /** An extension that will start a control plane with {@code options}. */
    public ControlPlaneExtension(ControlPlane.Options options) {
        this.options = options;
    }

    /**
     * Names what else the suite needs (e.g. helm), so that a skip for missing binaries says it too and the reader
     * does not find out one build later.
     *
     * @return this extension
     */
    public ControlPlaneExtension alsoNeeding(String what) {
        this.alsoNeeds = "; this suite also needs " + what;
        return this;
    }

    /**
     * The running control plane.
     *
     * @throws IllegalStateException outside the test class's lifecycle
     */
    public ControlPlane controlPlane() {
        if (controlPlane == null) {
            throw new IllegalStateException("control plane not started (used outside the test class lifecycle?)");
        }
        return controlPlane;
    }

    @Override
    public void beforeAll(ExtensionContext context) throws Exception {
        Path logs = Path.of(System.getProperty("railyard.e2e.logs", "target/e2e-logs"));
        var external = ControlPlane.externalKubeconfig();
        if (external.isPresent()) {
            var localOnly = options.localOnlyReason();
            if (localOnly.isPresent()) {
                skipReason = localOnly.get();
                System.err.println("[e2e] SKIPPED " + context.getDisplayName() + ": " + skipReason);
                return;
            }
            controlPlane = ControlPlane.attach(external.get(), options, logs);
            return;
        }
        E2eBinaries bin = E2eBinaries.locate();
        String[] needed = options.binaries().toArray(String[]::new);
        var missing = bin.missing(needed);
        if (missing.isPresent()) {
            skipReason = missing.get() + alsoNeeds;
            if (Arrays.stream(needed).anyMatch(n -> !bin.has(n) && E2eBinaries.required(n))) {
                throw new IllegalStateException(skipReason + " (railyard.e2e.required="
                        + System.getProperty("railyard.e2e.required") + ")");
            }
            System.err.println("[e2e] SKIPPED " + context.getDisplayName() + ": " + skipReason);
            return;
        }
        controlPlane = ControlPlane.start(bin, options, logs);
    }

    @Override
    public void beforeEach(ExtensionContext context) {
        if (skipReason != null) {
            Assumptions.abort(skipReason);
        }
    }

    @Override
    public void testFailed(ExtensionContext context, Throwable cause) {
        failures.incrementAndGet();
        if (controlPlane != null) {
            System.err.println("[e2e] " + context.getDisplayName() + " failed; component logs: " + controlPlane.runDir());
        }
    }

    @Override
    public void afterAll(ExtensionContext context) {
        if (controlPlane != null) {
            controlPlane.close();
            if (failures.get() > 0 || context.getExecutionException().isPresent()) {
                System.err.println("[e2e] logs of the failed run kept in " + controlPlane.runDir());
            }
            controlPlane = null;
        }
    }
}
