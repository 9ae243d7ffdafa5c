package dev.railyard.scheduler.engine;

import java.util.ArrayList;
import java.util.List;
import java.util.function.ToIntFunction;

/**
 * The per-pod Score: every term of {@link #TERMS}, in that order, and their mean weighted by {@link ScoreWeights},
 * rounded to an integer 0–100.
 */
final class WeightedScore {
    /**
     * One term with its name in the breakdown ({@link NodeScore.Term#name()}) and its weight.
     *
     * @param name   the term's name
     * @param weight its weight among the {@link ScoreWeights}
     * @param term   the scorer
     */
    record Entry(String name, ToIntFunction<ScoreWeights> weight, ScoreTerm term) {
    }

    /** The terms, in breakdown order. */
    static final List<Entry> TERMS = List.of(
            new Entry("pairing", ScoreWeights::pairing, new PairingScore()),
            new Entry("proximity", ScoreWeights::proximity, new ProximityScore()),
            new Entry("rail", ScoreWeights::rail, new RailScore()),
            new Entry("fragmentation", ScoreWeights::fragmentation, new FragmentationScore()),
            new Entry("ipHeadroom", ScoreWeights::ipHeadroom, new IpHeadroomScore()));

    private WeightedScore() {
    }

    /** @return the node's score with one breakdown term per entry of {@link #TERMS} */
    static NodeScore of(ScoreInput in, ScoreWeights weights) {
        List<NodeScore.Term> terms = new ArrayList<>();
        double num = 0;
        double den = 0;
        for (Entry e : TERMS) {
            ScoreTerm.Value v = e.term().score(in);
            int w = e.weight().applyAsInt(weights);
            terms.add(new NodeScore.Term(e.name(), v.value(), w, v.why()));
            num += (double) v.value() * w;
            den += w;
        }
        return new NodeScore(in.node(), Math.max(0, Math.min(100, (int) Math.round(num / den))), terms);
    }
}
