package dev.railyard.scheduler.protocol;

import dev.railyard.scheduler.engine.NodeScore;
import dev.railyard.scheduler.engine.NodeVerdict;
import dev.railyard.scheduler.engine.Reason;
import dev.railyard.scheduler.engine.ReasonCode;
import dev.railyard.scheduler.engine.Status;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.BiFunction;
import java.util.function.Function;

/** A test port: records what the adapters pass in and answers with whatever the test sets. */
public class RecordingDecisions implements PlacementDecisions {
    public final List<ExtenderPod> pods = new CopyOnWriteArrayList<>();
    public final List<List<String>> nodeLists = new CopyOnWriteArrayList<>();
    public final List<GangJob> jobs = new CopyOnWriteArrayList<>();
    public final List<String> events = new CopyOnWriteArrayList<>();

    public BiFunction<ExtenderPod, String, NodeVerdict> verdict = (p, n) -> NodeVerdict.pass(n);
    public BiFunction<ExtenderPod, String, Integer> score = (p, n) -> 50;
    public Function<GangJob, GangVerdict> enqueue = j -> GangVerdict.permit();
    public Function<GangJob, GangReadiness> ready = j -> GangReadiness.readyToCommit();
    public AllocationVerdict allocation = AllocationVerdict.accept();
    public Map<String, String> hints = Map.of();
    /** The node names the adapters read requests against ({@link #knownNodeNames}). */
    public KnownNames known = KnownNames.NONE;

    @Override
    public KnownNames knownNodeNames() {
        return known;
    }

    /**
     * A verdict whose reason reads {@code text} on the wire, with the code a real reason of that kind gets: a pool
     * exhausted (Unschedulable), an RDMA resource missing (UnschedulableAndUnresolvable), an internal error.
     */
    public static NodeVerdict verdict(String node, Status.Code code, String text) {
        NodeVerdict v = switch (code) {
            case SUCCESS -> NodeVerdict.pass(node);
            case UNSCHEDULABLE -> new NodeVerdict(node, List.of(new Reason(ReasonCode.POOL_EXHAUSTED, text, "")));
            case UNSCHEDULABLE_AND_UNRESOLVABLE -> new NodeVerdict(node,
                    List.of(new Reason(ReasonCode.HCA_RESOURCE_MISSING, text, "")));
            case ERROR -> new NodeVerdict(node, new Status(Status.Code.ERROR,
                    List.of(new Reason(ReasonCode.INTERNAL_ERROR, text, ""))));
        };
        if (v.code() != code) {
            throw new AssertionError("a reason of this kind gives " + v.code() + ", not " + code);
        }
        return v;
    }

    @Override
    public List<NodeVerdict> filter(ExtenderPod pod, List<String> nodeNames) {
        pods.add(pod);
        nodeLists.add(List.copyOf(nodeNames));
        List<NodeVerdict> out = new ArrayList<>();
        for (String n : nodeNames) {
            out.add(verdict.apply(pod, n));
        }
        return out;
    }

    @Override
    public List<NodeScore> score(ExtenderPod pod, List<String> nodeNames) {
        pods.add(pod);
        nodeLists.add(List.copyOf(nodeNames));
        List<NodeScore> out = new ArrayList<>();
        for (String n : nodeNames) {
            out.add(new NodeScore(n, score.apply(pod, n), List.of()));
        }
        return out;
    }

    @Override
    public GangVerdict enqueueable(GangJob job) {
        jobs.add(job);
        return enqueue.apply(job);
    }

    @Override
    public GangReadiness jobReady(GangJob job) {
        jobs.add(job);
        return ready.apply(job);
    }

    @Override
    public AllocationVerdict allocated(ExtenderPod pod, String nodeName) {
        pods.add(pod);
        events.add("allocated " + pod + " " + nodeName);
        return allocation;
    }

    @Override
    public void deallocated(ExtenderPod pod, String nodeName) {
        pods.add(pod);
        events.add("deallocated " + pod + " " + nodeName);
    }

    @Override
    public Map<String, String> bindHints(PodRef pod, String nodeName) {
        events.add("hints " + pod + " " + nodeName);
        return hints;
    }
}
