package io.metaroce.cli.perf;

import org.HdrHistogram.Histogram;

import java.io.PrintWriter;
import java.util.Locale;

/**
 * The result tables, laid out like perftest's. Bandwidth in MB/sec means 2^20 bytes per second (perftest's
 * unit); with {@code --report-gbits}, Gb/sec means 10^9 bits per second. Latency in microseconds.
 */
final class Report {
    static final String DASH = "-".repeat(87);
    static final String BW_HEADER_MB =
            " #bytes     #iterations    BW peak[MB/sec]    BW average[MB/sec]   MsgRate[Mpps]";
    static final String BW_HEADER_GB =
            " #bytes     #iterations    BW peak[Gb/sec]    BW average[Gb/sec]   MsgRate[Mpps]";
    static final String LAT_HEADER = " #bytes #iterations    t_min[usec]    t_median[usec]    t_p99[usec]    "
            + "t_p99.9[usec]    t_max[usec]    t_avg[usec]";

    private Report() {
    }

    /**
     * A bandwidth line under its column header; with -a ({@link PerfOptions#continuesTable},
     * {@link PerfOptions#tableGoesOn}) the header comes once, before the first size, and the closing line after
     * the last.
     */
    static void bw(PrintWriter out, PerfOptions o, long size, long iters, double peakBps, double avgBps,
                   double msgRateMpps, String note) {
        boolean gbits = o.reportGbits;
        if (!o.continuesTable) {
            out.println(gbits ? BW_HEADER_GB : BW_HEADER_MB);
        }
        out.printf(Locale.ROOT, " %-10d %-14d %-18.2f %-20.2f %.6f%n", size, iters, unit(peakBps, gbits),
                unit(avgBps, gbits), msgRateMpps);
        if (note != null && !o.tableGoesOn) {
            out.println(" " + note);
        }
        if (!o.tableGoesOn) {
            out.println(DASH);
        }
        out.flush();
    }

    private static double unit(double bps, boolean gbits) {
        return gbits ? bps / 1e9 : bps / 8 / (1 << 20);
    }

    /** A latency line under its column header (with -a: the header once, the closing line after the last size). */
    static void lat(PrintWriter out, PerfOptions o, long size, long iters, Histogram h) {
        if (!o.continuesTable) {
            out.println(LAT_HEADER);
        }
        out.printf(Locale.ROOT, " %-6d %-14d %-14.2f %-17.2f %-14.2f %-16.2f %-14.2f %.2f%n", size, iters,
                us(h.getMinValue()), us(h.getValueAtPercentile(50)), us(h.getValueAtPercentile(99)),
                us(h.getValueAtPercentile(99.9)), us(h.getMaxValue()), h.getMean() / 1e3);
        if (!o.tableGoesOn) {
            out.println(DASH);
        }
        out.flush();
    }

    /** --run_infinitely: ns between two result lines (-D, or perftest's 5 s). */
    static long infiniteIntervalNs(PerfOptions o) {
        return (long) ((o.durationS != null ? o.durationS : PerfOptions.INFINITE_REPORT_S) * 1e9);
    }

    static double us(long ns) {
        return ns / 1e3;
    }
}
