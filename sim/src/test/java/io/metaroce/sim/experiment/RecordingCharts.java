package io.metaroce.sim.experiment;

import io.metaroce.sim.metrics.Series;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * Charts for the simulator's tests (the simulator draws nothing itself): each chart is a small text file at the
 * PNG's path describing what would be drawn ({@code line <title> | columns | subtitle | windows} or
 * {@code grid RxC bars|lines}), and every call is kept in {@link #calls()} in order.
 */
final class RecordingCharts implements Charts {
    private final List<String> calls = new ArrayList<>();

    @Override
    public void line(Series s, Path png, boolean markers, boolean logX, String subtitle,
                     List<FaultWindows.Window> windows) throws IOException {
        record(png, "line " + s.title() + " | " + String.join(", ", s.columns()) + " | " + subtitle + " | "
                + windows.stream().map(FaultWindows.Window::label).toList());
    }

    @Override
    public void grid(List<List<Cell>> rows, Path png, boolean logX) throws IOException {
        Cell first = rows.get(0).get(0);
        record(png, "grid " + rows.size() + "x" + rows.get(0).size() + " " + (first.categories() != null ? "bars"
                : "lines"));
    }

    private void record(Path png, String what) throws IOException {
        Files.writeString(png, what + "\n");
        synchronized (calls) {
            calls.add(png.getFileName() + ": " + what);
        }
    }

    /** Every chart drawn so far, {@code file name: description}, in call order. */
    List<String> calls() {
        synchronized (calls) {
            return List.copyOf(calls);
        }
    }
}
