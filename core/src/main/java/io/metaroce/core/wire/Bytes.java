package io.metaroce.core.wire;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;

/** Big-endian (network byte order) unaligned accessors shared by every header view. */
final class Bytes {
    static final ValueLayout.OfShort U16 = ValueLayout.JAVA_SHORT_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);
    static final ValueLayout.OfInt U32 = ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);
    static final ValueLayout.OfLong U64 = ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);

    private Bytes() {
    }

    static int u8(MemorySegment s, long off) {
        return s.get(ValueLayout.JAVA_BYTE, off) & 0xFF;
    }

    static void u8(MemorySegment s, long off, int v) {
        s.set(ValueLayout.JAVA_BYTE, off, (byte) v);
    }

    static int u16(MemorySegment s, long off) {
        return s.get(U16, off) & 0xFFFF;
    }

    static void u16(MemorySegment s, long off, int v) {
        s.set(U16, off, (short) v);
    }

    static int i32(MemorySegment s, long off) {
        return s.get(U32, off);
    }

    static void i32(MemorySegment s, long off, int v) {
        s.set(U32, off, v);
    }

    static long i64(MemorySegment s, long off) {
        return s.get(U64, off);
    }

    static void i64(MemorySegment s, long off, long v) {
        s.set(U64, off, v);
    }
}
