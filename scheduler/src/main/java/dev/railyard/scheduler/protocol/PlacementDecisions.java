package dev.railyard.scheduler.protocol;

import dev.railyard.scheduler.engine.NodeScore;
import dev.railyard.scheduler.engine.NodeVerdict;

import java.util.List;
import java.util.Map;

/**
 * The port both protocol adapters call: Railyard's placement decisions in protocol-neutral terms
 * (Filter, Score, gang enqueue and readiness, tentative allocations, bind hints).
 *
 * <p>Contract for implementations:
 * <ul>
 *   <li>Thread-safe: the server calls it from many request threads at once (Volcano sends up to 16 predicate
 *       calls concurrently).</li>
 *   <li>Never blocks scheduling for want of knowledge: an unknown node, a node without topology, a cold cache
 *       all give the neutral answer (pass, neutral score, abstain, ready) marked {@code neutral}.</li>
 *   <li>Never throws for a node or pod it does not know. A runtime exception is a bug; the adapters turn it
 *       into an HTTP 500 and count it.</li>
 *   <li>Fast: Volcano's default extender timeout is 1 s per call (docs/formats/volcano-extender.md §1).</li>
 *   <li>{@link #filter}, {@link #score} and {@link #filterAndHold} never block: the adapters answer them on the HTTP
 *       server's I/O thread ({@code VerbHandler.Threading#IO_THREAD}). They may take short locks on in-memory state
 *       and do milliseconds of CPU work (a gang plan), but make no API server call and wait for no future, latch,
 *       deadline or cache sync (a cold cache answers neutrally at once). The other methods may block.</li>
 * </ul>
 */
public interface PlacementDecisions {

    /**
     * Filter: judges each candidate node for the pod.
     *
     * @param pod       the pod to place
     * @param nodeNames candidate nodes, in the scheduler's order; may be empty
     * @return one verdict per input node, in the input order: its {@link dev.railyard.scheduler.engine.Status} code
     *         goes to the wire as each protocol names it
     */
    List<NodeVerdict> filter(ExtenderPod pod, List<String> nodeNames);

    /**
     * Score: ranks the candidate nodes for the pod on a 0..100 scale (higher is better).
     *
     * @return one score per input node, in the input order
     */
    List<NodeScore> score(ExtenderPod pod, List<String> nodeNames);

    /** Gang admission (Volcano jobEnqueueable): may the whole gang be enqueued now. */
    GangVerdict enqueueable(GangJob job);

    /** Gang readiness (Volcano jobReady): may the session commit the gang's tentative allocations. */
    GangReadiness jobReady(GangJob job);

    /**
     * A tentative allocation happened in the scheduler's session (Volcano allocateFunc): the pod was
     * allocated or pipelined to {@code nodeName}. Later members of the same gang must see it.
     *
     * @return accept, or veto to make the scheduler roll the allocation back
     */
    AllocationVerdict allocated(ExtenderPod pod, String nodeName);

    /** A tentative allocation was undone (Volcano deallocateFunc: discard, rollback, eviction). */
    void deallocated(ExtenderPod pod, String nodeName);

    /**
     * Annotations to put on the pod's Binding when it is bound to {@code nodeName} (binding hints such as
     * the GPU–HCA pairing and rail addresses).
     *
     * @return annotation key to value; empty when Railyard has nothing to add
     */
    Map<String, String> bindHints(PodRef pod, String nodeName);

    /**
     * kube-scheduler {@code bind}, before the Binding is created: checks that Railyard may bind the pod to the node
     * now and takes what the bind needs (the pod's address hold). A refusal goes back to the scheduler as an error,
     * which it retries.
     *
     * @return the annotations for the Binding, or the refusal
     */
    default BindDecision admitBind(PodRef pod, String nodeName) {
        return BindDecision.admit(bindHints(pod, nodeName), null);
    }

    /**
     * The Binding of an admitted bind ended.
     *
     * @param decision what {@link #admitBind} answered
     * @param outcome  whether the Binding was created
     */
    default void bindFinished(PodRef pod, String nodeName, BindDecision decision, BindOutcome outcome) {
    }

    /** How a Binding ended. */
    enum BindOutcome {
        /** The API server created it. */
        BOUND,
        /** The API server refused it, or it could not be sent. */
        FAILED,
        /** No answer within the deadline: it may still land. */
        UNKNOWN
    }

    /**
     * kube-scheduler {@code filter}, as {@link #filter}, and for a pod that passes on some node, a short hold of its
     * addresses, so the next pod's filter sees them taken before this pod's {@code bind} arrives. Volcano's
     * {@code predicate} uses {@link #filter}: its {@code allocateFunc} holds.
     */
    default List<NodeVerdict> filterAndHold(ExtenderPod pod, List<String> nodeNames) {
        return filter(pod, nodeNames);
    }

    /**
     * The cluster's node names as a table the adapters read a request's names against ({@link KnownNames}): a name
     * found there is the cluster's own string. Never blocks, and may lag the cluster: it only spares allocations,
     * never changes a name.
     *
     * @return the names of the cluster as last seen, or {@link KnownNames#NONE} when there is no cluster (then every
     *         name is read as a new string, as before)
     */
    default KnownNames knownNodeNames() {
        return KnownNames.NONE;
    }
}
