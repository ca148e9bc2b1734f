package io.metaroce.cli.sim;

import io.metaroce.sim.run.ProgressListener;

import java.io.PrintStream;
import java.util.Locale;

/**
 * Progress of a simulation point: on a terminal one bar redrawn in place (simulated time, percentage, events per
 * wall second); otherwise a plain line every few seconds and a last one when the point ends, so that logs stay
 * readable and the last line always shows where the run got to.
 */
public final class ProgressBar implements ProgressListener {
    private static final long REDRAW_NS = 200_000_000L;
    private static final long LINE_NS = 5_000_000_000L;

    private final PrintStream out;
    private final boolean terminal;
    private final String prefix;
    private long lastNs = Long.MIN_VALUE;
    private boolean drawn;
    /** The latest progress reported and whether a line shows it yet (non-terminal output). */
    private long latestNowPs;
    private long latestLimitPs;
    private long latestEvents;
    private long latestWallNs;
    private boolean latestShown = true;

    /** Progress written to {@code out}; {@code terminal} chooses the redrawn bar. */
    public ProgressBar(PrintStream out, boolean terminal, String prefix) {
        this.out = out;
        this.terminal = terminal;
        this.prefix = prefix;
    }

    /** True when standard output is an interactive terminal. */
    public static boolean isTerminal() {
        return System.console() != null && System.console().isTerminal();
    }

    @Override
    public void progress(long nowPs, long limitPs, long events, long wallNs) {
        latestNowPs = nowPs;
        latestLimitPs = limitPs;
        latestEvents = events;
        latestWallNs = wallNs;
        latestShown = false;
        long every = terminal ? REDRAW_NS : LINE_NS;
        if (lastNs != Long.MIN_VALUE && wallNs - lastNs < every) {
            return;
        }
        lastNs = wallNs;
        latestShown = true;
        double frac = limitPs <= 0 ? 0 : Math.min(1, (double) nowPs / limitPs);
        String stats = line(nowPs, limitPs, events, wallNs);
        if (terminal) {
            int width = 24;
            int full = (int) Math.round(frac * width);
            out.print("\r" + prefix + " [" + "#".repeat(full) + "-".repeat(width - full) + "] " + stats + "   ");
            out.flush();
            drawn = true;
        } else {
            out.println(prefix + " " + stats);
        }
    }

    /** Ends the bar's line (call when the point is done). */
    public void finish() {
        if (!terminal && !latestShown) {
            out.println(prefix + " " + line(latestNowPs, latestLimitPs, latestEvents, latestWallNs));
            latestShown = true;
        }
        if (drawn) {
            out.print("\r" + " ".repeat(100) + "\r");
            out.flush();
            drawn = false;
        }
    }

    private static String line(long nowPs, long limitPs, long events, long wallNs) {
        double evs = wallNs <= 0 ? 0 : events * 1e9 / wallNs;
        return String.format(Locale.ROOT, "sim %s of %s  %.2f M events/s  %.1f s", time(nowPs), time(limitPs),
                evs / 1e6, wallNs / 1e9);
    }

    /** A virtual time in the largest unit that keeps it readable. */
    static String time(long ps) {
        if (ps >= 1_000_000_000L) {
            return String.format(Locale.ROOT, "%.2f ms", ps / 1e9);
        }
        return String.format(Locale.ROOT, "%.1f us", ps / 1e6);
    }
}
