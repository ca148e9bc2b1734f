package io.metaroce.sim.experiment;

import io.metaroce.sim.metrics.Series;

import java.io.IOException;
import java.nio.file.Path;
import java.util.List;

/**
 * Draws the PNG charts of an experiment run: each point's series and the sweep's charts. The simulator only
 * assembles what to draw (series, grids of cells, fault windows); drawing is the caller's, so the simulator core
 * carries no graphics library (the command line draws with JFreeChart, {@code io.metaroce.cli.sim.JFreeCharts}).
 * Implementations must be safe to call from several threads at once (points run in parallel).
 */
public interface Charts {
    /** Draws nothing (CSV files, records and summaries are still written). */
    Charts NONE = new Charts() {
        @Override
        public void line(Series s, Path png, boolean markers, boolean logX, String subtitle,
                         List<FaultWindows.Window> windows) {
        }

        @Override
        public void grid(List<List<Cell>> rows, Path png, boolean logX) {
        }
    };

    /**
     * Draws {@code s} as a line chart into {@code png}; with {@code markers} points are drawn too (sweeps), with
     * {@code logX} the x axis is logarithmic (non-positive x values left out), with {@code subtitle} (may be null)
     * a second title line (the experiment and point), and the fault {@code windows} shaded and labelled when the
     * x axis is {@link Series#TIME_US}.
     *
     * @param s        the series, one line per column
     * @param png      the file to write
     * @param markers  draw a marker at every point too
     * @param logX     logarithmic x axis
     * @param subtitle a second title line, or null
     * @param windows  fault windows to shade on a time axis (picoseconds)
     * @throws IOException when the file cannot be written
     */
    void line(Series s, Path png, boolean markers, boolean logX, String subtitle, List<FaultWindows.Window> windows)
            throws IOException;

    /**
     * Draws a grid of charts into one PNG, {@code rows.get(r).get(c)} at row r and column c (rows of equal length;
     * a null cell stays blank); lines with markers, on a logarithmic x axis with {@code logX}.
     *
     * @param rows the cells, row by row
     * @param png  the file to write
     * @param logX logarithmic x axes (line cells)
     * @throws IOException when the file cannot be written
     */
    void grid(List<List<Cell>> rows, Path png, boolean logX) throws IOException;

    /**
     * One chart of a grid: {@code series} drawn as lines, or, when {@code categories} is not null, as bars with
     * {@code series.y()[c][i]} the bar of column c in category i.
     *
     * @param series     the data, one column per line or bar colour
     * @param categories the bars' categories (x labels), or null for a line chart
     */
    record Cell(Series series, List<String> categories) {
    }
}
