/**
 * The whereabouts IP pool ledger: for every secondary network a pod attaches through multus, how many addresses
 * whereabouts can still hand out, checked for a whole gang before binding.
 *
 * <p>Public surface, for the placement engine and the protocol adapters:
 * <ul>
 *   <li>{@link dev.railyard.scheduler.ipam.AddressPools}: {@code check} (Filter, Volcano {@code jobEnqueueable},
 *       {@code railyard explain}), {@code reserve} (Reserve, atomic), {@code release} (Unreserve, pod deleted),
 *       {@code audit} (stale allocations and inconsistent pools for metrics);</li>
 *   <li>{@link dev.railyard.scheduler.ipam.IpPoolLedger}: the implementation, fed plain data through
 *       {@code update(IpamSnapshot)}; no Kubernetes client;</li>
 *   <li>{@link dev.railyard.scheduler.ipam.PodNetworksRequest} (built once per pod template from its annotations),
 *       {@link dev.railyard.scheduler.ipam.PoolDemand}, {@link dev.railyard.scheduler.ipam.PodPlacement} in;
 *       {@link dev.railyard.scheduler.ipam.PoolVerdict} with a {@link dev.railyard.scheduler.ipam.PoolReason} and a
 *       sentence per network naming the pool and its counts out.</li>
 * </ul>
 * Everything else (IPAM config reading, pool arithmetic, naming, decoding) is package-private machinery that follows
 * upstream whereabouts v0.9.4 and multus-cni source; each class cites the files it follows. A snapshot's counts
 * live in {@code LedgerState}; what one snapshot worked out that the next may reuse while its inputs are the same
 * objects (decoded pools, node slice views, the reservation index) lives in {@code CarriedCounts}
 * (docs/adr/0020-carried-pool-counts.md).
 */
package dev.railyard.scheduler.ipam;
