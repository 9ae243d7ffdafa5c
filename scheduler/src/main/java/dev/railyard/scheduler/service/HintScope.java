package dev.railyard.scheduler.service;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import dev.railyard.scheduler.engine.ClusterSnapshot;
import dev.railyard.scheduler.engine.PodRequest;
import dev.railyard.scheduler.ipam.NetworkSelection;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Duration;

/**
 * Which pods get binding hints: those in Railyard's scope, that ask for GPUs and either request an RDMA resource
 * ({@code nvidia.com/mlx5_0}, {@code rdma/...}) or attach a network Railyard manages (one of the snapshot's
 * secondary networks, whose pools it keeps). A GPU pod without either talks NCCL over whatever it has; a hint naming
 * eight HCAs it cannot open (and an {@code NCCL_IB_HCA} list) would steer it wrong. Such pods get no hints, on any
 * path (the bind verb, the webhook, the backfill and its sweep), and the log says so once per pod. Thread-safe.
 */
final class HintScope {
    private static final Logger LOG = LoggerFactory.getLogger(HintScope.class);

    /** Pods already logged as out of scope (pod key), so the log says it once. */
    private final Cache<String, Boolean> announced = Caffeine.newBuilder().expireAfterWrite(Duration.ofMinutes(30))
            .maximumSize(10_000).build();

    /**
     * @return true when the pod asks for GPUs and for an RDMA resource or a managed network
     */
    static boolean covers(ClusterSnapshot snapshot, PodRequest pod) {
        if (pod.gpus() <= 0) {
            return false;
        }
        if (!pod.rdmaResources().isEmpty()) {
            return true;
        }
        for (NetworkSelection s : pod.selections()) {
            if (snapshot.network(s.key()) != null) {
                return true;
            }
        }
        return false;
    }

    /** As {@link #covers}, logging once per pod when it is not covered. */
    boolean coversOrSays(ClusterSnapshot snapshot, PodRequest pod) {
        if (covers(snapshot, pod)) {
            return true;
        }
        if (announced.asMap().putIfAbsent(pod.key(), Boolean.TRUE) == null) {
            LOG.info("no hints for {}: outside Railyard's scope ({} GPUs, no RDMA resource, no network Railyard "
                    + "manages)", pod.key(), pod.gpus());
        }
        return false;
    }
}
