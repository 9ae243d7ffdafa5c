package dev.railyard.scheduler.cli;

/** How {@code serve} logs: slf4j-simple's settings, set before the first logger is created. */
final class ServeLogging {
    private ServeLogging() {
    }

    /**
     * fabric8's informer loop: it logs every failed list or watch with a full stack trace (ERROR before the first
     * list, WARN after). The cluster cache says the same in one line per kind ({@code cannot watch Pod.core/v1:
     * cannot connect (connection refused ...)}) and keeps {@code railyard_cache_feature_enabled}, so this logger is
     * off unless a {@code -D} property sets it.
     */
    static final String FABRIC8_REFLECTOR_LOG = "org.slf4j.simpleLogger.log."
            + "io.fabric8.kubernetes.client.informers.impl.cache.Reflector";

    /** slf4j-simple reads these once, when the first logger is created; serve creates none before this. */
    static void configureLogging(String level) {
        System.setProperty("org.slf4j.simpleLogger.defaultLogLevel", level);
        System.setProperty("org.slf4j.simpleLogger.showDateTime", "true");
        System.setProperty("org.slf4j.simpleLogger.dateTimeFormat", "yyyy-MM-dd'T'HH:mm:ss.SSSXXX");
        System.setProperty("org.slf4j.simpleLogger.showShortLogName", "true");
        System.setProperty("org.slf4j.simpleLogger.showThreadName", "false");
        if (System.getProperty(FABRIC8_REFLECTOR_LOG) == null) {
            System.setProperty(FABRIC8_REFLECTOR_LOG, "off");
        }
    }
}
