package io.metaroce.sim.metrics;

import java.util.Arrays;
import java.util.List;

/** Collects one {@link Series} row by row (x plus one value per column), growing its arrays by doubling. */
public final class SeriesRecorder {
    private final String name;
    private final String title;
    private final String xLabel;
    private final String yLabel;
    private final List<String> columns;
    private double[] x = new double[64];
    private double[][] y;
    private int size;

    SeriesRecorder(String name, String title, String xLabel, String yLabel, List<String> columns) {
        this.name = name;
        this.title = title;
        this.xLabel = xLabel;
        this.yLabel = yLabel;
        this.columns = List.copyOf(columns);
        this.y = new double[columns.size()][64];
    }

    int columns() { return columns.size(); }
    /** Rows recorded. */
    public int size() { return size; }

    /** Starts a row at {@code xValue}; then {@link #set} each column (unset columns stay 0). */
    void row(double xValue) {
        if (size == x.length) {
            x = Arrays.copyOf(x, size * 2);
            for (int c = 0; c < y.length; c++) {
                y[c] = Arrays.copyOf(y[c], size * 2);
            }
        }
        x[size++] = xValue;
    }

    void set(int column, double value) {
        y[column][size - 1] = value;
    }

    /** The value of {@code column} at row {@code rowIndex}. */
    public double get(int column, int rowIndex) {
        return y[column][rowIndex];
    }

    /** The x value of row {@code rowIndex}. */
    public double x(int rowIndex) {
        return x[rowIndex];
    }

    /** The rows recorded so far as a {@link Series} (arrays trimmed to the rows). */
    public Series toSeries() {
        double[][] ys = new double[y.length][];
        for (int c = 0; c < y.length; c++) {
            ys[c] = Arrays.copyOf(y[c], size);
        }
        return new Series(name, title, xLabel, yLabel, columns, Arrays.copyOf(x, size), ys);
    }
}
