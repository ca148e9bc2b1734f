package io.metaroce.cli.sim;

import io.metaroce.sim.experiment.Charts;
import io.metaroce.sim.experiment.FaultWindows;
import io.metaroce.sim.metrics.Series;
import org.jfree.chart.JFreeChart;
import org.jfree.chart.plot.XYPlot;
import org.jfree.chart.title.TextTitle;
import org.jfree.chart.ui.Layer;
import org.jfree.data.xy.YIntervalSeriesCollection;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import javax.imageio.ImageIO;
import java.awt.image.BufferedImage;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The charts as drawn: sizes of line charts and grids, fault windows shaded with the experiment and point under the
 * title, paths coloured by plane, and min/median/max bands when a series has many columns.
 */
class JFreeChartsTest {
    private static final double[] X = {100, 200, 300, 400};

    /** A time series whose column c is c + i at row i. */
    private static Series series(List<String> columns) {
        double[][] y = new double[columns.size()][X.length];
        for (int c = 0; c < y.length; c++) {
            for (int i = 0; i < X.length; i++) {
                y[c][i] = c + i;
            }
        }
        return new Series("s", "a title", Series.TIME_US, "Gb/s", columns, X, y);
    }

    @Test
    void aLineChartIs960By540AndAGridIs640By400PerCell(@TempDir Path tmp) throws Exception {
        JFreeCharts charts = new JFreeCharts();
        Series s = series(List.of("a", "b"));
        charts.line(s, tmp.resolve("line.png"), false, false, null, List.of());
        BufferedImage line = ImageIO.read(tmp.resolve("line.png").toFile());
        assertEquals(960, line.getWidth());
        assertEquals(540, line.getHeight());
        Charts.Cell bars = new Charts.Cell(new Series("b", "bars", "kind", "Gb/s", List.of("x"), new double[2],
                new double[][] {{1, 2}}), List.of("bulk", "hotspot"));
        Charts.Cell lines = new Charts.Cell(s, null);
        charts.grid(List.of(List.of(bars, lines), List.of(lines, bars)), tmp.resolve("grid.png"), false);
        BufferedImage grid = ImageIO.read(tmp.resolve("grid.png").toFile());
        assertEquals(1280, grid.getWidth(), "two columns");
        assertEquals(800, grid.getHeight(), "two rows");
    }

    @Test
    void faultWindowsAreShadedAndThePointNamed() {
        List<FaultWindows.Window> w = List.of(new FaultWindows.Window(150_000_000L, 250_000_000L, "plane 1 down"),
                new FaultWindows.Window(350_000_000L, Long.MAX_VALUE, "link p0.leaf0>p0.spine1 down"));
        JFreeChart chart = JFreeCharts.lineChart(series(List.of("a")), false, false, "e3-failover  plane=1", w);
        var markers = chart.getXYPlot().getDomainMarkers(Layer.BACKGROUND);
        assertEquals(2, markers.size());
        assertTrue(chart.getSubtitles().stream().anyMatch(t -> t instanceof TextTitle tt
                && tt.getText().equals("e3-failover  plane=1")));
        // a series on another x axis (a sweep) gets no shading
        Series sweep = new Series("sweep", "t", "linkLoss", "Gb/s", List.of("a"), X, new double[][] {{1, 2, 3, 4}});
        assertEquals(null, JFreeCharts.lineChart(sweep, true, false, null, w).getXYPlot()
                .getDomainMarkers(Layer.BACKGROUND));
    }

    @Test
    void pathsAreColouredByTheirPlane() {
        List<String> cols = List.of("path 0 (plane 0)", "path 1 (plane 1)", "path 2 (plane 0)", "path 3 (plane 1)");
        XYPlot plot = JFreeCharts.lineChart(series(cols), false, false, null, List.of()).getXYPlot();
        var r = plot.getRenderer();
        assertEquals(r.getSeriesPaint(0), r.getSeriesPaint(2), "paths 0 and 2 are both on plane 0");
        assertEquals(r.getSeriesPaint(1), r.getSeriesPaint(3));
        assertNotEquals(r.getSeriesPaint(0), r.getSeriesPaint(1));
        assertNotEquals(r.getSeriesStroke(0), r.getSeriesStroke(2), "paths of one plane differ by dash");
        // columns that name no plane keep a colour each
        XYPlot plain = JFreeCharts.lineChart(series(List.of("a", "b", "c")), false, false, null, List.of())
                .getXYPlot();
        assertNotEquals(plain.getRenderer().getSeriesPaint(0), plain.getRenderer().getSeriesPaint(2));
    }

    @Test
    void manyFlowsAreDrawnAsAMinMedianMaxBand() {
        List<String> cols = new ArrayList<>();
        for (int c = 0; c < 128; c++) {
            cols.add("flow " + c + " (" + c + "->" + (c + 1) % 128 + ")");
        }
        JFreeChart chart = JFreeCharts.lineChart(series(cols), false, false, null, List.of());
        YIntervalSeriesCollection d = assertInstanceOf(YIntervalSeriesCollection.class,
                chart.getXYPlot().getDataset());
        assertEquals(1, d.getSeriesCount());
        assertEquals("median of 128 columns (band: min to max)", d.getSeriesKey(0));
        assertEquals(X.length, d.getItemCount(0));
        // row 2: the columns hold 2..129, median (65 + 66) / 2
        assertEquals(65.5, d.getYValue(0, 2), 1e-9);
        assertEquals(2, d.getStartYValue(0, 2), 1e-9);
        assertEquals(129, d.getEndYValue(0, 2), 1e-9);
        assertTrue(chart.getLegend() != null, "the band says what it is");
        // at the threshold every column is still a line of its own
        JFreeChart few = JFreeCharts.lineChart(series(cols.subList(0, JFreeCharts.MAX_LINES)), false, false, null,
                List.of());
        assertEquals(JFreeCharts.MAX_LINES, few.getXYPlot().getDataset().getSeriesCount());
    }

    @Test
    void manyPortsOfSeveralPlanesGetABandPerPlane() {
        List<String> cols = new ArrayList<>();
        for (int c = 0; c < 40; c++) {
            cols.add("p" + (c % 4) + ".leaf" + c / 4 + ":0");
        }
        XYPlot plot = JFreeCharts.lineChart(series(cols), false, false, null, List.of()).getXYPlot();
        YIntervalSeriesCollection d = assertInstanceOf(YIntervalSeriesCollection.class, plot.getDataset());
        assertEquals(4, d.getSeriesCount());
        assertEquals("plane 1: median of 10 columns (band: min to max)", d.getSeriesKey(1));
        // plane 1 holds columns 1, 5, ..., 37: at row 0 min 1, max 37, median (17 + 21) / 2
        assertEquals(19, d.getYValue(1, 0), 1e-9);
        assertEquals(1, d.getStartYValue(1, 0), 1e-9);
        assertEquals(37, d.getEndYValue(1, 0), 1e-9);
        assertNotEquals(plot.getRenderer().getSeriesPaint(0), plot.getRenderer().getSeriesPaint(1));
    }
}
