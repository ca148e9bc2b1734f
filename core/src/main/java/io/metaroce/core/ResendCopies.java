package io.metaroce.core;

/**
 * REL-22: how many copies a resend gets once a QP has nothing new to send: the fewest whose all being lost, each
 * independently at the peer's measured loss rate (REL-21's {@link LossRate}), is at most {@link #ALL_LOST}, and at
 * most {@code max}. At the end of a transfer a segment lost again and again is what the transfer waits for, one
 * detection and one round trip per loss (at 33% end to end, the slowest of ~3,000 tail segments is sent ~7 times);
 * copies make each round's loss that much less likely and cost only the tail's resends.
 */
final class ResendCopies {
    /** The probability that every copy of a resend is lost that the count aims below. */
    static final double ALL_LOST = 0.05;

    private ResendCopies() {
    }

    /** Copies of a resend at loss rate {@code p}: 1 to {@code max} (1 when {@code max} is 1 or nothing is lost). */
    static int forLoss(double p, int max) {
        int n = 1;
        double allLost = p;
        while (allLost > ALL_LOST && n < max) {
            n++;
            allLost *= p;
        }
        return n;
    }
}
