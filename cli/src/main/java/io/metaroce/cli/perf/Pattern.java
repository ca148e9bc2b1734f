package io.metaroce.cli.perf;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;

/**
 * The seeded data pattern that {@code --verify} checks. A function of the pattern offset alone, so any slice
 * can be regenerated or checked without the rest: the 8 bytes at pattern offset {@code 8k} are the big-endian
 * bytes of {@code splitmix64(seed + k)}.
 */
final class Pattern {
    private static final ValueLayout.OfLong BE_LONG = ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);

    private Pattern() {
    }

    /** The pattern's byte at {@code patternOffset}. */
    static byte byteAt(long seed, long patternOffset) {
        long v = mix(seed + (patternOffset >>> 3));
        return (byte) (v >>> (56 - 8 * (int) (patternOffset & 7)));
    }

    /** Fills {@code seg[0, byteSize)} with the pattern from pattern offset 0. */
    static void fill(MemorySegment seg, long seed) {
        long n = seg.byteSize();
        long i = 0;
        for (; i + 8 <= n; i += 8) {
            seg.set(BE_LONG, i, mix(seed + (i >>> 3)));
        }
        for (; i < n; i++) {
            seg.set(ValueLayout.JAVA_BYTE, i, byteAt(seed, i));
        }
    }

    /**
     * Compares {@code seg[segOffset, segOffset + length)} with the pattern from {@code patternOffset}; returns
     * the offset into the compared range of the first difference, or -1 when equal.
     */
    static long mismatch(MemorySegment seg, long segOffset, long length, long seed, long patternOffset) {
        long i = 0;
        if ((patternOffset & 7) == 0) {
            for (; i + 8 <= length; i += 8) {
                if (seg.get(BE_LONG, segOffset + i) != mix(seed + ((patternOffset + i) >>> 3))) {
                    break; // find the exact byte below
                }
            }
        }
        for (; i < length; i++) {
            if (seg.get(ValueLayout.JAVA_BYTE, segOffset + i) != byteAt(seed, patternOffset + i)) {
                return i;
            }
        }
        return -1;
    }

    /** SplitMix64's finaliser: a well-mixed 64-bit value for every input. */
    static long mix(long z) {
        z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
        z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
        return z ^ (z >>> 31);
    }

    /** A per-side, per-QP pattern seed (fits the 32 bits the buffer message carries). */
    static int seedFor(long seed, int side, int qpIndex) {
        return (int) mix(seed * 31 + side * 1_000_003L + qpIndex);
    }
}
