package io.metaroce.core.wire;

/**
 * The ACK hold times (spec WIRE-21, ACK-12): in an ACK or ACK_BUNDLE with {@link BaseHeader#FLAG_ACK_HOLD}, the
 * base header's PSN-floor field (otherwise ignored in these packets) says how long the receiver held what the
 * datagram acknowledges before sending it. Its high 16 bits are the <em>newest hold</em>: microseconds from the
 * arrival of the packet whose timestamp is echoed (in a bundle: the smallest over its entries) to the datagram's
 * transmission; its low 16 bits the <em>longest hold</em>: microseconds from the earliest arrival that this
 * datagram is the first to acknowledge (in a bundle: over all entries) to its transmission. Each saturates at
 * 65,535 us. A receiver measures from when the packet reached its host (e.g. the kernel's receive time), so time
 * spent waiting for a descheduled receiver counts.
 */
public final class AckHold {
    private AckHold() {
    }

    /** Largest value of either half, in microseconds. */
    public static final int MAX_US = 0xFFFF;

    /** The field for a newest hold of {@code newestNs} and a longest hold of {@code longestNs} (ns, clamped). */
    public static int encode(long newestNs, long longestNs) {
        return toUs(newestNs) << 16 | toUs(longestNs);
    }

    /** The newest hold (ns) in field {@code v}. */
    public static long newestNs(int v) {
        return (v >>> 16) * 1_000L;
    }

    /** The longest hold (ns) in field {@code v}. */
    public static long longestNs(int v) {
        return (v & 0xFFFF) * 1_000L;
    }

    private static int toUs(long ns) {
        return ns <= 0 ? 0 : (int) Math.min(MAX_US, ns / 1_000);
    }
}
