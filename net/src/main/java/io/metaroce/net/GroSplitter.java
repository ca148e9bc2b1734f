package io.metaroce.net;

import java.lang.foreign.MemorySegment;

/**
 * Splits a received buffer into the datagrams it holds. Without GRO a buffer is one datagram; with
 * {@code UDP_GRO} the kernel may hand over a run of datagrams coalesced back to back, every one
 * {@code segmentSize} bytes long except the last, which may be shorter (the run's tail), together with that
 * segment size. Each datagram of this protocol is self-describing (its own headers), so each segment is one
 * whole packet.
 *
 * <p>The datagram views are slices of the receive slot, made once per slot and segment size and kept (a few
 * sizes per slot: data and ACKs differ), so splitting allocates nothing in steady state.
 */
final class GroSplitter {
    /** Most datagrams the kernel coalesces into one buffer (its UDP_GRO_CNT_MAX). */
    static final int MAX_SEGMENTS = 64;
    private static final int WAYS = 4;

    /** Receives each datagram of a split buffer. */
    interface Sink {
        /** One datagram: {@code length} bytes at the start of {@code dgram}; {@code slot} is the buffer's slot. */
        void datagram(MemorySegment dgram, int length, int slot);
    }

    private final MemorySegment[] slots;
    private final int[][] waySize;
    private final MemorySegment[][][] views;
    private final int[] nextWay;

    GroSplitter(PacketBatch batch) {
        this.slots = batch.slots;
        int n = slots.length;
        this.waySize = new int[n][WAYS];
        this.views = new MemorySegment[n][WAYS][];
        this.nextWay = new int[n];
    }

    /**
     * Hands {@code sink} every datagram of slot {@code slot}, which holds {@code length} bytes received with GRO
     * segment size {@code segmentSize} (0 or at least {@code length}: one datagram). Returns how many.
     */
    int split(int slot, int length, int segmentSize, Sink sink) {
        MemorySegment buf = slots[slot];
        if (segmentSize <= 0 || length <= segmentSize) {
            sink.datagram(buf, Math.max(0, length), slot);
            return 1;
        }
        MemorySegment[] v = viewsFor(slot, segmentSize);
        int n = 0;
        for (int off = 0; off < length; off += segmentSize, n++) {
            int len = Math.min(segmentSize, length - off);
            MemorySegment d;
            if (n == 0) {
                d = buf;
            } else if (n < v.length) {
                d = v[n];
                if (d == null) {
                    d = v[n] = buf.asSlice(off);
                }
            } else {
                d = buf.asSlice(off); // more segments than the kernel makes: correct, if not allocation-free
            }
            sink.datagram(d, len, slot);
        }
        return n;
    }

    private MemorySegment[] viewsFor(int slot, int segmentSize) {
        int[] sizes = waySize[slot];
        for (int w = 0; w < WAYS; w++) {
            if (sizes[w] == segmentSize) {
                return views[slot][w];
            }
        }
        int w = nextWay[slot];
        nextWay[slot] = (w + 1) % WAYS;
        sizes[w] = segmentSize;
        views[slot][w] = new MemorySegment[Math.min(MAX_SEGMENTS, (int) (slots[slot].byteSize() / segmentSize) + 1)];
        return views[slot][w];
    }
}
