package io.metaroce.sim.metrics;

import java.util.List;

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
}
