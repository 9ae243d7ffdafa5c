package dev.railyard.topology.discovery;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * GPU identity lines that often travel with a topology dump: {@code nvidia-smi -L}
 * ({@code GPU 0: NVIDIA H100 80GB HBM3 (UUID: GPU-...)}) and
 * {@code nvidia-smi --query-gpu=index,name,uuid,pci.bus_id --format=csv} (any subset of those columns, header
 * line required). Bus ids are normalized to sysfs form ({@code 00000000:1A:00.0} becomes {@code 0000:1a:00.0}).
 */
final class GpuListing {
    private static final Pattern DASH_L = Pattern.compile("\\s*GPU (\\d+): (.+?) \\(UUID: (GPU-[0-9a-fA-F-]+)\\).*");

    /** What the listing says about one GPU; fields are null when not given. */
    record Identity(String model, String uuid, String pciBusId) {
        Identity merge(Identity other) {
            return new Identity(model != null ? model : other.model, uuid != null ? uuid : other.uuid,
                    pciBusId != null ? pciBusId : other.pciBusId);
        }
    }

    private GpuListing() {
    }

    /**
     * @param lines transcript lines
     * @return identities by GPU index; empty when the transcript has no such lines
     */
    static Map<Integer, Identity> parse(List<String> lines) {
        Map<Integer, Identity> byIndex = new TreeMap<>();
        List<String> csvColumns = null;
        for (String line : lines) {
            Matcher m = line.contains("UUID") ? DASH_L.matcher(line) : null;
            if (m != null && m.matches()) {
                put(byIndex, Integer.parseInt(m.group(1)), new Identity(m.group(2).strip(), m.group(3), null));
                csvColumns = null;
                continue;
            }
            if (csvColumns == null && !line.contains("index")) {
                continue;
            }
            List<String> fields = csv(line);
            if (fields.size() >= 2 && fields.contains("index")
                    && (fields.contains("pci.bus_id") || fields.contains("uuid") || fields.contains("name"))) {
                csvColumns = fields;
                continue;
            }
            if (csvColumns != null) {
                if (fields.size() != csvColumns.size() || !fields.get(csvColumns.indexOf("index")).matches("\\d+")) {
                    csvColumns = null;
                    continue;
                }
                int index = Integer.parseInt(fields.get(csvColumns.indexOf("index")));
                put(byIndex, index, new Identity(column(fields, csvColumns, "name"), column(fields, csvColumns, "uuid"),
                        PciBusId.parse(column(fields, csvColumns, "pci.bus_id")).map(PciBusId::toString)
                                .orElse(null)));
            }
        }
        return byIndex;
    }

    private static void put(Map<Integer, Identity> byIndex, int index, Identity identity) {
        byIndex.merge(index, identity, Identity::merge);
    }

    private static String column(List<String> fields, List<String> columns, String name) {
        int i = columns.indexOf(name);
        return i < 0 ? null : fields.get(i);
    }

    private static List<String> csv(String line) {
        List<String> fields = new ArrayList<>();
        if (line.indexOf(',') < 0) {
            return fields;
        }
        for (String f : line.split(",")) {
            fields.add(f.strip().toLowerCase(Locale.ROOT).startsWith("pci.bus_id") ? "pci.bus_id" : f.strip());
        }
        return fields;
    }
}
