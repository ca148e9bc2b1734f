package io.metaroce.sim.experiment;

import io.metaroce.sim.experiment.ExperimentRunner.PointOutcome;
import io.metaroce.sim.metrics.Series;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/**
 * The charts of a sweep ({@link ExperimentFile#plots()}): per plot, the points matching its {@code when}, one
 * chart per combination of its facet axes' values, one line per value of its series axis and of every other axis
 * that is neither x nor a facet.
 */
final class SweepPlots {
    private SweepPlots() {
    }

    /** Draws every plot of {@code file} into {@code out}; returns the PNG file names in order. */
    static List<String> write(ExperimentFile file, List<PointOutcome> points, Path out, Charts charts)
            throws IOException {
        List<String> written = new ArrayList<>();
        if (points.size() < 2) {
            return written;
        }
        for (ExperimentFile.PlotSpec p : file.plots()) {
            Map<String, List<PointOutcome>> facets = new LinkedHashMap<>();
            for (PointOutcome o : points) {
                if (!ExperimentRunner.sameValues(o, normalized(p.when()))) {
                    continue;
                }
                List<String> parts = new ArrayList<>();
                for (String f : p.facets()) {
                    parts.add(ExperimentRunner.shortKey(f) + "=" + shown(o, f));
                }
                facets.computeIfAbsent(String.join(" ", parts), k -> new ArrayList<>()).add(o);
            }
            for (Map.Entry<String, List<PointOutcome>> e : facets.entrySet()) {
                String base = p.name() == null ? "sweep" : "sweep-" + p.name();
                String fileName = (e.getKey().isEmpty() ? base : base + "-" + e.getKey().replaceAll("[^A-Za-z0-9.]+",
                        "-")) + ".png";
                if (p.gridded()) {
                    SweepPlot.write(file, p, e.getValue(), out.resolve(fileName), charts); // bars, panels, a chart per metric
                    written.add(fileName);
                } else if (chart(file, p, e.getKey(), e.getValue(), out.resolve(fileName), charts)) {
                    written.add(fileName);
                }
            }
        }
        return written;
    }

    private static Map<String, Object> normalized(Map<String, Object> when) {
        Map<String, Object> m = new LinkedHashMap<>();
        when.forEach((k, v) -> m.put(k, SpecFields.normalized(k, v)));
        return m;
    }

    /** The value of axis {@code key} at {@code o} as written in the file (else the spec's value). */
    private static Object shown(PointOutcome o, String key) {
        return o.point().containsKey(key) ? o.point().get(key) : ExperimentRunner.value(o, key);
    }

    private static boolean chart(ExperimentFile file, ExperimentFile.PlotSpec p, String facet,
                                 List<PointOutcome> points, Path png, Charts charts) throws IOException {
        Map<String, List<double[]>> lines = new LinkedHashMap<>();
        for (PointOutcome o : points) {
            Object xv = ExperimentRunner.value(o, p.x());
            if (xv == null) {
                xv = o.result().metrics.get(p.x()); // x may be a metric, e.g. the measured loss_e2e_rate
            }
            if (!(xv instanceof Number) && !(xv instanceof String)) {
                continue;
            }
            double x;
            try {
                x = SpecFields.quantity(p.x(), xv);
            } catch (IllegalArgumentException e) {
                continue;
            }
            for (String y : p.y()) {
                // one line per combination of the other axes (the plot's series axis first)
                List<String> parts = new ArrayList<>();
                if (p.series() != null) {
                    parts.add(ExperimentRunner.shortKey(p.series()) + "=" + shown(o, p.series()));
                }
                for (String axis : file.sweep().keySet()) {
                    if (!axis.equals(p.x()) && !axis.equals(p.series()) && !p.facets().contains(axis)
                            && !p.when().containsKey(axis) && !p.along().contains(axis)) {
                        parts.add(ExperimentRunner.shortKey(axis) + "=" + o.point().get(axis));
                    }
                }
                if (p.y().size() > 1 || parts.isEmpty()) {
                    parts.add(y);
                }
                Object yv = o.result().metrics.get(y);
                double yd = yv instanceof Number n ? n.doubleValue() : Double.NaN;
                Object e2e = o.result().metrics.get("loss_e2e_rate");
                lines.computeIfAbsent(String.join(" ", parts).trim(), k -> new ArrayList<>())
                        .add(new double[] {x, yd, e2e instanceof Number n ? n.doubleValue() : Double.NaN});
            }
        }
        if (lines.isEmpty()) {
            return false;
        }
        Set<Double> xs = new TreeSet<>();
        lines.values().forEach(l -> l.forEach(pt -> xs.add(pt[0])));
        double[] x = xs.stream().mapToDouble(Double::doubleValue).toArray();
        List<String> keys = new ArrayList<>(lines.keySet());
        List<String> cols = new ArrayList<>();
        double[][] y = new double[keys.size()][x.length];
        for (int c = 0; c < keys.size(); c++) {
            Arrays.fill(y[c], Double.NaN);
            double e2e = 0;
            for (double[] pt : lines.get(keys.get(c))) {
                y[c][Arrays.binarySearch(x, pt[0])] = pt[1];
                e2e += pt[2];
            }
            e2e /= lines.get(keys.get(c)).size();
            // every line names the end-to-end loss it saw (the mean measured over its points)
            cols.add(Double.isNaN(e2e) || p.x().equals("loss_e2e_rate") ? keys.get(c)
                    : keys.get(c) + " (e2e loss " + Csv.brief(e2e * 100) + "%)");
        }
        List<String> filter = new ArrayList<>();
        p.when().forEach((k, v) -> filter.add(ExperimentRunner.shortKey(k) + "=" + v));
        String title = file.name() + ": " + String.join(", ", p.y()) + " vs " + ExperimentRunner.shortKey(p.x())
                + (facet.isEmpty() ? "" : " (" + facet + ")") + (filter.isEmpty() ? "" : " at " + String.join(" ",
                filter));
        charts.line(new Series("sweep", title, p.x(), String.join(", ", p.y()), cols, x, y), png, true, p.logX(), null,
                List.of());
        return true;
    }
}
