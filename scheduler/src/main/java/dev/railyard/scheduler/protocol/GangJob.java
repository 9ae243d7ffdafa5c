package dev.railyard.scheduler.protocol;

import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * A gang as Volcano's JobInfo describes it (volcano-sh/volcano pkg/scheduler/api/job_info.go, keys
 * {@code UID}, {@code PgUID}, {@code Name}, {@code Namespace}, {@code Queue}, {@code MinAvailable},
 * {@code TaskMinAvailable}, {@code Tasks}).
 *
 * @param jobId            JobInfo {@code UID}: {@code "<namespace>/<podgroup-name>"}
 * @param podGroupUid      JobInfo {@code PgUID}, empty when absent
 * @param namespace        JobInfo {@code Namespace}
 * @param podGroupName     JobInfo {@code Name} (the PodGroup's name)
 * @param queue            JobInfo {@code Queue} (queue name), empty when absent
 * @param minAvailable     JobInfo {@code MinAvailable} (PodGroup {@code minMember})
 * @param taskMinAvailable JobInfo {@code TaskMinAvailable}: task role to minimum members
 * @param tasks            JobInfo {@code Tasks}, each with its Volcano task identity; in request order
 */
public record GangJob(String jobId,
                      String podGroupUid,
                      String namespace,
                      String podGroupName,
                      String queue,
                      int minAvailable,
                      Map<String, Integer> taskMinAvailable,
                      List<ExtenderPod> tasks) {
    public GangJob {
        Objects.requireNonNull(jobId, "jobId");
        podGroupUid = podGroupUid == null ? "" : podGroupUid;
        namespace = namespace == null ? "" : namespace;
        podGroupName = podGroupName == null ? "" : podGroupName;
        queue = queue == null ? "" : queue;
        taskMinAvailable = taskMinAvailable == null ? Map.of() : Map.copyOf(taskMinAvailable);
        tasks = tasks == null ? List.of() : List.copyOf(tasks);
    }

    @Override
    public String toString() {
        return dev.railyard.scheduler.input.LogText.escape(jobId);
    }
}
