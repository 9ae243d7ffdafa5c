package dev.railyard.scheduler.protocol;

/**
 * Volcano's identity for a pod as a task of a job (TaskInfo keys {@code Job}, {@code TaskRole}, {@code Status},
 * {@code NodeName}; volcano-sh/volcano pkg/scheduler/api/job_info.go). Absent for kube-scheduler requests.
 *
 * @param jobId    TaskInfo {@code Job}: {@code "<namespace>/<podgroup-name>"}, empty for a pod without a PodGroup
 * @param taskRole TaskInfo {@code TaskRole}: the {@code volcano.sh/task-spec} value, possibly empty
 * @param status   TaskInfo {@code Status} bitmask: 1 Pending, 2 Allocated, 4 Pipelined, 8 Binding, 16 Bound,
 *                 32 Running (pkg/scheduler/api/types.go); 0 when absent
 * @param nodeName TaskInfo {@code NodeName}: empty for a pending task, else the assigned or candidate node
 */
public record VolcanoTask(String jobId, String taskRole, int status, String nodeName) {
    /** TaskStatus Allocated (a tentative in-session allocation). */
    public static final int ALLOCATED = 2;
    /** TaskStatus Pipelined (allocated against resources being released). */
    public static final int PIPELINED = 4;

    public VolcanoTask {
        jobId = jobId == null ? "" : jobId;
        taskRole = taskRole == null ? "" : taskRole;
        nodeName = nodeName == null ? "" : nodeName;
    }
}
