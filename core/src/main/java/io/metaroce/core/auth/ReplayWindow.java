package io.metaroce.core.auth;

/**
 * AUTH-7: one replay window per path over the sender's 64-bit auth sequence numbers: the highest accepted
 * number and a 256-bit map of the numbers below it (a ring indexed by {@code seq mod 256}, RFC 6479 style), so
 * that a packet is accepted at most once and numbers more than 255 below the highest are refused. No allocation
 * after construction.
 */
final class ReplayWindow {
    /** Width of the window in sequence numbers. */
    static final int SIZE = 256;
    private static final int WORDS = SIZE / 64;

    private final long[] highest;
    private final long[] seen;

    ReplayWindow(int paths) {
        highest = new long[paths];
        seen = new long[paths * WORDS];
        java.util.Arrays.fill(highest, -1);
    }

    /** Whether {@code seq} on {@code path} may still be accepted (new, and not below the window). */
    boolean fresh(int path, long seq) {
        long h = highest[path];
        if (seq < 0) {
            return false; // numbers are 0 .. 2^63 - 1; a sender never reaches the sign bit
        }
        if (h < 0 || seq > h) {
            return true;
        }
        if (h - seq >= SIZE) {
            return false;
        }
        int bit = (int) (seq & (SIZE - 1));
        return (seen[path * WORDS + (bit >>> 6)] & (1L << (bit & 63))) == 0;
    }

    /** Records {@code seq} (which {@link #fresh} accepted and whose tag verified) as received on {@code path}. */
    void accept(int path, long seq) {
        long h = highest[path];
        int base = path * WORDS;
        if (h < 0 || seq > h) {
            long from = h < 0 ? seq : h + 1;
            if (seq - from >= SIZE - 1) {
                for (int w = 0; w < WORDS; w++) {
                    seen[base + w] = 0;
                }
            } else {
                for (long s = from; s <= seq; s++) { // at most 256 bits cleared: the slots the window moves onto
                    int bit = (int) (s & (SIZE - 1));
                    seen[base + (bit >>> 6)] &= ~(1L << (bit & 63));
                }
            }
            highest[path] = seq;
        }
        int bit = (int) (seq & (SIZE - 1));
        seen[base + (bit >>> 6)] |= 1L << (bit & 63);
    }

    /** The highest number accepted on {@code path}, or -1 before any. */
    long highest(int path) {
        return highest[path];
    }

    /** Forgets everything (a QP reset). */
    void clear() {
        java.util.Arrays.fill(highest, -1);
        java.util.Arrays.fill(seen, 0);
    }
}
