package dev.railyard.scheduler.service;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import dev.railyard.api.volcano.PodGroup;
import dev.railyard.scheduler.cluster.WatchedKind;
import dev.railyard.scheduler.engine.UnknownHintKeys;
import dev.railyard.scheduler.protocol.PodRef;

import java.time.Duration;
import java.util.List;
import java.util.Map;

/**
 * {@code RailyardUnknownAnnotation} Warning Events for annotation keys under {@code railyard.dev/} that Railyard does
 * not know ({@code railyard.dev/rail-alignmnet}), with the closest known key: the warnings {@code explain} shows
 * ({@link UnknownHintKeys}), said once per pod (on the pod) and once per gang (on its PodGroup), the first time a
 * scheduler asks about them. "Once" is per replica and per day: a restarted Railyard, or a new leader, says it again.
 * Each object's annotations are read once, so the check costs a cache look-up per call. Thread-safe.
 */
final class AnnotationKeyWarnings {
    private final EventSink sink;
    /** Objects already looked at: pod UID (or key), PodGroup convention and key. */
    private final Cache<String, Boolean> seen = Caffeine.newBuilder().expireAfterWrite(Duration.ofDays(1))
            .maximumSize(200_000).build();

    AnnotationKeyWarnings(EventSink sink) {
        this.sink = sink;
    }

    /** Looks at the pod's own annotations, once per pod. */
    void pod(PodRef pod, Map<String, String> annotations) {
        String id = "pod " + (pod.uid().isEmpty() ? pod.namespace() + "/" + pod.name() : pod.uid());
        if (seen.asMap().putIfAbsent(id, Boolean.TRUE) != null) {
            return;
        }
        say(EventSink.InvolvedObject.pod(pod.namespace(), pod.name(), pod.uid()),
                UnknownHintKeys.of(annotations, "the pod"));
    }

    /** Looks at the PodGroup's annotations, once per PodGroup. */
    void podGroup(PodGroup group) {
        String id = group.convention() + " " + group.namespace() + "/" + group.name();
        if (seen.asMap().putIfAbsent(id, Boolean.TRUE) != null) {
            return;
        }
        WatchedKind kind = group.convention() == PodGroup.Convention.COSCHEDULING
                ? WatchedKind.COSCHEDULING_POD_GROUP : WatchedKind.POD_GROUP;
        say(new EventSink.InvolvedObject(kind.apiVersion(), "PodGroup", group.namespace(), group.name(), ""),
                UnknownHintKeys.of(group.annotations(), "PodGroup " + group.namespace() + "/" + group.name()));
    }

    private void say(EventSink.InvolvedObject object, List<String> warnings) {
        if (!warnings.isEmpty()) {
            sink.warning(object, SchedulingEvents.UNKNOWN_ANNOTATION, String.join("; ", warnings));
        }
    }
}
