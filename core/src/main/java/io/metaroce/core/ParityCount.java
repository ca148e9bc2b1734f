package io.metaroce.core;

/**
 * REL-21: how many parities a tail group gets when they adapt to the loss rate: the fewest for which the group's
 * {@code n} segments and {@code r} parities, each lost independently at the peer's measured rate, lose at most
 * {@code r} packets (so the receiver rebuilds what was lost) with probability at least {@link #TARGET}; the most
 * allowed when none reaches it. One when the peer loses nothing, at least two once it loses anything
 * ({@link #SOME_LOSS}): in a collective whose steps chain on each other a step that waits for a resend holds up every
 * later one, and at a few percent a single parity leaves one tail in ten to a resend (measured on E1's all-reduce:
 * 1% per link 0.913 of lossless with the floor, 0.885 without).
 */
final class ParityCount {
    /** The probability of a group rebuilding its losses that the adaptive count aims for. */
    static final double TARGET = 0.95;
    /** A loss rate above which a group gets at least two parities. */
    static final double SOME_LOSS = 0.001;

    private ParityCount() {
    }

    /** The parity count for a group of {@code n} segments at loss rate {@code p}, 1 to {@code max} (at least 1). */
    static int forLoss(int n, double p, int max) {
        int from = p > SOME_LOSS ? 2 : 1;
        for (int r = Math.min(from, max); r < max; r++) {
            if (atMostLost(n + r, r, p) >= TARGET) {
                return r;
            }
        }
        return max;
    }

    /** P(at most {@code k} of {@code total} packets lost), each independently with probability {@code p}. */
    static double atMostLost(int total, int k, double p) {
        if (p <= 0) {
            return 1.0;
        }
        if (p >= 1) {
            return k >= total ? 1.0 : 0.0;
        }
        double q = 1 - p;
        double term = Math.pow(q, total); // P(0 lost)
        double sum = term;
        for (int l = 1; l <= k && l <= total; l++) {
            term *= (double) (total - l + 1) / l * p / q;
            sum += term;
        }
        return Math.min(1.0, sum);
    }
}
