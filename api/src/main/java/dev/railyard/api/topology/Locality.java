package dev.railyard.api.topology;

/**
 * How a node's GPUs were paired with HCAs, or why they could not be: the verdict on what the discovery source can
 * tell about GPU–HCA locality.
 *
 * @param basis  what the pairing rests on
 * @param reason one sentence for people: for {@link Basis#UNDETERMINED} what the source lacks and which source to
 *               use instead; for {@link Basis#NUMA} which GPUs are C2C-attached; null for {@link Basis#PCIE}
 */
public record Locality(Basis basis, String reason) {
    /** The common case: distances from the PCIe tree or the matrix. */
    public static final Locality PCIE = new Locality(Basis.PCIE, null);

    public Locality {
        basis = basis == null ? Basis.PCIE : basis;
    }

    /** What a pairing rests on. */
    public enum Basis {
        /** PCIe distance classes (PIX..SYS) tell the HCAs apart. */
        PCIE,
        /**
         * At least one GPU is attached to its CPU over NVLink-C2C (Grace); it is paired with an HCA on the PCIe root
         * ports of that same CPU (same NUMA node, distance {@link PcieDistance#P2C}).
         */
        NUMA,
        /**
         * The source cannot tell which HCA is near which GPU (every GPU–HCA class equal and far, no NUMA affinity of
         * the HCAs, or a virtual machine's made-up PCIe tree): no pairs are invented.
         */
        UNDETERMINED
    }

    /** @param reason what the source lacks and what to use instead */
    public static Locality undetermined(String reason) {
        return new Locality(Basis.UNDETERMINED, reason);
    }

    /** @return true unless the source cannot tell */
    @com.fasterxml.jackson.annotation.JsonIgnore
    public boolean determined() {
        return basis != Basis.UNDETERMINED;
    }
}
