package dev.railyard.scheduler.service;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/** An {@link EventSink} that keeps every Event as {@code "<kind> <namespace>/<name> <reason>: <message>"}. */
final class RecordingEventSink implements EventSink {
    final List<String> events = new CopyOnWriteArrayList<>();

    @Override
    public void podUnschedulable(String namespace, String name, String uid, String message) {
        warning(InvolvedObject.pod(namespace, name, uid), SchedulingEvents.UNSCHEDULABLE, message);
    }

    @Override
    public void warning(InvolvedObject object, String reason, String message) {
        events.add(object.kind() + " " + object.namespace() + "/" + object.name() + " " + reason + ": " + message);
    }

    /** @return the Events with this reason */
    List<String> withReason(String reason) {
        return events.stream().filter(e -> e.contains(" " + reason + ": ")).toList();
    }
}
