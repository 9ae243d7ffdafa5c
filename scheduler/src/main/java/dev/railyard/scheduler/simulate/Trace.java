package dev.railyard.scheduler.simulate;

import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import dev.railyard.api.hints.AffinityPolicy;
import dev.railyard.topology.InputException;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Random;

/**
 * A job trace: read from YAML or generated from a job-size mix.
 *
 * <p>File format:
 * <pre>{@code
 * jobs:
 *   - {name: pretrain, pods: 4, gpus: 8, duration: 300}            # arrival defaults to the job's position
 *   - {name: tune, pods: 2, gpus: 4, arrival: 5, duration: 40, railAlignment: required}
 * }</pre>
 */
public final class Trace {
    private static final ObjectMapper YAML = new ObjectMapper(new YAMLFactory())
            .enable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES);

    record JobDoc(String name, Integer arrival, Integer duration, Integer pods, Integer gpus, String railAlignment) {
    }

    record Doc(List<JobDoc> jobs) {
    }

    private Trace() {
    }

    /**
     * @param file the YAML trace
     * @return jobs sorted by arrival (stable)
     * @throws InputException naming the file, and the job or line, when it is malformed
     */
    public static List<TraceJob> read(Path file) {
        Doc doc;
        try {
            doc = YAML.readValue(Files.newInputStream(file), Doc.class);
        } catch (NoSuchFileException e) {
            throw new InputException(file + ": no such file");
        } catch (IOException e) {
            // Jackson's exceptions included: key, line and column in words, no Java type names
            throw InputException.reading(file.toString(), e);
        }
        if (doc == null || doc.jobs() == null || doc.jobs().isEmpty()) {
            throw new InputException(file + ": no jobs (key 'jobs' is required)");
        }
        List<TraceJob> out = new ArrayList<>();
        for (int i = 0; i < doc.jobs().size(); i++) {
            JobDoc j = doc.jobs().get(i);
            String name = j.name() == null ? "job-" + i : j.name();
            if (j.pods() == null || j.gpus() == null || j.duration() == null) {
                throw new InputException(file + ": job " + name + ": pods, gpus and duration are required");
            }
            try {
                out.add(new TraceJob(name, j.arrival() == null ? i : j.arrival(), j.duration(), j.pods(), j.gpus(),
                        AffinityPolicy.parse(j.railAlignment(), "railAlignment", AffinityPolicy.PREFERRED)));
            } catch (IllegalArgumentException e) {
                throw new InputException(file + ": job " + name + ": " + e.getMessage());
            }
        }
        out.sort(Comparator.comparingInt(TraceJob::arrival));
        return out;
    }

    /** One entry of a job mix: {@code pods x gpus : weight}. */
    record MixEntry(int pods, int gpus, int weight) {
    }

    /**
     * @param mix {@code "1x8:25,4x8:10,2x4:15"}: pods × GPUs per pod, with relative weights
     * @throws IllegalArgumentException naming the entry when it is malformed
     */
    static List<MixEntry> parseMix(String mix) {
        List<MixEntry> out = new ArrayList<>();
        for (String part : mix.split(",")) {
            String p = part.trim();
            if (p.isEmpty()) {
                continue;
            }
            try {
                String[] kw = p.split(":");
                String[] pg = kw[0].split("x");
                int w = kw.length > 1 ? Integer.parseInt(kw[1].trim()) : 1;
                MixEntry e = new MixEntry(Integer.parseInt(pg[0].trim()), Integer.parseInt(pg[1].trim()), w);
                if (kw.length > 2 || pg.length != 2 || e.pods() < 1 || e.gpus() < 1 || e.weight() < 1) {
                    throw new NumberFormatException();
                }
                out.add(e);
            } catch (NumberFormatException | ArrayIndexOutOfBoundsException e) {
                throw new IllegalArgumentException("job mix entry '" + p + "' is not PODSxGPUS[:WEIGHT] with "
                        + "positive numbers");
            }
        }
        if (out.isEmpty()) {
            throw new IllegalArgumentException("empty job mix");
        }
        return out;
    }

    /**
     * Generates a trace: one job per step, shapes drawn from the mix, durations uniform in [0.5, 1.5] × the mean
     * that keeps about {@code load} of the cluster's GPUs busy in steady state.
     *
     * @param mix       job mix ({@link #parseMix})
     * @param jobs      number of jobs
     * @param totalGpus GPUs in the cluster
     * @param load      target busy share, (0, 1]
     * @param seed      random seed
     */
    public static List<TraceJob> generate(String mix, int jobs, long totalGpus, double load, long seed) {
        List<MixEntry> entries = parseMix(mix);
        if (jobs < 1 || load <= 0 || load > 1) {
            throw new IllegalArgumentException("need jobs ≥ 1 and load in (0, 1]");
        }
        int totalWeight = entries.stream().mapToInt(MixEntry::weight).sum();
        double meanGpus = entries.stream().mapToDouble(e -> (double) e.pods() * e.gpus() * e.weight()).sum()
                / totalWeight;
        double meanDuration = Math.max(1, load * totalGpus / meanGpus);
        Random rnd = new Random(seed);
        List<TraceJob> out = new ArrayList<>();
        for (int i = 0; i < jobs; i++) {
            int pick = rnd.nextInt(totalWeight);
            MixEntry e = entries.get(0);
            for (MixEntry x : entries) {
                if (pick < x.weight()) {
                    e = x;
                    break;
                }
                pick -= x.weight();
            }
            int duration = (int) Math.max(1, Math.round(meanDuration * (0.5 + rnd.nextDouble())));
            out.add(new TraceJob(String.format(java.util.Locale.ROOT, "job%04d-%dx%d", i, e.pods(), e.gpus()), i,
                    duration, e.pods(), e.gpus(), AffinityPolicy.PREFERRED));
        }
        return out;
    }
}
