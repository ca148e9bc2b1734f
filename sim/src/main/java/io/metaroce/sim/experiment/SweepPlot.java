package io.metaroce.sim.experiment;

import io.metaroce.sim.metrics.Series;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/**
 * The sweep's own chart, {@code sweep.png}, from the experiment file's {@code plot} settings
 * ({@link ExperimentFile.PlotSpec}): lines of y metrics against a numeric axis, or bars per value of an axis of
 * names; one chart, or a grid of them (a row per y metric with {@code separate}, a column per value of the
 * {@code panels} axis).
 */
final class SweepPlot {
    private SweepPlot() {
    }

    /** Draws plot {@code p} of {@code points} into {@code png} as a grid or bar chart. */
    static void write(ExperimentFile file, ExperimentFile.PlotSpec p, List<ExperimentRunner.PointOutcome> points,
                      Path png, Charts charts) throws IOException {
        List<String> rows = p.separate() ? p.y() : List.of(String.join(", ", p.y()));
        List<Object> panels = new ArrayList<>();
        if (p.panels() != null) {
            Set<Object> seen = new LinkedHashSet<>();
            points.forEach(o -> seen.add(ExperimentRunner.value(o, p.panels())));
            panels.addAll(seen);
        } else {
            panels.add(null);
        }
        List<List<Charts.Cell>> grid = new ArrayList<>();
        for (int r = 0; r < rows.size(); r++) {
            List<String> ys = p.separate() ? List.of(p.y().get(r)) : p.y();
            List<Charts.Cell> row = new ArrayList<>();
            for (Object panel : panels) {
                List<ExperimentRunner.PointOutcome> in = points.stream()
                        .filter(o -> panel == null || panel.equals(ExperimentRunner.value(o, p.panels()))).toList();
                String title = file.name() + ": " + String.join(", ", ys)
                        + (p.bars() ? " by " : " vs ") + ExperimentRunner.shortKey(p.x())
                        + (panel == null ? "" : ", " + ExperimentRunner.shortKey(p.panels()) + " = " + panel);
                row.add(p.bars() ? bars(file, p, ys, in, title) : new Charts.Cell(lines(file, p, ys, in, title), null));
            }
            grid.add(row);
        }
        if (panels.size() == 1 && grid.size() > 2) { // a single column of charts: two side by side instead
            List<List<Charts.Cell>> two = new ArrayList<>();
            for (int r = 0; r < grid.size(); r += 2) {
                List<Charts.Cell> row = new ArrayList<>(grid.get(r));
                row.add(r + 1 < grid.size() ? grid.get(r + 1).get(0) : null);
                two.add(row);
            }
            grid = two;
        }
        if (grid.size() == 1 && grid.get(0).size() == 1 && !p.bars()) {
            charts.line(grid.get(0).get(0).series(), png, true, p.logX(), null, List.of());
        } else {
            charts.grid(grid, png, p.logX());
        }
    }

    /** The name of a point's line or bar: its series value, then every other axis but x and the panels axis. */
    private static String name(ExperimentFile file, ExperimentFile.PlotSpec p, ExperimentRunner.PointOutcome o,
                               List<String> ys, String y) {
        List<String> parts = new ArrayList<>();
        if (p.series() != null) {
            parts.add(ExperimentRunner.shortKey(p.series()) + "="
                    + o.point().getOrDefault(p.series(), ExperimentRunner.value(o, p.series())));
        }
        for (String axis : file.sweep().keySet()) {
            if (!axis.equals(p.x()) && !axis.equals(p.series()) && !axis.equals(p.panels())) {
                parts.add(ExperimentRunner.shortKey(axis) + "=" + o.point().get(axis));
            }
        }
        if (ys.size() > 1 || parts.isEmpty()) {
            parts.add(y);
        }
        return String.join(" ", parts).trim();
    }

    private static double metric(ExperimentRunner.PointOutcome o, String y) {
        Object v = o.result().metrics.get(y);
        return v instanceof Number n ? n.doubleValue() : Double.NaN;
    }

    /** One line per (series value, other axes, y metric), x from the axis (points without a numeric x left out). */
    private static Series lines(ExperimentFile file, ExperimentFile.PlotSpec p, List<String> ys,
                                List<ExperimentRunner.PointOutcome> points, String title) {
        Map<String, List<double[]>> lines = new LinkedHashMap<>();
        for (ExperimentRunner.PointOutcome o : points) {
            Object xv = ExperimentRunner.value(o, p.x());
            if (!(xv instanceof Number) && !(xv instanceof String)) {
                continue;
            }
            double x;
            try {
                x = SpecFields.quantity(p.x(), xv);
            } catch (IllegalArgumentException e) {
                continue;
            }
            for (String y : ys) {
                lines.computeIfAbsent(name(file, p, o, ys, y), k -> new ArrayList<>()).add(new double[] {x, metric(o, y)});
            }
        }
        Set<Double> xs = new TreeSet<>();
        lines.values().forEach(l -> l.forEach(pt -> xs.add(pt[0])));
        double[] x = xs.stream().mapToDouble(Double::doubleValue).toArray();
        List<String> cols = new ArrayList<>(lines.keySet());
        double[][] y = new double[cols.size()][x.length];
        for (int c = 0; c < cols.size(); c++) {
            java.util.Arrays.fill(y[c], Double.NaN);
            for (double[] pt : lines.get(cols.get(c))) {
                y[c][java.util.Arrays.binarySearch(x, pt[0])] = pt[1];
            }
        }
        return new Series("sweep", title, p.x(), String.join(", ", ys), cols, x, y);
    }

    /** Bars: categories are the values of x in sweep order, one bar series per (series value, other axes). */
    private static Charts.Cell bars(ExperimentFile file, ExperimentFile.PlotSpec p, List<String> ys,
                               List<ExperimentRunner.PointOutcome> points, String title) {
        List<String> categories = new ArrayList<>();
        Map<String, Map<String, Double>> bars = new LinkedHashMap<>();
        for (ExperimentRunner.PointOutcome o : points) {
            String cat = String.valueOf(o.point().getOrDefault(p.x(), ExperimentRunner.value(o, p.x())));
            if (!categories.contains(cat)) {
                categories.add(cat);
            }
            for (String y : ys) {
                bars.computeIfAbsent(name(file, p, o, ys, y), k -> new LinkedHashMap<>()).put(cat, metric(o, y));
            }
        }
        List<String> cols = new ArrayList<>(bars.keySet());
        double[] x = new double[categories.size()];
        double[][] y = new double[cols.size()][categories.size()];
        for (int i = 0; i < x.length; i++) {
            x[i] = i;
        }
        for (int c = 0; c < cols.size(); c++) {
            for (int i = 0; i < categories.size(); i++) {
                y[c][i] = bars.get(cols.get(c)).getOrDefault(categories.get(i), Double.NaN);
            }
        }
        return new Charts.Cell(new Series("sweep", title, p.x(), String.join(", ", ys), cols, x, y), categories);
    }
}
