package dev.railyard.api.multus;

/**
 * Status of a {@link MacvlanNetwork}.
 *
 * @param state                       {@code notReady}, {@code ready} or {@code error}
 * @param macvlanNetworkAttachmentDef the rendered NetworkAttachmentDefinition, or null
 * @param reason                      why the state is not ready, or null
 */
public record MacvlanNetworkStatus(String state, String macvlanNetworkAttachmentDef, String reason) {
}
