package dev.railyard.scheduler.protocol;

import dev.railyard.scheduler.engine.NodeScore;
import dev.railyard.scheduler.engine.NodeVerdict;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * The honest answer of a scheduler extender that knows nothing yet: every node passes, every node gets the
 * same neutral score, gang admission abstains, gangs are ready, allocations are accepted, no bind hints.
 * Every verdict is marked {@code neutral} so metrics and logs say that Railyard did not judge.
 *
 * <p>Used while the placement engine is not wired or the cluster cache is cold: an unsure scheduler
 * extender degrades to neutral answers and never blocks scheduling. Stateless and thread-safe.
 */
public final class NeutralPlacementDecisions implements PlacementDecisions {
    private static final Logger LOG = LoggerFactory.getLogger(NeutralPlacementDecisions.class);

    private final int neutralScore;
    private final String why;
    private final AtomicBoolean announced = new AtomicBoolean();

    /**
     * @param neutralScore the score every node gets, 0..100 (the team default is 50)
     * @param why          one line saying why Railyard is neutral, e.g. "placement engine not wired";
     *                     used as the verdicts' reason
     * @throws IllegalArgumentException if the score is outside 0..100 or {@code why} is blank
     */
    public NeutralPlacementDecisions(int neutralScore, String why) {
        if (neutralScore < 0 || neutralScore > NodeScore.MAX) {
            throw new IllegalArgumentException("neutral score must be 0.." + NodeScore.MAX + ", got " + neutralScore);
        }
        if (why == null || why.isBlank()) {
            throw new IllegalArgumentException("say why the decisions are neutral");
        }
        this.neutralScore = neutralScore;
        this.why = why;
    }

    /** The score every node gets. */
    public int neutralScore() {
        return neutralScore;
    }

    private void announceOnce() {
        if (announced.compareAndSet(false, true)) {
            LOG.warn("answering every scheduler call neutrally (all nodes pass, score {}): {}", neutralScore, why);
        }
    }

    @Override
    public List<NodeVerdict> filter(ExtenderPod pod, List<String> nodeNames) {
        announceOnce();
        List<NodeVerdict> out = new ArrayList<>(nodeNames.size());
        for (String n : nodeNames) {
            out.add(NodeVerdict.neutral(n, why));
        }
        return out;
    }

    @Override
    public List<NodeScore> score(ExtenderPod pod, List<String> nodeNames) {
        announceOnce();
        List<NodeScore> out = new ArrayList<>(nodeNames.size());
        for (String n : nodeNames) {
            out.add(NodeScore.neutral(n, neutralScore));
        }
        return out;
    }

    @Override
    public GangVerdict enqueueable(GangJob job) {
        announceOnce();
        return GangVerdict.abstain(why);
    }

    @Override
    public GangReadiness jobReady(GangJob job) {
        announceOnce();
        return new GangReadiness(true, why, true);
    }

    @Override
    public AllocationVerdict allocated(ExtenderPod pod, String nodeName) {
        return AllocationVerdict.accept();
    }

    @Override
    public void deallocated(ExtenderPod pod, String nodeName) {
        // nothing tracked, nothing to undo
    }

    @Override
    public Map<String, String> bindHints(PodRef pod, String nodeName) {
        return Map.of();
    }
}
