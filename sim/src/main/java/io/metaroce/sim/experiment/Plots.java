package io.metaroce.sim.experiment;

import io.metaroce.sim.metrics.Series;
import org.jfree.chart.ChartUtils;
import org.jfree.chart.JFreeChart;
import org.jfree.chart.axis.CategoryAxis;
import org.jfree.chart.axis.LogarithmicAxis;
import org.jfree.chart.axis.NumberAxis;
import org.jfree.chart.plot.CategoryPlot;
import org.jfree.chart.plot.IntervalMarker;
import org.jfree.chart.plot.XYPlot;
import org.jfree.chart.title.TextTitle;
import org.jfree.chart.ui.Layer;
import org.jfree.chart.ui.RectangleAnchor;
import org.jfree.chart.ui.TextAnchor;
import org.jfree.chart.renderer.category.BarRenderer;
import org.jfree.chart.renderer.category.StandardBarPainter;
import org.jfree.chart.renderer.xy.XYLineAndShapeRenderer;
import org.jfree.data.category.DefaultCategoryDataset;
import org.jfree.data.xy.XYSeries;
import org.jfree.data.xy.XYSeriesCollection;

import java.awt.BasicStroke;
import java.awt.Color;
import java.awt.Graphics2D;
import java.awt.geom.Rectangle2D;
import java.awt.image.BufferedImage;
import java.io.IOException;
import java.io.Writer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/** CSV files and PNG charts (JFreeChart, headless) of {@link Series}: line charts, and grids of line or bar charts. */
public final class Plots {
    private static final Color[] PALETTE = {
        new Color(0x1f77b4), new Color(0xd62728), new Color(0x2ca02c), new Color(0xff7f0e), new Color(0x9467bd),
        new Color(0x8c564b), new Color(0xe377c2), new Color(0x7f7f7f), new Color(0xbcbd22), new Color(0x17becf)
    };

    private Plots() {
    }

    /** Writes {@code s} as CSV: a header of x label then column names, one row per x. */
    public static void csv(Series s, Path file) throws IOException {
        try (Writer w = Files.newBufferedWriter(file)) {
            w.write(csvCell(s.xLabel()));
            for (String c : s.columns()) {
                w.write(',');
                w.write(csvCell(c));
            }
            w.write('\n');
            for (int i = 0; i < s.x().length; i++) {
                w.write(number(s.x()[i]));
                for (int c = 0; c < s.columns().size(); c++) {
                    w.write(',');
                    w.write(i < s.y()[c].length ? number(s.y()[c][i]) : "");
                }
                w.write('\n');
            }
        }
    }

    /**
     * Draws {@code s} as a line chart into a PNG; with {@code markers} points are drawn too (sweeps), and with
     * {@code logX} the x axis is logarithmic (non-positive x values are left out).
     */
    public static void png(Series s, Path file, boolean markers, boolean logX) throws IOException {
        png(s, file, markers, logX, null, List.of());
    }

    /**
     * As {@link #png(Series, Path, boolean, boolean)}, with {@code subtitle} (e.g. the experiment and point) under
     * the title and the fault {@code windows} shaded and labelled on a time axis in us (series whose x label says
     * otherwise get no shading).
     */
    public static void png(Series s, Path file, boolean markers, boolean logX, String subtitle,
                           List<FaultWindows.Window> windows) throws IOException {
        JFreeChart chart = lineChart(s, markers, logX);
        if (s.xLabel().equals(TIME_US)) {
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
        ChartUtils.saveChartAsPNG(file.toFile(), chart, 960, 540);
    }

    /** The x label of time series, whose fault windows are shaded. */
    static final String TIME_US = "time (us)";
    private static final Color FAULT_SHADE = new Color(0xff, 0x99, 0x99, 0x50);

    private static double xMax(Series s) {
        double m = 0;
        for (double x : s.x()) {
            m = Math.max(m, x);
        }
        return m;
    }

    /**
     * One chart of a grid: {@code series} drawn as lines, or, when {@code categories} is not null, as bars with
     * {@code series.y()[c][i]} the bar of column c in category i.
     */
    public record Cell(Series series, List<String> categories) {
    }

    /**
     * Draws a grid of charts into one PNG, {@code rows.get(r).get(c)} at row r and column c (rows of equal
     * length; a null cell stays blank), each 640 x 400 pixels; lines with markers, on a logarithmic x axis with
     * {@code logX}.
     */
    public static void grid(List<List<Cell>> rows, Path file, boolean logX) throws IOException {
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
        javax.imageio.ImageIO.write(img, "png", file.toFile());
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
        plot.setRangeGridlinePaint(new Color(0xdddddd));
        JFreeChart chart = new JFreeChart(s.title(), JFreeChart.DEFAULT_TITLE_FONT, plot, s.columns().size() > 1);
        chart.setBackgroundPaint(Color.WHITE);
        return chart;
    }

    private static JFreeChart lineChart(Series s, boolean markers, boolean logX) {
        System.setProperty("java.awt.headless", "true");
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
        NumberAxis xAxis = logX ? new LogarithmicAxis(s.xLabel()) : new NumberAxis(s.xLabel());
        xAxis.setAutoRangeIncludesZero(false);
        NumberAxis yAxis = new NumberAxis(s.yLabel());
        XYLineAndShapeRenderer r = new XYLineAndShapeRenderer(true, markers);
        for (int c = 0; c < s.columns().size(); c++) {
            r.setSeriesPaint(c, PALETTE[c % PALETTE.length]);
            r.setSeriesStroke(c, new BasicStroke(s.columns().size() > 8 ? 1.0f : 2.0f));
        }
        XYPlot plot = new XYPlot(data, xAxis, yAxis, r);
        plot.setBackgroundPaint(Color.WHITE);
        plot.setDomainGridlinePaint(new Color(0xdddddd));
        plot.setRangeGridlinePaint(new Color(0xdddddd));
        JFreeChart chart = new JFreeChart(s.title(), JFreeChart.DEFAULT_TITLE_FONT, plot,
                s.columns().size() > 1 && s.columns().size() <= 16);
        chart.setBackgroundPaint(Color.WHITE);
        return chart;
    }

    /** Writes a table (header + rows) as CSV. */
    public static void table(List<String> header, List<List<Object>> rows, Path file) throws IOException {
        try (Writer w = Files.newBufferedWriter(file)) {
            w.write(String.join(",", header.stream().map(Plots::csvCell).toList()));
            w.write('\n');
            for (List<Object> row : rows) {
                w.write(String.join(",", row.stream().map(o -> o instanceof Number n
                        ? number(n.doubleValue()) : csvCell(String.valueOf(o))).toList()));
                w.write('\n');
            }
        }
    }

    static String number(double v) {
        if (Double.isNaN(v)) {
            return "";
        }
        if (v == Math.rint(v) && Math.abs(v) < 1e15) {
            return Long.toString((long) v);
        }
        if (Double.isInfinite(v)) {
            return v > 0 ? "inf" : "-inf";
        }
        return new java.math.BigDecimal(v).round(new java.math.MathContext(6)).stripTrailingZeros().toPlainString();
    }

    /** {@code v} to 4 significant digits, trailing zeros dropped (for tables people read). */
    static String brief(double v) {
        if (Double.isNaN(v) || Double.isInfinite(v) || (v == Math.rint(v) && Math.abs(v) < 1e15)) {
            return number(v);
        }
        return new java.math.BigDecimal(v).round(new java.math.MathContext(4)).stripTrailingZeros().toPlainString();
    }

    private static String csvCell(String s) {
        return s.contains(",") || s.contains("\"") ? '"' + s.replace("\"", "\"\"") + '"' : s;
    }
}
