package dev.railyard.scheduler.simulate;

import org.jfree.chart.ChartFactory;
import org.jfree.chart.JFreeChart;
import org.jfree.chart.axis.LogarithmicAxis;
import org.jfree.chart.plot.PlotOrientation;
import org.jfree.chart.plot.XYPlot;
import org.jfree.chart.renderer.xy.XYLineAndShapeRenderer;
import org.jfree.chart.title.TextTitle;
import org.jfree.data.xy.XYSeries;
import org.jfree.data.xy.XYSeriesCollection;
import org.jfree.svg.SVGGraphics2D;

import java.awt.BasicStroke;
import java.awt.Color;
import java.awt.Font;
import java.awt.geom.Rectangle2D;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.function.Function;

/**
 * The picture of a simulation: CDFs of slowdown and of queue wait, and GPU utilisation over time, one line per
 * strategy, drawn by JFreeChart and written as one SVG by JFreeSVG.
 */
public final class ReportChart {
    private static final int WIDTH = 1100;
    private static final int HEIGHT = 420;
    /** Most points drawn per CDF. */
    private static final int CDF_POINTS = 400;
    /** Line colours per column (Railyard first, drawn thicker). */
    private static final Color[] COLOURS = {new Color(0xD62728), new Color(0xFF7F0E), new Color(0x7F7F7F),
        new Color(0x1F77B4), new Color(0x2CA02C), new Color(0x9467BD), new Color(0x8C564B), new Color(0xE377C2)};

    private ReportChart() {
    }

    /**
     * @param title   heading (cluster, workload, load)
     * @param results one per strategy
     * @return the SVG document
     */
    public static String svg(String title, List<StrategyResult> results) {
        System.setProperty("java.awt.headless", "true");
        JFreeChart slow = chart("CDF of modelled slowdown vs ideal placement", "slowdown (×)",
                "share of jobs", cdfs(results, StrategyResult::slowdowns, 1), false);
        JFreeChart wait = chart("CDF of queue wait", "wait (minutes, log scale; 0 drawn at 0.01)",
                "share of jobs", cdfs(results, r -> minutes(r.waits()), 0.01), true);
        XYSeriesCollection util = new XYSeriesCollection();
        for (StrategyResult r : results) {
            XYSeries s = new XYSeries(r.strategy(), false, true);
            for (int i = 0; i < r.utilTimes().length; i++) {
                s.add(r.utilTimes()[i] / 3600, 100 * r.utilSeries()[i]);
            }
            util.addSeries(s);
        }
        JFreeChart utilChart = chart("GPU utilisation over time", "time (hours)", "busy GPUs (%)", util, false);
        SVGGraphics2D g = new SVGGraphics2D(WIDTH, 3 * HEIGHT + 40);
        g.setColor(Color.WHITE);
        g.fillRect(0, 0, WIDTH, 3 * HEIGHT + 40);
        g.setColor(Color.BLACK);
        g.setFont(new Font(Font.SANS_SERIF, Font.BOLD, 16));
        g.drawString(title, 12, 26);
        int y = 40;
        for (JFreeChart c : List.of(slow, wait, utilChart)) {
            c.draw(g, new Rectangle2D.Double(0, y, WIDTH, HEIGHT));
            y += HEIGHT;
        }
        return g.getSVGDocument();
    }

    /** Writes {@link #svg} to a file (UTF-8); creates no directories. */
    public static void write(Path file, String title, List<StrategyResult> results) throws IOException {
        Files.writeString(file, svg(title, results), StandardCharsets.UTF_8);
    }

    private static double[] minutes(double[] seconds) {
        double[] out = new double[seconds.length];
        for (int i = 0; i < out.length; i++) {
            out[i] = seconds[i] / 60;
        }
        return out;
    }

    /** Empirical CDFs, one step per distinct value; values below {@code floor} drawn at {@code floor}. */
    private static XYSeriesCollection cdfs(List<StrategyResult> results, Function<StrategyResult, double[]> values,
                                           double floor) {
        XYSeriesCollection out = new XYSeriesCollection();
        for (StrategyResult r : results) {
            double[] v = values.apply(r).clone();
            java.util.Arrays.sort(v);
            XYSeries s = new XYSeries(r.strategy(), false, true);
            // one point per distinct value, at most CDF_POINTS evenly spaced in rank (a step every 0.25 %)
            int stride = Math.max(1, v.length / CDF_POINTS);
            for (int i = 0; i < v.length; i++) {
                boolean last = i + 1 == v.length;
                if (!last && (v[i + 1] == v[i] || (i + 1) % stride != 0)) {
                    continue;
                }
                s.add(Math.max(floor, v[i]), (i + 1) / (double) v.length);
            }
            out.addSeries(s);
        }
        return out;
    }

    private static JFreeChart chart(String title, String x, String y, XYSeriesCollection data, boolean logX) {
        JFreeChart c = ChartFactory.createXYLineChart(title, x, y, data, PlotOrientation.VERTICAL, true, false, false);
        c.setTitle(new TextTitle(title, new Font(Font.SANS_SERIF, Font.BOLD, 14)));
        c.setBackgroundPaint(Color.WHITE);
        XYPlot plot = c.getXYPlot();
        plot.setBackgroundPaint(Color.WHITE);
        plot.setDomainGridlinePaint(Color.LIGHT_GRAY);
        plot.setRangeGridlinePaint(Color.LIGHT_GRAY);
        if (logX) {
            LogarithmicAxis axis = new LogarithmicAxis(x);
            axis.setAllowNegativesFlag(false);
            axis.setStrictValuesFlag(false);
            plot.setDomainAxis(axis);
        }
        XYLineAndShapeRenderer r = new XYLineAndShapeRenderer(true, false);
        r.setDrawSeriesLineAsPath(true);
        for (int i = 0; i < data.getSeriesCount(); i++) {
            r.setSeriesPaint(i, COLOURS[i % COLOURS.length]);
            boolean railyard = data.getSeriesKey(i).toString().startsWith("railyard");
            r.setSeriesStroke(i, new BasicStroke(railyard ? 3f : 1.5f));
        }
        plot.setRenderer(r);
        return c;
    }
}
