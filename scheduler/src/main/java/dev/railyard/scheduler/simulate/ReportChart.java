package dev.railyard.scheduler.simulate;

import org.jfree.chart.ChartFactory;
import org.jfree.chart.JFreeChart;
import org.jfree.chart.axis.LogarithmicAxis;
import org.jfree.chart.plot.PlotOrientation;
import org.jfree.chart.plot.XYPlot;
import org.jfree.chart.renderer.xy.XYLineAndShapeRenderer;
import org.jfree.chart.renderer.xy.XYStepRenderer;
import org.jfree.chart.title.TextTitle;
import org.jfree.data.xy.XYSeries;
import org.jfree.data.xy.XYSeriesCollection;
import org.jfree.svg.SVGGraphics2D;

import java.awt.BasicStroke;
import java.awt.Color;
import java.awt.Font;
import java.awt.Graphics2D;
import java.awt.RenderingHints;
import java.awt.image.BufferedImage;
import java.awt.geom.Rectangle2D;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.function.Function;
import javax.imageio.ImageIO;

/**
 * The picture of a simulation: CDFs of slowdown and of queue wait, and GPU utilisation over time, one line per
 * strategy, drawn by JFreeChart and written as one SVG by JFreeSVG (or as a PNG by the JDK's ImageIO).
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
        SVGGraphics2D g = new SVGGraphics2D(WIDTH, 3 * HEIGHT + 40);
        draw(g, title, results);
        return g.getSVGDocument();
    }

    /** Draws the title and the three charts, one under the other, on a canvas of WIDTH × (3 × HEIGHT + 40). */
    private static void draw(Graphics2D g, String title, List<StrategyResult> results) {
        System.setProperty("java.awt.headless", "true");
        JFreeChart slow = chart("CDF of modelled slowdown vs ideal placement", "slowdown (×)",
                "share of jobs", cdfs(results, StrategyResult::slowdowns, 1), false, true);
        JFreeChart wait = chart("CDF of queue wait", "wait (minutes, log scale; 0 drawn at 0.01)",
                "share of jobs", cdfs(results, r -> minutes(r.waits()), 0.01), true, true);
        XYSeriesCollection util = new XYSeriesCollection();
        for (StrategyResult r : results) {
            XYSeries s = new XYSeries(r.strategy(), false, true);
            for (int i = 0; i < r.utilTimes().length; i++) {
                s.add(r.utilTimes()[i] / 3600, 100 * r.utilSeries()[i]);
            }
            util.addSeries(s);
        }
        JFreeChart utilChart = chart("GPU utilisation over time", "time (hours)", "GPUs held (%)", util, false,
                false);
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
    }

    /**
     * Writes the report: PNG when the file name ends in {@code .png}, else SVG (UTF-8). Creates no directories.
     */
    public static void write(Path file, String title, List<StrategyResult> results) throws IOException {
        if (file.getFileName().toString().toLowerCase(java.util.Locale.ROOT).endsWith(".png")) {
            BufferedImage img = new BufferedImage(WIDTH, 3 * HEIGHT + 40, BufferedImage.TYPE_INT_RGB);
            Graphics2D g = img.createGraphics();
            g.setRenderingHint(RenderingHints.KEY_ANTIALIASING, RenderingHints.VALUE_ANTIALIAS_ON);
            draw(g, title, results);
            g.dispose();
            ImageIO.write(img, "png", file.toFile());
            return;
        }
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

    /** @param steps draw each series as a staircase (an empirical CDF), not as slopes between its points */
    private static JFreeChart chart(String title, String x, String y, XYSeriesCollection data, boolean logX,
                                    boolean steps) {
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
        XYLineAndShapeRenderer r = steps ? new XYStepRenderer() : new XYLineAndShapeRenderer(true, false);
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
