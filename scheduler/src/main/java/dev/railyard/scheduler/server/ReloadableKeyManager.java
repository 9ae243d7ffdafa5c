package dev.railyard.scheduler.server;

import javax.net.ssl.KeyManager;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.X509ExtendedKeyManager;
import java.io.IOException;
import java.net.Socket;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.security.Principal;
import java.security.PrivateKey;
import java.security.cert.X509Certificate;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

/**
 * A server key manager whose key and certificate chain can be replaced while the listener runs: handshakes
 * started after {@link #load} present the new certificate, handshakes in flight finish with the one they chose.
 *
 * <p>Each {@link #load} builds a JDK key manager ({@link KeyManagerFactory#getDefaultAlgorithm()}) over an
 * in-memory keystore whose alias is unique to that load, and keeps the previous one, so an alias chosen just
 * before a swap still resolves to its own key and chain. Client-side methods return null: this is a server key.
 * Thread-safe: {@link #load} may run while handshakes are in progress.
 */
public final class ReloadableKeyManager extends X509ExtendedKeyManager {
    private static final char[] NO_PASSWORD = new char[0];

    private record Generation(X509ExtendedKeyManager delegate, X509Certificate leaf) {
    }

    private final AtomicLong loads = new AtomicLong();
    /** Current generation first, then the previous one (if any). */
    private final AtomicReference<List<Generation>> generations = new AtomicReference<>(List.of());

    /**
     * @param key   the private key
     * @param chain its certificate chain, leaf first
     * @throws GeneralSecurityException when the key does not match the leaf certificate
     */
    public ReloadableKeyManager(PrivateKey key, X509Certificate[] chain) throws GeneralSecurityException {
        load(key, chain);
    }

    /**
     * Replaces the key and chain for new handshakes.
     *
     * @throws GeneralSecurityException when the key does not match the leaf certificate
     */
    public void load(PrivateKey key, X509Certificate[] chain) throws GeneralSecurityException {
        String alias = "railyard-" + loads.incrementAndGet();
        KeyStore ks = KeyStore.getInstance("PKCS12");
        try {
            ks.load(null, null);
        } catch (IOException e) {
            throw new GeneralSecurityException("cannot create an in-memory keystore: " + e.getMessage(), e);
        }
        ks.setKeyEntry(alias, key, NO_PASSWORD, chain.clone());
        KeyManagerFactory kmf = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
        kmf.init(ks, NO_PASSWORD);
        X509ExtendedKeyManager delegate = null;
        for (KeyManager km : kmf.getKeyManagers()) {
            if (km instanceof X509ExtendedKeyManager x) {
                delegate = x;
                break;
            }
        }
        if (delegate == null) {
            throw new GeneralSecurityException("the JDK's " + kmf.getAlgorithm() + " key manager is not an X509ExtendedKeyManager");
        }
        Generation next = new Generation(delegate, chain[0]);
        generations.updateAndGet(old -> old.isEmpty() ? List.of(next) : List.of(next, old.getFirst()));
    }

    /** The leaf certificate new handshakes present. */
    public X509Certificate certificate() {
        return generations.get().getFirst().leaf();
    }

    private X509ExtendedKeyManager current() {
        return generations.get().getFirst().delegate();
    }

    @Override
    public String chooseServerAlias(String keyType, Principal[] issuers, Socket socket) {
        return current().chooseServerAlias(keyType, issuers, socket);
    }

    @Override
    public String chooseEngineServerAlias(String keyType, Principal[] issuers, SSLEngine engine) {
        return current().chooseEngineServerAlias(keyType, issuers, engine);
    }

    @Override
    public String[] getServerAliases(String keyType, Principal[] issuers) {
        return current().getServerAliases(keyType, issuers);
    }

    @Override
    public X509Certificate[] getCertificateChain(String alias) {
        for (Generation g : generations.get()) {
            X509Certificate[] chain = g.delegate().getCertificateChain(alias);
            if (chain != null) {
                return chain;
            }
        }
        return null;
    }

    @Override
    public PrivateKey getPrivateKey(String alias) {
        for (Generation g : generations.get()) {
            PrivateKey key = g.delegate().getPrivateKey(alias);
            if (key != null) {
                return key;
            }
        }
        return null;
    }

    @Override
    public String[] getClientAliases(String keyType, Principal[] issuers) {
        return null;
    }

    @Override
    public String chooseClientAlias(String[] keyType, Principal[] issuers, Socket socket) {
        return null;
    }

    @Override
    public String chooseEngineClientAlias(String[] keyType, Principal[] issuers, SSLEngine engine) {
        return null;
    }
}
