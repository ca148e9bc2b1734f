package io.metaroce.core;

/**
 * REL-16: the largest one-way delay of the data packets one peer sent recently, over every path to this engine: a
 * windowed maximum of {@code arrival - sender timestamp} over the last 256 to 512 packets. The two clocks differ by a
 * constant, so only differences of these values mean anything: how much later than a given packet a packet sent
 * at the same moment may still arrive on the slowest path.
 */
final class OneWayDelay {
    /** Samples per bucket: the maximum covers the current bucket and the one before it. */
    static final int BUCKET = 256;

    private long current;
    private long previous;
    private boolean currentValid;
    private boolean previousValid;
    private int samples;

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
        return Math.max(0, max - d);
    }
}
