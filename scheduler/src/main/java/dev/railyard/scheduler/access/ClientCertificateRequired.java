package dev.railyard.scheduler.access;

import dev.railyard.scheduler.protocol.Caller;
import dev.railyard.scheduler.protocol.VerbHandler;
import dev.railyard.scheduler.protocol.WireFormatException;
import dev.railyard.scheduler.protocol.WireReply;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;

/**
 * Verbs only a caller with a verified client certificate may use: kube-scheduler's {@code filter},
 * {@code prioritize} and {@code bind} on the secure listener. The listener has already verified the chain against
 * the client CA ({@link dev.railyard.scheduler.server.ClientCertificateVerifier}); a caller without a certificate,
 * or with one the listener refused (another CA, expired, not for client authentication), gets 401 with the reason
 * before its body is read. Thread-safe.
 */
public final class ClientCertificateRequired {
    private ClientCertificateRequired() {
    }

    /**
     * @param protocol for the reason, e.g. {@code kube}
     * @param verbs    verb name to handler
     * @return the same verbs, each refusing callers without a client certificate; same order
     */
    public static Map<String, VerbHandler> wrap(String protocol, Map<String, VerbHandler> verbs) {
        Map<String, VerbHandler> out = new LinkedHashMap<>();
        verbs.forEach((verb, h) -> out.put(verb, guarded(protocol + " " + verb, h)));
        return out;
    }

    private static VerbHandler guarded(String name, VerbHandler delegate) {
        return new VerbHandler() {
            @Override
            public WireReply handle(byte[] body) throws WireFormatException {
                return delegate.handle(body);
            }

            @Override
            public WireReply handle(byte[] body, Caller caller) throws WireFormatException {
                return delegate.handle(body, caller);
            }

            @Override
            public Optional<WireReply> refuse(Caller caller) {
                if (caller.certificateRefusal().isPresent()) {
                    return Optional.of(WireReply.text(401, name + ": " + caller.certificateRefusal().get()
                            + " (kube-scheduler extender tlsConfig certFile/keyFile; docs/serve.md)"));
                }
                if (caller.clientCertificates().isEmpty()) {
                    return Optional.of(WireReply.text(401, name + ": a client certificate signed by the client CA "
                            + "is required (kube-scheduler extender tlsConfig certFile/keyFile; docs/serve.md)"));
                }
                return delegate.refuse(caller);
            }

            @Override
            public boolean readsBody() {
                return delegate.readsBody();
            }

            @Override
            public Threading threading() {
                return delegate.threading(); // the check before it only reads memory
            }

            @Override
            public BodyBudget bodyBudget() {
                return BodyBudget.SCHEDULERS; // the certificate is checked before the body is read
            }
        };
    }
}
