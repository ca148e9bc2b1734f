package io.metaroce.sim.experiment;

import io.metaroce.sim.Series;
import org.jfree.chart.ChartUtils;
import org.jfree.chart.JFreeChart;
import org.jfree.chart.axis.LogarithmicAxis;
import org.jfree.chart.axis.NumberAxis;
import org.jfree.chart.plot.IntervalMarker;
import org.jfree.chart.plot.XYPlot;
import org.jfree.chart.title.TextTitle;
import org.jfree.chart.ui.Layer;
import org.jfree.chart.ui.RectangleAnchor;
import org.jfree.chart.ui.TextAnchor;
import org.jfree.chart.renderer.xy.XYLineAndShapeRenderer;
import org.jfree.data.xy.XYSeries;
import org.jfree.data.xy.XYSeriesCollection;

import java.awt.BasicStroke;
import java.awt.Color;
import java.io.IOException;
import java.io.Writer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/** CSV files and PNG line charts (JFreeChart, headless) of {@link Series}. */
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
        if (s.xLabel().equals(TIME_US)) {
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
        JFreeChart chart = new JFreeChart(s.title(), JFreeChart.DEFAULT_TITLE_FONT, plot,
                s.columns().size() > 1 && s.columns().size() <= 16);
        if (subtitle != null) {
            chart.addSubtitle(new TextTitle(subtitle));
        }
        chart.setBackgroundPaint(Color.WHITE);
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
