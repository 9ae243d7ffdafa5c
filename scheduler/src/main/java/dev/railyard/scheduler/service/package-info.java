/**
 * The running extender service: the adapter from the protocol port
 * ({@link dev.railyard.scheduler.protocol.PlacementDecisions}) to the pure engine, over the cluster cache and the
 * IP pool ledger. A request flows: protocol adapter parses → one cluster view → engine → adapter answers.
 */
package dev.railyard.scheduler.service;
