package io.metaroce.sim.event;

/** Time and rate helpers: simulator time is integer picoseconds. */
public final class Units {
    private Units() {
    }

    /** Picoseconds per nanosecond. */
    public static final long PS_PER_NS = 1_000L;
    /** Picoseconds per microsecond. */
    public static final long PS_PER_US = 1_000_000L;
    /** Picoseconds per millisecond. */
    public static final long PS_PER_MS = 1_000_000_000L;
    /** Picoseconds per second. */
    public static final long PS_PER_S = 1_000_000_000_000L;

    /** {@code ns} nanoseconds in picoseconds. */
    public static long psFromNs(long ns) { return ns * PS_PER_NS; }
    /** {@code us} microseconds in picoseconds. */
    public static long psFromUs(long us) { return us * PS_PER_US; }
    /** {@code ms} milliseconds in picoseconds. */
    public static long psFromMs(long ms) { return ms * PS_PER_MS; }
    /** Nanoseconds (floor) of a picosecond time: the engine's clock. */
    public static long nsFromPs(long ps) { return ps / PS_PER_NS; }

    /** Serialization time of {@code bytes} at {@code rateBps}, in ps, rounded up, at least 1. */
    public static long txTimePs(int bytes, long rateBps) {
        // bytes * 8 * 1e12 / rate; bytes <= ~2^20 so bytes*8e12 < 2^63 only for bytes < ~1.15e6: split to be safe
        long bits = bytes * 8L;
        long q = PS_PER_S / rateBps;
        long r = PS_PER_S % rateBps;
        long t = bits * q + (bits * r + rateBps - 1) / rateBps;
        return Math.max(1, t);
    }

    /** Precomputes ps per byte as a 32.32 fixed-point multiplier for {@link #txTimePsFast}. */
    public static long psPerByteFixed(long rateBps) {
        return (long) Math.ceil(8.0 * PS_PER_S / rateBps * 4294967296.0);
    }

    /** Serialization time using a multiplier from {@link #psPerByteFixed}. */
    public static long txTimePsFast(int bytes, long psPerByteFixed) {
        return Math.max(1, (bytes * psPerByteFixed + 0xFFFF_FFFFL) >>> 32);
    }
}
