package io.metaroce.core;

import java.lang.foreign.MemorySegment;
import java.util.Arrays;

/**
 * XOR of memory ranges into an accumulator (REL-18 parity). Ranges are copied into a heap {@code long[]} in bulk and
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
        int words = (len + 7) >>> 3;
        if ((len & 7) != 0) {
            tmp[words - 1] = 0L;
        }
        MemorySegment.copy(src, off, tmpSeg, 0, len);
        long[] a = acc;
        long[] t = tmp;
        for (int i = 0; i < words; i++) {
            a[i] ^= t[i];
        }
    }

    /** Writes the accumulator's first {@code len} bytes to {@code dst[off, off + len)}. */
    void writeTo(MemorySegment dst, long off, int len) {
        MemorySegment.copy(accSeg, 0, dst, off, len);
    }
}
