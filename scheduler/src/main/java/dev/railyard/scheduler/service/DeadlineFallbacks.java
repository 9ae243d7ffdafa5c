package dev.railyard.scheduler.service;

import dev.railyard.scheduler.protocol.AllocationVerdict;
import dev.railyard.scheduler.protocol.BindDecision;
import dev.railyard.scheduler.protocol.ExtenderPod;
import dev.railyard.scheduler.protocol.GangJob;
import dev.railyard.scheduler.protocol.GangReadiness;
import dev.railyard.scheduler.protocol.GangVerdict;
import dev.railyard.scheduler.protocol.NeutralPlacementDecisions;
import dev.railyard.scheduler.engine.NodeScore;
import dev.railyard.scheduler.engine.NodeVerdict;
import dev.railyard.scheduler.protocol.PlacementDecisions;
import dev.railyard.scheduler.protocol.PodRef;

import java.time.Duration;
import java.util.List;
import java.util.Map;

/**
 * What a deciding verb answers when it overruns its deadline ({@link DeadlineVerbs}), as a {@link PlacementDecisions}
 * the protocol adapters answer through: neutral where a no would wedge scheduling (every node passes with the neutral
 * score, gang admission abstains, gangs are ready), refusing where a wrong yes can lose data ({@code allocateFunc}
 * vetoes, {@code bind} refuses: the scheduler tries again). Stateless and thread-safe.
 */
public final class DeadlineFallbacks implements PlacementDecisions {
    private final NeutralPlacementDecisions neutral;
    private final String why;

    /**
     * @param neutralScore the neutral score, 0..100
     * @param deadline     the deadline, named in the reasons
     */
    public DeadlineFallbacks(int neutralScore, Duration deadline) {
        this.why = "Railyard gave no answer within its " + deadline.toMillis() + " ms deadline";
        this.neutral = new NeutralPlacementDecisions(neutralScore, why);
    }

    /** @return what the verb's fallback does, in words, for the log */
    static String describe(String verb) {
        return switch (verb) {
            case "allocateFunc" -> "vetoed";
            case "bind" -> "refused; the scheduler retries";
            case "deallocateFunc" -> "acknowledged";
            default -> "neutral";
        };
    }

    /** @return the one line the refusing fallbacks give */
    public String why() {
        return why;
    }

    @Override
    public List<NodeVerdict> filter(ExtenderPod pod, List<String> nodeNames) {
        return neutral.filter(pod, nodeNames);
    }

    @Override
    public List<NodeScore> score(ExtenderPod pod, List<String> nodeNames) {
        return neutral.score(pod, nodeNames);
    }

    @Override
    public GangVerdict enqueueable(GangJob job) {
        return neutral.enqueueable(job);
    }

    @Override
    public GangReadiness jobReady(GangJob job) {
        return neutral.jobReady(job);
    }

    @Override
    public AllocationVerdict allocated(ExtenderPod pod, String nodeName) {
        return AllocationVerdict.veto(why + ", so the allocation of " + pod + " to " + nodeName
                + " is vetoed (its addresses were not confirmed held)");
    }

    @Override
    public void deallocated(ExtenderPod pod, String nodeName) {
        // the overrunning call releases on its own
    }

    @Override
    public Map<String, String> bindHints(PodRef pod, String nodeName) {
        return Map.of();
    }

    @Override
    public BindDecision admitBind(PodRef pod, String nodeName) {
        return BindDecision.refuse("deadline", why + ": bind of " + pod + " to " + nodeName
                + " not confirmed; the scheduler retries");
    }
}
