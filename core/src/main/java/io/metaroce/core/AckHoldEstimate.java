package io.metaroce.core;

/**
 * RTO-10: the longest ACK hold time (ACK-12) one peer reported recently, as a windowed maximum over two
 * back-to-back windows of {@code windowNs} (the current one and the one before it), so a hold is remembered for
 * one to two windows. One per peer ({@link PeerLoad}); no allocation per sample.
 */
final class AckHoldEstimate {
    private final long windowNs;
    private long windowStartNs;
    private boolean started;
    private long currentMaxNs;
    private long previousMaxNs;
    private long reports;

    /** {@code windowNs} {@code <= 0}: never anything to allow for. */
    AckHoldEstimate(long windowNs) {
        this.windowNs = windowNs;
    }

    /** The peer reported at {@code nowNs} that it held a packet {@code holdNs} before acknowledging it. */
    void onHold(long nowNs, long holdNs) {
        if (windowNs <= 0) {
            return;
        }
        reports++;
        roll(nowNs);
        if (holdNs > currentMaxNs) {
            currentMaxNs = holdNs;
        }
    }

    /** Reports taken (each may change {@link #allowanceNs()}). */
    long reports() {
        return reports;
    }

    /**
     * The longest hold reported in the window of the latest report and the one before it, in ns (0: none). Windows
     * move on with reports: while none arrive (nothing in flight to the peer) the allowance stays as it was.
     */
    long allowanceNs() {
        return Math.max(currentMaxNs, previousMaxNs);
    }

    private void roll(long nowNs) {
        if (!started) {
            started = true;
            windowStartNs = nowNs;
            return;
        }
        long age = nowNs - windowStartNs;
        if (age >= windowNs) {
            previousMaxNs = age >= 2 * windowNs ? 0 : currentMaxNs;
            currentMaxNs = 0;
            windowStartNs = nowNs;
        }
    }
}
