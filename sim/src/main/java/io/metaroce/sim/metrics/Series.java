package io.metaroce.sim.metrics;

import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A time series a run recorded: one x column (usually virtual time in microseconds) and named y columns of equal
 * length, written as one CSV and one plot.
 *
 * @param name    file-safe name, e.g. {@code goodput_per_flow}
 * @param title   plot title
 * @param xLabel  x axis label with unit
 * @param yLabel  y axis label with unit
 * @param columns names of the y columns
 * @param x       x values
 * @param y       y values, {@code y[column][i]}
 */
public record Series(String name, String title, String xLabel, String yLabel, List<String> columns, double[] x,
                     double[][] y) {
    /** The x label of time series (virtual time at the end of each sample interval, microseconds). */
    public static final String TIME_US = "time (us)";

    private static final Pattern PLANE = Pattern.compile("\\(plane (\\d{1,6})\\)|^plane (\\d{1,6})$|^p(\\d{1,6})\\.");

    /**
     * The fabric plane column {@code column} belongs to, from its name: {@code "path 3 (plane 1)"} (path series),
     * {@code "plane 1"} (per-plane series) or a port or link name such as {@code "p1.leaf0:3"} or
     * {@code "p1.leaf0>p1.spine2"}.
     *
     * @param column index into {@link #columns()}
     * @return the plane, or -1 when the name names none
     */
    public int plane(int column) {
        Matcher m = PLANE.matcher(columns.get(column));
        if (!m.find()) {
            return -1;
        }
        for (int g = 1; g <= m.groupCount(); g++) {
            if (m.group(g) != null) {
                return Integer.parseInt(m.group(g));
            }
        }
        return -1;
    }
}
