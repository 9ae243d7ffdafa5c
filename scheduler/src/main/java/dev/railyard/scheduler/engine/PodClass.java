package dev.railyard.scheduler.engine;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * Pods of one gang that share a shape ({@link PodRequest#sameShape}) and may use the same nodes (equal node
 * affinity): the planner's unit of counting. Pods of one shape split by different node affinities form several
 * classes with one {@link #leader}; rail alignment holds across all classes of a shape.
 */
final class PodClass {
    final PodRequest template;
    final List<Integer> members = new ArrayList<>();
    /** The first class of the same shape (itself, unless node affinities split one shape into classes). */
    int leader;
    /** Pods of this shape over all its classes and the hinted bound members: rail alignment holds across them. */
    int shapeCount;
    /** {@link GangRequest#boundRailSets} for this shape: most used first; empty when none. */
    List<RailVector> fixedVectors = List.of();

    private PodClass(PodRequest template) {
        this.template = template;
    }

    int count() {
        return members.size();
    }

    /**
     * @param gang a gang
     * @return its pods grouped into classes, in order of each class's first pod; each pod index in exactly one class
     */
    static List<PodClass> of(GangRequest gang) {
        List<PodClass> classes = new ArrayList<>();
        for (int i = 0; i < gang.pods().size(); i++) {
            PodRequest p = gang.pods().get(i);
            PodClass hit = null;
            for (PodClass c : classes) {
                // pods that may use different nodes are planned as different classes (their node tables differ)
                if (c.template.sameShape(p) && c.template.nodeAffinity().equals(p.nodeAffinity())) {
                    hit = c;
                    break;
                }
            }
            if (hit == null) {
                hit = new PodClass(p);
                classes.add(hit);
            }
            hit.members.add(i);
        }
        for (int c = 0; c < classes.size(); c++) {
            PodClass pc = classes.get(c);
            pc.leader = c;
            for (int k = 0; k < c; k++) {
                if (classes.get(k).template.sameShape(pc.template)) {
                    pc.leader = k;
                    break;
                }
            }
        }
        for (PodClass pc : classes) {
            pc.countShape(classes, gang);
        }
        return classes;
    }

    private void countShape(List<PodClass> classes, GangRequest gang) {
        shapeCount = 0;
        for (PodClass other : classes) {
            if (other.leader == leader) {
                shapeCount += other.count();
            }
        }
        // bound members of the same shape whose hint names their rails, on the gang's: the class must match them
        Map<RailVector, Integer> used = gang.boundRailSets(template);
        if (!used.isEmpty()) {
            shapeCount += used.values().stream().mapToInt(Integer::intValue).sum();
            fixedVectors = List.copyOf(used.keySet());
        }
    }

    /** @return the class's size and shape in words: {@code "2 pods of shape 4 GPUs on 4 networks"} */
    String describe() {
        return count() + (count() == 1 ? " pod of shape " : " pods of shape ") + shape();
    }

    /** @return the shape in words: {@code "4 GPUs on 4 networks"} */
    String shape() {
        PodRequest p = template;
        return p.gpus() + " GPU" + (p.gpus() == 1 ? "" : "s")
                + (p.selections().isEmpty() ? "" : " on " + p.selections().size() + " network"
                + (p.selections().size() == 1 ? "" : "s"));
    }

    /**
     * @param cap how many pods of the class the usable nodes hold
     * @return the reason the class does not fit
     */
    Reason tooLarge(long cap) {
        return tooLarge(cap, "the usable nodes hold ");
    }

    /**
     * @param fit the most pods of the class the cluster's free GPUs hold ({@link FreeGpuBound})
     * @return the reason the class does not fit, found before any search
     */
    Reason tooFewFreeGpus(long fit) {
        return tooLarge(fit, "the cluster's free GPUs hold at most ");
    }

    private Reason tooLarge(long pods, String held) {
        return new Reason(ReasonCode.GANG_TOO_LARGE, "not enough room for the gang", describe() + " needed, " + held
                + pods);
    }
}
