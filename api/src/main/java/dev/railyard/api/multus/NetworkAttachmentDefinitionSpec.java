package dev.railyard.api.multus;

/**
 * Spec of a {@link NetworkAttachmentDefinition}.
 *
 * @param config a CNI network config or conflist as a JSON string; when empty, multus reads the file whose CNI
 *               {@code name} matches from the node's CNI conf dir
 */
public record NetworkAttachmentDefinitionSpec(String config) {
}
