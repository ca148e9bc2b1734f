package io.metaroce.net;

import io.metaroce.core.MemoryRegion;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;

/**
 * What a peer needs to reach one of this side's buffers with RDMA WRITE or READ: its virtual address, its
 * length in bytes and its remote key, plus a 32-bit tag the application may use as it likes (the perf tool
 * sends the seed of the data pattern in it). Two programs exchange these before their first one-sided
 * operation, usually with one SEND each way over the new connection ({@link BufferExchange}).
 *
 * <p>On the wire (in a SEND's payload) it is {@value #BYTES} bytes, big-endian: address (8), length (8),
 * rkey (4), tag (4).
 *
 * @param address the buffer's first byte as the peer addresses it (a {@link MemoryRegion#address()} plus an
 *                offset)
 * @param length  usable bytes from {@code address}
 * @param rkey    the region's remote key ({@link MemoryRegion#rkey()})
 * @param tag     application data; 0 when unused
 */
public record BufferInfo(long address, long length, int rkey, int tag) {
    /** Encoded size in bytes. */
    public static final int BYTES = 24;

    private static final ValueLayout.OfLong LONG = ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);
    private static final ValueLayout.OfInt INT = ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);

    /**
     * Checks the length.
     *
     * @throws IllegalArgumentException if {@code length} is negative
     */
    public BufferInfo {
        if (length < 0) {
            throw new IllegalArgumentException("buffer length must be >= 0, got " + length);
        }
    }

    /**
     * The whole of {@code mr}, with tag 0.
     *
     * @param mr a registered region (with remote access if the peer is to use it)
     * @return its address, length and rkey
     */
    public static BufferInfo of(MemoryRegion mr) {
        return new BufferInfo(mr.address(), mr.length(), mr.rkey(), 0);
    }

    /**
     * Writes the {@value #BYTES}-byte encoding at {@code offset} of {@code seg}.
     *
     * @param seg    where to write
     * @param offset byte offset in {@code seg}
     * @throws IndexOutOfBoundsException if fewer than {@value #BYTES} bytes remain there
     */
    public void encode(MemorySegment seg, long offset) {
        seg.set(LONG, offset, address);
        seg.set(LONG, offset + 8, length);
        seg.set(INT, offset + 16, rkey);
        seg.set(INT, offset + 20, tag);
    }

    /**
     * Reads an encoding written by {@link #encode}.
     *
     * @param seg    where to read
     * @param offset byte offset in {@code seg}
     * @return the decoded buffer info
     * @throws IndexOutOfBoundsException if fewer than {@value #BYTES} bytes remain there
     * @throws IllegalArgumentException  if the encoded length is negative (not a buffer message)
     */
    public static BufferInfo decode(MemorySegment seg, long offset) {
        return new BufferInfo(seg.get(LONG, offset), seg.get(LONG, offset + 8), seg.get(INT, offset + 16),
                seg.get(INT, offset + 20));
    }

    /**
     * Whether {@code len} bytes at {@code offset} lie inside this buffer.
     *
     * @param offset byte offset from {@link #address()}
     * @param len    bytes
     * @return true if {@code 0 <= offset} and {@code offset + len <= length}
     */
    public boolean contains(long offset, long len) {
        return offset >= 0 && len >= 0 && offset <= length && len <= length - offset;
    }
}
