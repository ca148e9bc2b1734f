package io.metaroce.core;

/**
 * REL-16: the largest one-way delay of the data packets one peer sent recently, over every path to this engine: a
 * windowed maximum of {@code arrival - sender timestamp} over the last 256 to 512 packets. The two clocks differ by a
 * constant, so only differences of these values mean anything: how much later than a given packet a packet sent
 * at the same moment may still arrive on the slowest path. REL-19 adds a slack to every lag after a segment the
 * receiver NAKed MISSING turned up late.
 */
final class OneWayDelay {
    /** Samples per bucket: the maximum covers the current bucket and the one before it. */
    static final int BUCKET = 256;

    private long current;
    private long previous;
    private boolean currentValid;
    private boolean previousValid;
    private int samples;
    /**
     * REL-19: added to every lag: how late a segment NAKed MISSING turned up after its NAK, halved after each bucket
     * without a late segment.
     */
    private long slackNs;
    /** REL-19: whether a late segment widened the slack during the current bucket. */
    private boolean widened;
    /** REL-19: the slack never exceeds this (a segment that late was lost in all but name). */
    static final long MAX_SLACK_NS = 1_000_000;

    /** A data packet stamped {@code sentTs} by the peer arrived at {@code arrivalNs} (this engine's clock). */
    void sample(long arrivalNs, long sentTs) {
        long d = arrivalNs - sentTs;
        if (!currentValid || d > current) {
            current = d;
            currentValid = true;
        }
        if (++samples >= BUCKET) {
            previous = current;
            previousValid = true;
            currentValid = false;
            samples = 0;
            if (!widened) {
                slackNs >>= 1; // a bucket with no late segment: the slack decays
            }
            widened = false;
        }
    }

    /**
     * How much later than the packet stamped {@code sentTs} that arrived at {@code arrivalNs} a packet sent no later
     * may still arrive, by the recent maximum (0 when that packet was the slowest), in ns.
     */
    long lagNs(long arrivalNs, long sentTs) {
        long d = arrivalNs - sentTs;
        long max = currentValid && previousValid ? Math.max(current, previous) : currentValid ? current
                : previousValid ? previous : d;
        return Math.max(0, max - d) + slackNs;
    }

    /** REL-19: a segment NAKed MISSING arrived {@code lateNs} after its NAK: later holes are given that much longer. */
    void widen(long lateNs) {
        slackNs = Math.min(MAX_SLACK_NS, Math.max(slackNs, lateNs));
        widened = true;
    }
}
