package io.metaroce.core;

import java.lang.foreign.MemorySegment;
import java.util.Arrays;

/**
 * XOR of memory ranges into an accumulator (REL-18 parity; with doubling in GF(2^8) between ranges, REL-20's Q
 * syndrome). Ranges are copied into a heap {@code long[]} in bulk and
 * combined there in a plain loop the JIT vectorizes: element-wise access through a native segment's bounds checks was
 * ~3x slower and, done inside a duty cycle, held back the datagrams of the same batch.
 */
final class Xor {
    private final long[] acc;
    private final long[] tmp;
    private final MemorySegment accSeg;
    private final MemorySegment tmpSeg;

    /** An accumulator for ranges of at most {@code maxBytes}. */
    Xor(int maxBytes) {
        acc = new long[(maxBytes + 7) >>> 3];
        tmp = new long[acc.length];
        accSeg = MemorySegment.ofArray(acc);
        tmpSeg = MemorySegment.ofArray(tmp);
    }

    /** Starts from {@code src[off, off + len)} (the rest of the accumulator zero). */
    void start(MemorySegment src, long off, int len) {
        Arrays.fill(acc, 0L);
        MemorySegment.copy(src, off, accSeg, 0, len);
    }

    /** XORs {@code src[off, off + len)} into the accumulator. */
    void add(MemorySegment src, long off, int len) {
        int words = load(src, off, len);
        long[] a = acc;
        long[] t = tmp;
        for (int i = 0; i < words; i++) {
            a[i] ^= t[i];
        }
    }

    /**
     * REL-20, REL-21: the accumulator times {@code 2^j} in GF(2^8) ({@code j} doublings, {@link Gf256#times2}), then
     * {@code src[off, off + len)} XORed in: the step of Horner's rule for repair {@code j}. Every byte of the
     * accumulator up to {@code len} (rounded up to whole words) is multiplied, so {@code len} must cover what
     * {@link #start} loaded.
     */
    void timesPow2Add(int j, MemorySegment src, long off, int len) {
        int words = load(src, off, len);
        long[] a = acc;
        long[] t = tmp;
        for (int i = 0; i < words; i++) {
            long x = a[i];
            for (int k = 0; k < j; k++) {
                x = Gf256.times2(x);
            }
            a[i] = x ^ t[i];
        }
    }

    /** Copies {@code src[off, off + len)} into {@code tmp}, zero-padded to whole words; returns the word count. */
    private int load(MemorySegment src, long off, int len) {
        int words = (len + 7) >>> 3;
        if ((len & 7) != 0) {
            tmp[words - 1] = 0L;
        }
        MemorySegment.copy(src, off, tmpSeg, 0, len);
        return words;
    }

    /** Writes the accumulator's first {@code len} bytes to {@code dst[off, off + len)}. */
    void writeTo(MemorySegment dst, long off, int len) {
        MemorySegment.copy(accSeg, 0, dst, off, len);
    }
}
