package dev.railyard.scheduler.explain;

import java.util.List;

/**
 * What to explain.
 *
 * @param command   {@value #JOB}, {@value #POD}, {@value #WHAT_IF} or {@value #POOLS}
 * @param namespace namespace of the job or pod ({@value #JOB}, {@value #POD}), else null
 * @param name      name of the Volcano Job or PodGroup ({@value #JOB}) or pod ({@value #POD}), else null
 * @param jobs      the Volcano Jobs to place, in order ({@value #WHAT_IF}), else empty
 */
public record ExplainRequest(String command, String namespace, String name, List<VolcanoJobTemplate.Job> jobs) {
    /** Explain a Volcano Job or PodGroup that exists. */
    public static final String JOB = "job";
    /** Explain one pod. */
    public static final String POD = "pod";
    /** Where would these not-yet-submitted Volcano Jobs go, placed one after the other. */
    public static final String WHAT_IF = "what-if";
    /** Every network's pool counts. */
    public static final String POOLS = "pools";

    public ExplainRequest {
        jobs = jobs == null ? List.of() : List.copyOf(jobs);
        if (!List.of(JOB, POD, WHAT_IF, POOLS).contains(command)) {
            throw new IllegalArgumentException("unknown explain command " + command);
        }
    }

    /** @return a request for the Volcano Job or PodGroup {@code namespace/name} */
    public static ExplainRequest job(String namespace, String name) {
        return new ExplainRequest(JOB, namespace, name, List.of());
    }

    /** @return a request for the pod {@code namespace/name} */
    public static ExplainRequest pod(String namespace, String name) {
        return new ExplainRequest(POD, namespace, name, List.of());
    }

    /** @return a what-if request for jobs placed in order, each seeing the earlier ones placed */
    public static ExplainRequest whatIf(List<VolcanoJobTemplate.Job> jobs) {
        if (jobs == null || jobs.isEmpty()) {
            throw new IllegalArgumentException("a what-if needs at least one job");
        }
        return new ExplainRequest(WHAT_IF, null, null, jobs);
    }

    /** @return a request for every network's pool counts */
    public static ExplainRequest pools() {
        return new ExplainRequest(POOLS, null, null, List.of());
    }
}
