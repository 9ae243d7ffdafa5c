package dev.railyard.scheduler.ipam;

/**
 * A whereabouts IPAM config (or the CNI config around it) that whereabouts or multus would fail on, or that Railyard
 * refuses to guess about. The message is one line naming the key and value.
 */
class IpamConfigException extends RuntimeException {
    IpamConfigException(String message) {
        super(message);
    }
}
