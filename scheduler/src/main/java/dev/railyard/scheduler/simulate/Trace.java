package dev.railyard.scheduler.simulate;

import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import dev.railyard.api.hints.AffinityPolicy;
import dev.railyard.topology.InputException;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

/**
 * A job trace read from YAML, and the job-mix syntax of generated traces.
 *
 * <p>File format (times in seconds; duration is the run time at an ideal placement):
 * <pre>{@code
 * jobs:
 *   - {name: pretrain, pods: 4, gpus: 8, duration: 3600}          # arrival defaults to the job's position
 *   - {name: tune, pods: 2, gpus: 4, arrival: 5, duration: 600, railAlignment: required,
 *      commShare: 0.4, collective: all-to-all, messageMiB: 64}
 * }</pre>
 */
public final class Trace {
    private static final ObjectMapper YAML = new ObjectMapper(new YAMLFactory())
            .enable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES);

    record JobDoc(String name, Double arrival, Double duration, Integer pods, Integer gpus, String railAlignment,
                  Double commShare, String collective, Double messageMiB) {
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
        try (InputStream in = Files.newInputStream(file)) {
            doc = YAML.readValue(in, Doc.class);
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
                        AffinityPolicy.parse(j.railAlignment(), "railAlignment", AffinityPolicy.PREFERRED),
                        j.commShare() == null ? TraceJob.DEFAULT_COMM_SHARE : j.commShare(),
                        Collective.parse(j.collective()),
                        j.messageMiB() == null ? TraceJob.DEFAULT_MESSAGE_MIB : j.messageMiB()));
            } catch (IllegalArgumentException e) {
                String why = e.getMessage();
                String prefix = "job " + name + ": ";
                throw new InputException(file + ": " + (why.startsWith(prefix) ? why : prefix + why));
            }
        }
        out.sort(Comparator.comparingDouble(TraceJob::arrival));
        return out;
    }

    /** One entry of a job mix: {@code pods x gpus : weight}. */
    record MixEntry(int pods, int gpus, double weight) {
    }

    /**
     * @param mix {@code "1x8:25,4x8:10,2x4:15"}: pods × GPUs per pod, with relative weights (default 1; decimals
     *            allowed)
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
                double w = kw.length > 1 ? Double.parseDouble(kw[1].trim()) : 1;
                MixEntry e = new MixEntry(Integer.parseInt(pg[0].trim()), Integer.parseInt(pg[1].trim()), w);
                if (kw.length > 2 || pg.length != 2 || e.pods() < 1 || e.gpus() < 1 || !(e.weight() > 0)
                        || Double.isInfinite(e.weight())) {
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
}
