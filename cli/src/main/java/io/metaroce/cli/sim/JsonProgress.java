package io.metaroce.cli.sim;

import com.fasterxml.jackson.jr.ob.JSON;
import io.metaroce.sim.experiment.ExperimentRunner;
import io.metaroce.sim.run.ProgressListener;

import java.io.IOException;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.LongSupplier;

/**
 * {@code sim run --progress json}: progress as JSON lines on standard output, one object per line, for programs
 * that follow a run (the human log goes to standard error). Three kinds, told apart by {@code "event"}:
 * <ul>
 *   <li>{@code "progress"}: a running point, at most once per {@code intervalNs} of wall time per point:
 *       {@code point} (1-based), {@code points}, {@code label}, {@code sim_time_ps} reached of {@code limit_ps},
 *       {@code fraction} of the limit, {@code events}, {@code events_per_s} (per wall second), {@code wall_s}
 *       (the point's), {@code eta_max_s} (wall seconds left if the point runs to its limit: an upper bound, as
 *       most points end sooner, when their workload completes; null before simulated time has passed) and
 *       {@code eta_s} (wall seconds left for the whole run, from the rate at which points have finished so far;
 *       null until one has);</li>
 *   <li>{@code "point_done"}: a point ended, with the same fields at its end but {@code eta_max_s} (and
 *       {@code error} when it failed to run), and {@code points_done};</li>
 *   <li>{@code "done"}: the run ended ({@link #done}).</li>
 * </ul>
 * Safe to call from several points running at once; lines never interleave.
 */
final class JsonProgress implements ExperimentRunner.ProgressFactory {
    /** Default wall time between two progress lines of one point, ns. */
    static final long DEFAULT_INTERVAL_NS = 1_000_000_000L;

    private final PrintStream out;
    private final long intervalNs;
    private final LongSupplier clock;
    private final long startNs;
    private final Map<ProgressListener, Point> points = new ConcurrentHashMap<>();
    /** Points finished, and how many the run has (the largest count a point was made with). */
    private int done;
    private int total;

    /** Progress of one point: its place in the sweep and what it last reported. */
    private final class Point implements ProgressListener {
        final int index;
        final int count;
        final String label;
        long nowPs;
        long limitPs;
        long events;
        long wallNs;
        long lastLineWallNs = Long.MIN_VALUE;

        Point(int index, int count, String label) {
            this.index = index;
            this.count = count;
            this.label = label;
        }

        @Override
        public void progress(long nowPs, long limitPs, long events, long wallNs) {
            this.nowPs = nowPs;
            this.limitPs = limitPs;
            this.events = events;
            this.wallNs = wallNs;
            if (lastLineWallNs == Long.MIN_VALUE || wallNs - lastLineWallNs >= intervalNs) {
                lastLineWallNs = wallNs;
                emit(fields("progress"));
            }
        }

        Map<String, Object> fields(String event) {
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("event", event);
            m.put("point", index + 1);
            m.put("points", count);
            m.put("label", label);
            m.put("sim_time_ps", nowPs);
            m.put("limit_ps", limitPs);
            double fraction = limitPs <= 0 ? 0 : Math.min(1, (double) nowPs / limitPs);
            m.put("fraction", fraction);
            m.put("events", events);
            m.put("events_per_s", wallNs <= 0 ? 0.0 : events * 1e9 / wallNs);
            m.put("wall_s", wallNs / 1e9);
            m.put("eta_max_s", fraction <= 0 ? null : wallNs / 1e9 * (1 - fraction) / fraction);
            m.put("eta_s", runEtaS());
            return m;
        }
    }

    /**
     * Lines to {@code out}, a point's progress at most once per {@code intervalNs} of its wall time; the run's
     * ETA is measured on {@code clock} (ns, e.g. {@code System::nanoTime}) from now.
     */
    JsonProgress(PrintStream out, long intervalNs, LongSupplier clock) {
        this.out = out;
        this.intervalNs = intervalNs;
        this.clock = clock;
        this.startNs = clock.getAsLong();
    }

    @Override
    public synchronized ProgressListener forPoint(int index, int count, String label) {
        Point p = new Point(index, count, label);
        total = Math.max(total, count);
        points.put(p, p);
        return p;
    }

    /** Wall seconds left for the run at the rate points have finished so far; null before the first. */
    private synchronized Double runEtaS() {
        if (done == 0) {
            return null;
        }
        return (clock.getAsLong() - startNs) / 1e9 / done * Math.max(0, total - done);
    }

    /** The point that {@code listener} (from {@link #forPoint}) reports on ended; {@code error} null if it ran. */
    void finished(ProgressListener listener, String error) {
        Point p = points.remove(listener);
        if (p == null) {
            return;
        }
        synchronized (this) {
            done++;
        }
        Map<String, Object> m = p.fields("point_done");
        m.remove("eta_max_s");
        m.put("points_done", done);
        if (error != null) {
            m.put("error", error);
        }
        emit(m);
    }

    /**
     * The last line: {@code experiment}, {@code verdict} ({@code pass}, {@code fail}, or {@code ran} for a
     * shard), {@code points}, {@code wall_s}, {@code out} (the output directory), {@code failed} (the failed
     * checks and point errors, one string each).
     */
    void done(String experiment, String verdict, int pointCount, double wallS, String outDir,
              List<String> failed) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("event", "done");
        m.put("experiment", experiment);
        m.put("verdict", verdict);
        m.put("points", pointCount);
        m.put("wall_s", wallS);
        m.put("out", outDir);
        m.put("failed", failed);
        emit(m);
    }

    private synchronized void emit(Map<String, Object> m) {
        try {
            out.println(JSON.std.asString(m));
            out.flush();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
