package io.metaroce.sim.metrics;

/**
 * The bytes each flow delivered over the last {@code k} sample intervals: a window that slides by one interval, for
 * the Jain index that time to fair judges (E4). With {@code k = 1} it is one interval's bytes.
 */
final class FairnessWindow {
    private final double[][] ring; // [interval][flow]
    private final double[] sums;
    private int next;
    private int filled;

    /** A window of {@code k} intervals over {@code flows} flows. */
    FairnessWindow(int k, int flows) {
        if (k < 1) {
            throw new IllegalArgumentException("a fairness window needs at least one interval, got " + k);
        }
        ring = new double[k][flows];
        sums = new double[flows];
    }

    /** Intervals per window. */
    int intervals() {
        return ring.length;
    }

    /** Adds one interval's bytes per flow, dropping the oldest interval once the window is full. */
    void add(double[] delta) {
        double[] slot = ring[next];
        for (int i = 0; i < sums.length; i++) {
            sums[i] += delta[i] - slot[i]; // whole byte counts: exact in a double
            slot[i] = delta[i];
        }
        next = next + 1 == ring.length ? 0 : next + 1;
        if (filled < ring.length) {
            filled++;
        }
    }

    /** Whether a whole window of intervals has been added. */
    boolean full() {
        return filled == ring.length;
    }

    /** Bytes flow {@code i} delivered over the window. */
    double bytes(int i) {
        return sums[i];
    }
}
