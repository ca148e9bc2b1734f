package io.metaroce.core;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/** Byte-wise XOR of one memory range into another (REL-18 parity), eight bytes at a time. */
final class Xor {
    private static final ValueLayout.OfLong LONG = ValueLayout.JAVA_LONG_UNALIGNED;

    private Xor() {
    }

    /** {@code dst[dstOff, dstOff + len) ^= src[srcOff, srcOff + len)}. */
    static void into(MemorySegment dst, long dstOff, MemorySegment src, long srcOff, int len) {
        int i = 0;
        for (; i + 8 <= len; i += 8) {
            dst.set(LONG, dstOff + i, dst.get(LONG, dstOff + i) ^ src.get(LONG, srcOff + i));
        }
        for (; i < len; i++) {
            dst.set(ValueLayout.JAVA_BYTE, dstOff + i,
                    (byte) (dst.get(ValueLayout.JAVA_BYTE, dstOff + i) ^ src.get(ValueLayout.JAVA_BYTE, srcOff + i)));
        }
    }
}
