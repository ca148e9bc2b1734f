package io.metaroce.sim.experiment;

import io.metaroce.sim.metrics.Series;

import java.io.IOException;
import java.io.Writer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/** CSV files of {@link Series} and tables, and the number formats of the run's files and summaries. */
public final class Csv {
    private Csv() {
    }

    /**
     * Writes {@code s} as CSV: a header of x label then column names, one row per x.
     *
     * @param s    the series
     * @param file the file to write
     * @throws IOException when the file cannot be written
     */
    public static void series(Series s, Path file) throws IOException {
        try (Writer w = Files.newBufferedWriter(file)) {
            w.write(cell(s.xLabel()));
            for (String c : s.columns()) {
                w.write(',');
                w.write(cell(c));
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
     * Writes a table (header + rows) as CSV; numbers as {@link #number}.
     *
     * @param header the column names
     * @param rows   the rows, a value per column ({@link Number}s formatted, anything else as text)
     * @param file   the file to write
     * @throws IOException when the file cannot be written
     */
    public static void table(List<String> header, List<List<Object>> rows, Path file) throws IOException {
        try (Writer w = Files.newBufferedWriter(file)) {
            w.write(String.join(",", header.stream().map(Csv::cell).toList()));
            w.write('\n');
            for (List<Object> row : rows) {
                w.write(String.join(",", row.stream().map(o -> o instanceof Number n
                        ? number(n.doubleValue()) : cell(String.valueOf(o))).toList()));
                w.write('\n');
            }
        }
    }

    /**
     * {@code v} as the CSV files write it: integers exactly, others to 6 significant digits, NaN empty.
     *
     * @param v the value
     * @return its text
     */
    public static String number(double v) {
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

    /**
     * {@code v} to 4 significant digits, trailing zeros dropped (for tables and labels people read).
     *
     * @param v the value
     * @return its text
     */
    public static String brief(double v) {
        if (Double.isNaN(v) || Double.isInfinite(v) || (v == Math.rint(v) && Math.abs(v) < 1e15)) {
            return number(v);
        }
        return new java.math.BigDecimal(v).round(new java.math.MathContext(4)).stripTrailingZeros().toPlainString();
    }

    private static String cell(String s) {
        return s.contains(",") || s.contains("\"") ? '"' + s.replace("\"", "\"\"") + '"' : s;
    }
}
