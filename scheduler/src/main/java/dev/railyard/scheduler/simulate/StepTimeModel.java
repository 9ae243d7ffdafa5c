package dev.railyard.scheduler.simulate;

import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import dev.railyard.api.topology.PcieDistance;
import dev.railyard.topology.InputException;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;

/**
 * Turns a placement into a modelled step time. Constants and their sources are in
 * {@code simulate/step-time-model.yaml} and docs/simulation.md ("Step-time model").
 *
 * <p>A step of a job is {@code (1 − f)} compute plus {@code f} communication at an ideal placement (f = the job's
 * {@link TraceJob#commShare()}). The communication is one collective ({@link Collective}) of
 * {@link TraceJob#messageMiB()} per GPU across the job's pods, run as one ring (or exchange) per local rank; it is
 * as slow as its slowest flow. For P pods, bandwidth b (GB/s) of the slowest flow and L switch layers on the
 * longest path:
 * <ul>
 *   <li>ring all-reduce: {@code 2(P−1)/P · M / b + 2(P−1) · L · latency};</li>
 *   <li>all-to-all: {@code (P−1)/P · M / b + (P−1) · L · latency}.</li>
 * </ul>
 * The ideal placement has b = line rate and L = 1 (every pair under one leaf, on one rail). Slowdown =
 * {@code (1 − f) + f · T(placement) / T(ideal)}; a job of one pod talks over NVLink only: slowdown 1.
 *
 * @param lineRateGBps           NIC line rate per GPU, GB/s (&gt; 0)
 * @param gdrMaxDistance         farthest GPU–NIC class with GPUDirect RDMA
 * @param hostStagedFactor       bandwidth share when staged through host memory, (0, 1]
 * @param farNicFactor           bandwidth share through a NIC beyond the GPU's PCIe switch, (0, 1]
 * @param sharedNicFactor        bandwidth share when two GPUs share a NIC path, (0, 1]
 * @param switchLayerLatencyUs   latency per switch layer crossed, µs (≥ 0)
 * @param pxn                    NCCL PXN on: rail crossings relay over NVLink to the peer's rail
 * @param sameNodePodsUseNetwork pods of a job on one node talk through the NIC (a hairpin through the leaf)
 */
public record StepTimeModel(double lineRateGBps, PcieDistance gdrMaxDistance, double hostStagedFactor,
                            double farNicFactor, double sharedNicFactor, double switchLayerLatencyUs, boolean pxn,
                            boolean sameNodePodsUseNetwork) {
    private static final ObjectMapper YAML = new ObjectMapper(new YAMLFactory())
            .enable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES)
            .enable(DeserializationFeature.FAIL_ON_NULL_FOR_PRIMITIVES)
            .enable(DeserializationFeature.FAIL_ON_MISSING_CREATOR_PROPERTIES);

    public StepTimeModel {
        if (!(lineRateGBps > 0) || gdrMaxDistance == null || !(switchLayerLatencyUs >= 0)) {
            throw new IllegalArgumentException("lineRateGBps must be > 0, gdrMaxDistance set and "
                    + "switchLayerLatencyUs ≥ 0");
        }
        share("hostStagedFactor", hostStagedFactor);
        share("farNicFactor", farNicFactor);
        share("sharedNicFactor", sharedNicFactor);
    }

    private static void share(String key, double v) {
        if (!(v > 0 && v <= 1)) {
            throw new IllegalArgumentException(key + " must be in (0, 1], got " + v);
        }
    }

    /** @return the model in the jar ({@code simulate/step-time-model.yaml}) */
    public static StepTimeModel defaults() {
        try (InputStream in = StepTimeModel.class.getResourceAsStream("/simulate/step-time-model.yaml")) {
            return YAML.readValue(in, StepTimeModel.class);
        } catch (IOException e) {
            throw new IllegalStateException("simulate/step-time-model.yaml missing from the jar", e);
        }
    }

    /**
     * @param file a model file with every key of the default one
     * @return the model
     * @throws InputException naming the file and the key or line when it is missing or malformed
     */
    public static StepTimeModel read(Path file) {
        try (InputStream in = Files.newInputStream(file)) {
            StepTimeModel m = YAML.readValue(in, StepTimeModel.class);
            if (m == null) {
                throw new InputException(file + ": empty model file");
            }
            return m;
        } catch (NoSuchFileException e) {
            throw new InputException(file + ": no such file");
        } catch (IOException e) {
            Throwable c = e.getCause();
            if (c instanceof IllegalArgumentException iae) {
                throw new InputException(file + ": " + iae.getMessage());
            }
            throw InputException.reading(file.toString(), e);
        }
    }

    /**
     * Per-GPU network bandwidth.
     *
     * @param distance GPU–NIC distance class
     * @param sharers  GPUs of the job sending through the same NIC (≥ 1)
     * @return GB/s
     */
    public double gpuBandwidth(PcieDistance distance, int sharers) {
        return lineRateGBps * distanceFactor(distance) * sharingFactor(sharers);
    }

    /**
     * @return 1 up to PXB; beyond PXB {@link #farNicFactor} with GPUDirect forced there, else
     * {@link #hostStagedFactor} (× {@link #farNicFactor} at SYS, whose NIC is across the socket)
     */
    public double distanceFactor(PcieDistance d) {
        if (d.isAtMost(PcieDistance.PXB)) {
            return 1.0;
        }
        if (d.isAtMost(gdrMaxDistance)) {
            return farNicFactor;
        }
        return d == PcieDistance.SYS ? hostStagedFactor * farNicFactor : hostStagedFactor;
    }

    /** @return 1 for a NIC of its own; else the smaller of {@link #sharedNicFactor} and 1/sharers */
    public double sharingFactor(int sharers) {
        return sharers <= 1 ? 1.0 : Math.min(sharedNicFactor, 1.0 / sharers);
    }

    /**
     * @param commonTier lowest fabric tier the two ends share on the rail used (0 = same node)
     * @param maxTier    the fabric's top tier
     * @return switch layers crossed: {@code 2t − 1}; a same-node hairpin crosses the leaf (1)
     */
    public static int layers(int commonTier) {
        return commonTier <= 0 ? 1 : 2 * commonTier - 1;
    }

    /**
     * @param c          collective
     * @param pods       pods in it (≥ 2)
     * @param messageMiB MiB per GPU
     * @param gbps       bandwidth of the slowest flow, GB/s
     * @param layers     switch layers of the longest path
     * @return seconds
     */
    public double collectiveSeconds(Collective c, int pods, double messageMiB, double gbps, int layers) {
        double bytes = messageMiB * 1024 * 1024;
        int steps = c == Collective.RING_ALL_REDUCE ? 2 * (pods - 1) : pods - 1;
        double volume = (double) steps / pods * bytes;
        return volume / (gbps * 1e9) + steps * layers * switchLayerLatencyUs * 1e-6;
    }

    /**
     * @param job       the job
     * @param placement what its placement gives the network ({@link JobPlacement})
     * @return step time / ideal step time, ≥ 1 for any placement the model can express
     */
    public double slowdown(TraceJob job, JobPlacement placement) {
        if (!placement.usesNetwork() || job.commShare() == 0) {
            return 1.0;
        }
        double ideal = collectiveSeconds(job.collective(), job.pods(), job.messageMiB(), lineRateGBps, 1);
        double actual = collectiveSeconds(job.collective(), job.pods(), job.messageMiB(),
                placement.bottleneckGBps(), placement.maxLayers());
        return (1 - job.commShare()) + job.commShare() * actual / ideal;
    }
}
