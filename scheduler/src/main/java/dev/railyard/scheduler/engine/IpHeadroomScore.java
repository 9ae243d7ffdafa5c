package dev.railyard.scheduler.engine;

import dev.railyard.scheduler.ipam.PoolStatus;
import dev.railyard.scheduler.ipam.PoolVerdict;

/**
 * IP pool headroom: {@code 100 · (free − needed) / usable} of the tightest pool the pod draws from on the node
 * (pools without a finite size left out); 100 when no pools are known or the pod attaches no network.
 */
record IpHeadroomScore() implements ScoreTerm {
    @Override
    public Value score(ScoreInput in) {
        if (in.snapshot().pools() == null || in.pod().selections().isEmpty()) {
            return new Value(100, "no pools checked");
        }
        return of(in.snapshot().pools().checkPod(in.pod().networks(), in.pod().key(), in.node()));
    }

    /** @return the term for a pools' verdict already checked (shared by the nodes of one call: NodeAnswers) */
    static Value of(PoolVerdict v) {
        double worst = 1.0;
        String worstPool = null;
        for (PoolStatus s : v.pools()) {
            if (s.usable() <= 0 || s.usable() == Long.MAX_VALUE) {
                continue;
            }
            double f = Math.max(0, s.free() - s.needed()) / (double) s.usable();
            if (f < worst) {
                worst = f;
                worstPool = s.poolName() + " " + s.free() + "/" + s.usable() + " free";
            }
        }
        return new Value((int) Math.round(100 * worst), worstPool == null ? "pools have room" : "tightest "
                + worstPool);
    }
}
