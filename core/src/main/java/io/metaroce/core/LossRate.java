package io.metaroce.core;

/**
 * REL-21: the share of this engine's data packets to one peer that were declared lost, over roughly the last
 * {@link #SPAN} sent: each packet sent moves the estimate toward 0 by 1/SPAN of the way, each loss adds 1/SPAN.
 * Declarations proven spurious later are not taken back (the estimate errs high, on the side of more repairs).
 */
final class LossRate {
    /** Packets the estimate averages over. */
    static final int SPAN = 256;
    private static final double KEEP = 1.0 - 1.0 / SPAN;
    private double rate;

    /** A data packet (first send or resend) went to the peer. */
    void onSent() {
        rate *= KEEP;
    }

    /** A data packet to the peer was declared lost (and is being resent). */
    void onLost() {
        rate = Math.min(1.0, rate + 1.0 / SPAN);
    }

    /** The estimated loss rate, 0 to 1. */
    double rate() {
        return rate;
    }
}
