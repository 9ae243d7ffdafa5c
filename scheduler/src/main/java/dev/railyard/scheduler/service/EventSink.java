package dev.railyard.scheduler.service;

/**
 * Where the service's Kubernetes Events go ({@link SchedulingEvents} writes them to the API server; tests record
 * them). Implementations return at once and may drop or rate-limit; never throw for a bad object.
 */
public interface EventSink {
    /**
     * No node could take the pod in one scheduling attempt (type Warning, reason
     * {@value SchedulingEvents#UNSCHEDULABLE}).
     *
     * @param namespace pod namespace
     * @param name      pod name
     * @param uid       pod UID, or empty
     * @param message   why, one line
     */
    void podUnschedulable(String namespace, String name, String uid, String message);

    /**
     * A Warning Event on any object.
     *
     * @param object  the object it is about
     * @param reason  the Event's reason (CamelCase, {@code RailyardUnknownAnnotation})
     * @param message one line
     */
    void warning(InvolvedObject object, String reason, String message);

    /**
     * The object an Event is about.
     *
     * @param apiVersion {@code v1}, {@code scheduling.volcano.sh/v1beta1}, ...
     * @param kind       {@code Pod}, {@code PodGroup}, ...
     * @param namespace  its namespace
     * @param name       its name
     * @param uid        its UID, or empty when unknown
     */
    record InvolvedObject(String apiVersion, String kind, String namespace, String name, String uid) {
        public InvolvedObject {
            uid = uid == null ? "" : uid;
        }

        /** @return a pod */
        public static InvolvedObject pod(String namespace, String name, String uid) {
            return new InvolvedObject("v1", "Pod", namespace, name, uid);
        }
    }
}
