package io.metaroce.cli.perf;

/**
 * The peak of a bandwidth run: bytes completed in successive windows of at least 100 ms; the peak is the best
 * window's rate. A run shorter than one window has no sample, and reports its average as its peak.
 */
final class Sampler {
    static final long WINDOW_NS = 100_000_000;

    private long windowStartNs;
    private long windowBytes;
    private double peakBps;

    void start(long nowNs) {
        windowStartNs = nowNs;
        windowBytes = 0;
    }

    /** {@code bytes} completed at {@code nowNs}. */
    void add(long bytes, long nowNs) {
        long dt = nowNs - windowStartNs;
        if (dt >= WINDOW_NS) {
            peakBps = Math.max(peakBps, windowBytes * 8e9 / dt);
            windowStartNs = nowNs;
            windowBytes = 0;
        }
        windowBytes += bytes;
    }

    /** The best window's rate in bits/s, or {@code averageBps} when no window completed. */
    double peakBps(double averageBps) {
        return peakBps > 0 ? peakBps : averageBps;
    }
}
