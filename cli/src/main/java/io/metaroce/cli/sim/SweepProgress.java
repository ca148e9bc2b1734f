package io.metaroce.cli.sim;

import io.metaroce.sim.experiment.ExperimentRunner;
import io.metaroce.sim.run.ProgressListener;

import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;

/**
 * Progress of a sweep whose points may run at once ({@code --jobs N}): one line for every running point (its
 * number and percentage of simulated time) and their events per wall second together. On a terminal the line is
 * redrawn in place and cleared before each log line ({@link #log()}); otherwise a plain line every few seconds.
 * With one point at a time it is the familiar {@link ProgressBar}.
 */
final class SweepProgress implements ExperimentRunner.ProgressFactory {
    private static final long REDRAW_NS = 200_000_000L;
    private static final long LINE_NS = 5_000_000_000L;

    private final PrintStream out;
    private final boolean terminal;
    private final boolean quiet;
    private final PrintStream log;
    private final Map<Integer, double[]> running = new TreeMap<>(); // point -> {fraction, events/s}
    private int count;
    private long lastNs = Long.MIN_VALUE;
    private int drawnChars; // length of the progress line on screen, 0 when none

    SweepProgress(PrintStream out, boolean terminal, boolean quiet) {
        this.out = out;
        this.terminal = terminal;
        this.quiet = quiet;
        this.log = new PrintStream(new OutputStream() {
            @Override
            public void write(int b) {
                write(new byte[] {(byte) b}, 0, 1);
            }

            @Override
            public void write(byte[] b, int off, int len) {
                synchronized (SweepProgress.this) {
                    clear();
                    out.write(b, off, len);
                    out.flush();
                }
            }
        }, true, StandardCharsets.UTF_8);
    }

    /** Where the sweep's log lines go: they never land in the middle of the progress line. */
    PrintStream log() {
        return log;
    }

    @Override
    public synchronized ProgressListener forPoint(int index, int count, String label) {
        this.count = count;
        if (quiet) {
            return (now, limit, ev, wall) -> { };
        }
        running.put(index, new double[] {0, 0});
        return (nowPs, limitPs, events, wallNs) -> update(index, limitPs <= 0 ? 0
                : Math.min(1, (double) nowPs / limitPs), wallNs <= 0 ? 0 : events * 1e9 / wallNs);
    }

    /** Point {@code index} is done: it leaves the line. */
    synchronized void finished(int index) {
        running.remove(index);
    }

    private synchronized void update(int index, double fraction, double eventsPerS) {
        double[] st = running.get(index);
        if (st == null) {
            return;
        }
        st[0] = fraction;
        st[1] = eventsPerS;
        long now = System.nanoTime();
        if (lastNs != Long.MIN_VALUE && now - lastNs < (terminal ? REDRAW_NS : LINE_NS)) {
            return;
        }
        lastNs = now;
        StringBuilder sb = new StringBuilder("      running");
        double evs = 0;
        for (Map.Entry<Integer, double[]> e : running.entrySet()) {
            sb.append(String.format(Locale.ROOT, "  [%d/%d] %3.0f%%", e.getKey() + 1, count, e.getValue()[0] * 100));
            evs += e.getValue()[1];
        }
        sb.append(String.format(Locale.ROOT, "   %.2f M events/s", evs / 1e6));
        if (terminal) {
            clear();
            out.print(sb);
            out.flush();
            drawnChars = sb.length();
        } else {
            out.println(sb);
        }
    }

    private void clear() {
        if (drawnChars > 0) {
            out.print("\r" + " ".repeat(drawnChars) + "\r");
            drawnChars = 0;
        }
    }
}
