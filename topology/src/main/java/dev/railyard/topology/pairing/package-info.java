/**
 * GPU–HCA pairing: {@link dev.railyard.topology.pairing.RailPairing} pairs every GPU with its nearest rail HCA
 * (rail = HCA index in the node's rail map) and says why the other HCAs are not rails. Its Javadoc states the rules.
 */
package dev.railyard.topology.pairing;
