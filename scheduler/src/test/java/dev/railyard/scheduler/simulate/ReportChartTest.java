package dev.railyard.scheduler.simulate;

import dev.railyard.api.topology.PcieDistance;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

class ReportChartTest {
    private static StrategyResult result(String name, double slow) {
        return new StrategyResult(name, 3, 3, 0, new double[] {0, 60, 600}, new double[] {1, slow, slow}, 100, 90,
                0.5, 0.45, new double[] {0, 3600}, new double[] {0.2, 0.6}, 1, 0, 0,
                Map.of(PcieDistance.PIX, 8L), 3, 1, 2);
    }

    @Test
    void writesSvgOrPngByFileName(@TempDir Path dir) throws Exception {
        List<StrategyResult> rs = List.of(result("railyard", 1.1), result("binpack", 1.6));
        Path svg = dir.resolve("r.svg");
        ReportChart.write(svg, "a title", rs);
        String text = Files.readString(svg);
        // one drawing: the title, three chart titles, a legend entry per strategy in each chart
        assertThat(text).contains("a title").contains("CDF of modelled slowdown vs ideal placement")
                .contains("CDF of queue wait").contains("GPU utilisation over time");
        assertThat(text.split(">railyard<", -1)).hasSize(4);
        Path png = dir.resolve("r.png");
        ReportChart.write(png, "a title", rs);
        byte[] head = Files.readAllBytes(png);
        // the PNG signature: 0x89 'P' 'N' 'G'
        assertThat(head[0] & 0xff).isEqualTo(0x89);
        assertThat(new String(head, 1, 3, java.nio.charset.StandardCharsets.US_ASCII)).isEqualTo("PNG");
    }
}
