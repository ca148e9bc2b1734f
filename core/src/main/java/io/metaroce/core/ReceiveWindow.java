package io.metaroce.core;

/**
 * The receiving direction of a {@link Path} beyond its cumulative PSN (SACK-*, ACK-12): the 256-bit accepted-PSN
 * bitmap, the CE marks to echo, the timestamp to echo and the hold clocks of what is not yet acknowledged. Made on
 * the first packet the path receives (data or probe): a path that only sends (every path of a WRITE's requester)
 * keeps none. The bitmap is four words held in fields, bit {@code i} for a PSN whose low 8 bits are {@code i}.
 */
final class ReceiveWindow {
    private long word0;
    private long word1;
    private long word2;
    private long word3;
    /** CE-marked packets accepted since the last ACK (ACK-5). */
    int ce;
    /** The sender's timestamp of the newest packet to echo. */
    long echoTs;
    /** ACK-12: when the packet whose timestamp {@link #echoTs} is arrived, on the hold clock (Engine#heldAtNs). */
    long echoAtNs = Engine.NO_DEADLINE;
    /** ACK-12: the earliest arrival not yet acknowledged ({@link Engine#NO_DEADLINE}: none), on the hold clock. */
    long heldSinceNs = Engine.NO_DEADLINE;
    /** Data packets received on the path. */
    long packets;

    /** Bitmap word {@code w} (0..3): bits {@code 64w..64w+63}. */
    long word(int w) {
        return switch (w & 3) {
            case 0 -> word0;
            case 1 -> word1;
            case 2 -> word2;
            default -> word3;
        };
    }

    private void setWord(int w, long value) {
        switch (w) {
            case 0 -> word0 = value;
            case 1 -> word1 = value;
            case 2 -> word2 = value;
            default -> word3 = value;
        }
    }

    /** Whether bit {@code i} (0..255) is set. */
    boolean bit(int i) {
        return (word(i >>> 6) >>> (i & 63) & 1L) != 0;
    }

    /** Sets bit {@code i} (0..255). */
    void set(int i) {
        int w = i >>> 6;
        setWord(w, word(w) | 1L << (i & 63));
    }

    /** Clears bit {@code i} (0..255). */
    void clear(int i) {
        int w = i >>> 6;
        setWord(w, word(w) & ~(1L << (i & 63)));
    }

    /** Clears the whole bitmap. */
    void clearAll() {
        word0 = 0;
        word1 = 0;
        word2 = 0;
        word3 = 0;
    }
}
