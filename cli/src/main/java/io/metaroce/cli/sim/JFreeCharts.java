package io.metaroce.cli.sim;

import io.metaroce.sim.experiment.Charts;
import io.metaroce.sim.experiment.FaultWindows;
import io.metaroce.sim.metrics.Series;
import org.jfree.chart.ChartUtils;
import org.jfree.chart.JFreeChart;
import org.jfree.chart.axis.CategoryAxis;
import org.jfree.chart.axis.LogarithmicAxis;
import org.jfree.chart.axis.NumberAxis;
import org.jfree.chart.plot.CategoryPlot;
import org.jfree.chart.plot.IntervalMarker;
import org.jfree.chart.plot.XYPlot;
import org.jfree.chart.renderer.category.BarRenderer;
import org.jfree.chart.renderer.category.StandardBarPainter;
import org.jfree.chart.renderer.xy.DeviationRenderer;
import org.jfree.chart.renderer.xy.XYLineAndShapeRenderer;
import org.jfree.chart.title.TextTitle;
import org.jfree.chart.ui.Layer;
import org.jfree.chart.ui.RectangleAnchor;
import org.jfree.chart.ui.TextAnchor;
import org.jfree.data.category.DefaultCategoryDataset;
import org.jfree.data.xy.XYSeries;
import org.jfree.data.xy.XYSeriesCollection;
import org.jfree.data.xy.YIntervalSeries;
import org.jfree.data.xy.YIntervalSeriesCollection;

import java.awt.BasicStroke;
import java.awt.Color;
import java.awt.Graphics2D;
import java.awt.geom.Rectangle2D;
import java.awt.image.BufferedImage;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The experiment runner's charts drawn with JFreeChart (headless): line charts of time series and sweeps, grids of
 * line or bar charts.
 *
 * <ul>
 *   <li>Columns that name a fabric plane ({@link Series#plane}: paths, planes, ports and links) are coloured by
 *       their plane, one dash pattern per column within a plane, so the paths of one plane read as one family.</li>
 *   <li>A chart of more than {@value #MAX_LINES} columns (e.g. goodput per flow of 128 flows) is drawn as
 *       min/median/max: the median as a line and the band from the minimum to the maximum shaded, one band per
 *       plane when the columns name planes. The CSV next to the PNG keeps every column.</li>
 *   <li>Fault windows are shaded and labelled on time axes ({@link Series#TIME_US}).</li>
 * </ul>
 */
public final class JFreeCharts implements Charts {
    /** Most columns drawn as lines each; more are drawn as min/median/max bands. */
    static final int MAX_LINES = 16;
    private static final Color[] PALETTE = {
        new Color(0x1f77b4), new Color(0xd62728), new Color(0x2ca02c), new Color(0xff7f0e), new Color(0x9467bd),
        new Color(0x8c564b), new Color(0xe377c2), new Color(0x7f7f7f), new Color(0xbcbd22), new Color(0x17becf)
    };
    private static final float[][] DASHES = {null, {8f, 4f}, {2f, 3f}, {8f, 3f, 2f, 3f}, {14f, 4f}};
    private static final Color FAULT_SHADE = new Color(0xff, 0x99, 0x99, 0x50);
    private static final Color GRID = new Color(0xdddddd);

    /** A chart drawer; it holds no state, so one instance serves every thread. */
    public JFreeCharts() {
    }

    @Override
    public void line(Series s, Path png, boolean markers, boolean logX, String subtitle,
                     List<FaultWindows.Window> windows) throws IOException {
        ChartUtils.saveChartAsPNG(png.toFile(), lineChart(s, markers, logX, subtitle, windows), 960, 540);
    }

    /** The chart {@link #line} draws. */
    static JFreeChart lineChart(Series s, boolean markers, boolean logX, String subtitle,
                                List<FaultWindows.Window> windows) {
        JFreeChart chart = lineChart(s, markers, logX);
        if (s.xLabel().equals(Series.TIME_US)) {
            XYPlot plot = chart.getXYPlot();
            for (FaultWindows.Window w : windows) {
                double to = w.toPs() == Long.MAX_VALUE ? xMax(s) : w.toPs() / 1e6;
                IntervalMarker m = new IntervalMarker(w.fromPs() / 1e6, Math.max(to, w.fromPs() / 1e6),
                        FAULT_SHADE);
                m.setLabel(w.label());
                m.setLabelAnchor(RectangleAnchor.TOP_LEFT);
                m.setLabelTextAnchor(TextAnchor.TOP_LEFT);
                plot.addDomainMarker(m, Layer.BACKGROUND);
            }
        }
        if (subtitle != null) {
            chart.addSubtitle(new TextTitle(subtitle));
        }
        return chart;
    }

    @Override
    public void grid(List<List<Cell>> rows, Path png, boolean logX) throws IOException {
        int w = 640;
        int h = 400;
        int cols = rows.get(0).size();
        BufferedImage img = new BufferedImage(w * cols, h * rows.size(), BufferedImage.TYPE_INT_RGB);
        Graphics2D g = img.createGraphics();
        try {
            g.setColor(Color.WHITE);
            g.fillRect(0, 0, img.getWidth(), img.getHeight());
            for (int r = 0; r < rows.size(); r++) {
                for (int c = 0; c < cols; c++) {
                    Cell cell = rows.get(r).get(c);
                    if (cell == null) {
                        continue;
                    }
                    JFreeChart chart = cell.categories() == null ? lineChart(cell.series(), true, logX)
                            : barChart(cell.series(), cell.categories());
                    chart.getTitle().setFont(chart.getTitle().getFont().deriveFont(13f));
                    chart.draw(g, new Rectangle2D.Double(c * w, r * h, w, h));
                }
            }
        } finally {
            g.dispose();
        }
        javax.imageio.ImageIO.write(img, "png", png.toFile());
    }

    private static double xMax(Series s) {
        double m = 0;
        for (double x : s.x()) {
            m = Math.max(m, x);
        }
        return m;
    }

    private static JFreeChart barChart(Series s, List<String> categories) {
        System.setProperty("java.awt.headless", "true");
        DefaultCategoryDataset data = new DefaultCategoryDataset();
        for (int c = 0; c < s.columns().size(); c++) {
            for (int i = 0; i < categories.size(); i++) {
                double y = s.y()[c][i];
                data.addValue(Double.isNaN(y) ? null : y, s.columns().get(c), categories.get(i));
            }
        }
        BarRenderer r = new BarRenderer();
        r.setBarPainter(new StandardBarPainter());
        r.setShadowVisible(false);
        for (int c = 0; c < s.columns().size(); c++) {
            r.setSeriesPaint(c, PALETTE[c % PALETTE.length]);
        }
        CategoryPlot plot = new CategoryPlot(data, new CategoryAxis(s.xLabel()), new NumberAxis(s.yLabel()), r);
        plot.setBackgroundPaint(Color.WHITE);
        plot.setRangeGridlinePaint(GRID);
        JFreeChart chart = new JFreeChart(s.title(), JFreeChart.DEFAULT_TITLE_FONT, plot, s.columns().size() > 1);
        chart.setBackgroundPaint(Color.WHITE);
        return chart;
    }

    private static JFreeChart lineChart(Series s, boolean markers, boolean logX) {
        System.setProperty("java.awt.headless", "true");
        NumberAxis xAxis = logX ? new LogarithmicAxis(s.xLabel()) : new NumberAxis(s.xLabel());
        xAxis.setAutoRangeIncludesZero(false);
        NumberAxis yAxis = new NumberAxis(s.yLabel());
        boolean banded = s.columns().size() > MAX_LINES;
        XYPlot plot = banded ? bands(s, logX, xAxis, yAxis) : lines(s, markers, logX, xAxis, yAxis);
        plot.setBackgroundPaint(Color.WHITE);
        plot.setDomainGridlinePaint(GRID);
        plot.setRangeGridlinePaint(GRID);
        JFreeChart chart = new JFreeChart(s.title(), JFreeChart.DEFAULT_TITLE_FONT, plot,
                banded || plot.getDataset().getSeriesCount() > 1);
        chart.setBackgroundPaint(Color.WHITE);
        return chart;
    }

    /** One line per column; columns that name a plane in the plane's colour, a dash pattern each within it. */
    private static XYPlot lines(Series s, boolean markers, boolean logX, NumberAxis xAxis, NumberAxis yAxis) {
        XYSeriesCollection data = new XYSeriesCollection();
        for (int c = 0; c < s.columns().size(); c++) {
            XYSeries xs = new XYSeries(s.columns().get(c), false, true);
            for (int i = 0; i < s.x().length && i < s.y()[c].length; i++) {
                double y = s.y()[c][i];
                if (!Double.isNaN(y) && !(logX && s.x()[i] <= 0)) {
                    xs.add(s.x()[i], y);
                }
            }
            data.addSeries(xs);
        }
        XYLineAndShapeRenderer r = new XYLineAndShapeRenderer(true, markers);
        float width = s.columns().size() > 8 ? 1.0f : 2.0f;
        Map<Integer, Integer> seenInPlane = new LinkedHashMap<>();
        for (int c = 0; c < s.columns().size(); c++) {
            int plane = s.plane(c);
            if (plane < 0) {
                r.setSeriesPaint(c, PALETTE[c % PALETTE.length]);
                r.setSeriesStroke(c, new BasicStroke(width));
            } else {
                int k = seenInPlane.merge(plane, 1, Integer::sum) - 1;
                r.setSeriesPaint(c, PALETTE[plane % PALETTE.length]);
                float[] dash = DASHES[k % DASHES.length];
                r.setSeriesStroke(c, dash == null ? new BasicStroke(width)
                        : new BasicStroke(width, BasicStroke.CAP_BUTT, BasicStroke.JOIN_MITER, 10f, dash, 0f));
            }
        }
        return new XYPlot(data, xAxis, yAxis, r);
    }

    /**
     * Min/median/max over the columns at every x: the median a line, min to max a shaded band; one band per plane
     * when the columns name planes (columns without one form their own group).
     */
    private static XYPlot bands(Series s, boolean logX, NumberAxis xAxis, NumberAxis yAxis) {
        Map<Integer, List<Integer>> groups = new LinkedHashMap<>();
        for (int c = 0; c < s.columns().size(); c++) {
            groups.computeIfAbsent(s.plane(c), k -> new ArrayList<>()).add(c);
        }
        boolean byPlane = groups.size() > 1 || !groups.containsKey(-1);
        YIntervalSeriesCollection data = new YIntervalSeriesCollection();
        DeviationRenderer r = new DeviationRenderer(true, false);
        int n = 0;
        for (Map.Entry<Integer, List<Integer>> g : groups.entrySet()) {
            List<Integer> cols = g.getValue();
            String what = byPlane && g.getKey() >= 0 ? "plane " + g.getKey() + ": " : "";
            YIntervalSeries band = new YIntervalSeries(what + "median of " + cols.size() + " " + noun(s)
                    + " (band: min to max)");
            double[] v = new double[cols.size()];
            for (int i = 0; i < s.x().length; i++) {
                int m = 0;
                for (int c : cols) {
                    if (i < s.y()[c].length && !Double.isNaN(s.y()[c][i])) {
                        v[m++] = s.y()[c][i];
                    }
                }
                if (m == 0 || (logX && s.x()[i] <= 0)) {
                    continue;
                }
                java.util.Arrays.sort(v, 0, m);
                double median = m % 2 == 1 ? v[m / 2] : (v[m / 2 - 1] + v[m / 2]) / 2;
                band.add(s.x()[i], median, v[0], v[m - 1]);
            }
            data.addSeries(band);
            Color colour = PALETTE[(byPlane && g.getKey() >= 0 ? g.getKey() : n) % PALETTE.length];
            r.setSeriesPaint(n, colour);
            r.setSeriesFillPaint(n, colour);
            r.setSeriesStroke(n, new BasicStroke(2.0f));
            n++;
        }
        r.setAlpha(0.2f);
        return new XYPlot(data, xAxis, yAxis, r);
    }

    /** What the columns of {@code s} are, from its name ({@code goodput_per_flow}: flows), for the band's label. */
    private static String noun(Series s) {
        for (String n : List.of("flow", "sender", "receiver", "path", "port", "link")) {
            if (s.name().contains(n)) {
                return n + "s";
            }
        }
        return s.name().contains("queue") ? "ports" : "columns";
    }
}
