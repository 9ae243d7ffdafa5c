package dev.railyard.scheduler.engine;

/**
 * Fragmentation after the pod takes its GPUs:
 * {@code 50 · (1 − broken groups / groups) + 50 · (1 − GPUs left free / GPUs)}, a locality group (GPUs under one
 * PCIe switch) broken when some but not all of its capable GPUs are free ({@link CostWeights}); 100 on a node
 * without groups.
 */
record FragmentationScore() implements ScoreTerm {
    @Override
    public Value score(ScoreInput in) {
        NodeRailView view = in.view();
        int groups = view.groupCount();
        int broken = view.brokenGroupsAfter(in.choice().positions());
        int total = view.gpuCount();
        int leftover = in.choice().leftover();
        double frag = groups == 0 ? 100 : 50.0 * (1.0 - broken / (double) groups)
                + 50.0 * (total == 0 ? 1.0 : 1.0 - leftover / (double) total);
        return new Value((int) Math.round(frag), broken + " of " + groups
                + (groups == 1 ? " PCIe group" : " PCIe groups") + " partly used after, "
                + leftover + (leftover == 1 ? " GPU" : " GPUs") + " left free");
    }
}
