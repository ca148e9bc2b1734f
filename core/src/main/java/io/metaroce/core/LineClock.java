package io.metaroce.core;

/**
 * PATH-14: the device's line-rate clock: when its next datagram may leave, at {@code txRateBps} with the burst credit
 * of {@code pacingBurstBytes}. Without a line rate it never holds anything back.
 */
final class LineClock {
    private final long rateBps;
    private final long creditNs;
    /** When the next datagram may leave (Long.MIN_VALUE: nothing sent yet). */
    private long nextNs = Long.MIN_VALUE;

    LineClock(EngineConfig cfg) {
        this.rateBps = cfg.txRateBps;
        this.creditNs = rateBps > 0 ? cfg.pacingBurstBytes * 8_000_000_000L / rateBps : 0;
    }

    /** Whether the device has a line rate. */
    boolean on() {
        return rateBps > 0;
    }

    /** When the line is next free, or Long.MIN_VALUE without a line rate or before the first datagram. */
    long freeNs() {
        return rateBps > 0 ? nextNs : Long.MIN_VALUE;
    }

    /** Whether the line holds a datagram back at {@code nowNs}. */
    boolean busyAt(long nowNs) {
        return rateBps > 0 && nextNs != Long.MIN_VALUE && nextNs - nowNs > 0;
    }

    /** When a datagram may next leave, from {@code nowNs} on: {@code nowNs}, or later while the line is busy. */
    long nextSendNs(long nowNs) {
        return busyAt(nowNs) ? nextNs : nowNs;
    }

    /** A datagram of {@code bytes} left at {@code nowNs}: the clock may lag now by the burst credit. */
    void sent(int bytes, long nowNs) {
        long start = nextNs == Long.MIN_VALUE ? nowNs : Math.max(nextNs, nowNs - creditNs);
        nextNs = start + bytes * 8_000_000_000L / rateBps;
    }
}
