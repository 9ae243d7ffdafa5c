package dev.railyard.scheduler.engine;

/** Rail consistency: 100 when the node offers the gang's rail vector (or there is none yet), else 0. */
record RailScore() implements ScoreTerm {
    @Override
    public Value score(ScoreInput in) {
        RailVector vector = in.context().rails();
        return new Value(in.railOk() ? 100 : 0, vector == null ? "no gang rail set yet"
                : in.railOk() ? "offers rail set " + vector : "cannot offer rail set " + vector);
    }
}
