package io.metaroce.cli.perf;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;

/**
 * The "done" message perf sides exchange over the RDMA connection itself (no side TCP channel), and the
 * immediates and work-request ids they use. All fields big-endian. The buffer message is the public
 * {@link io.metaroce.net.BufferInfo} (its tag carries the seed of the data pattern).
 */
final class Wire {
    private static final ValueLayout.OfLong LONG = ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);
    private static final ValueLayout.OfInt INT = ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);

    /** Immediate of the client's SEND_IMM that ends a test ("done"). */
    static final int DONE_IMM = 0xD0_4E_E0_01;
    /** Immediate of the server's SEND_IMM that answers "done" ("bye"). */
    static final int BYE_IMM = 0xB1_E0_B1_E0;
    /**
     * Immediate of the bandwidth server's SEND_IMM, on the first QP, that says its set-up is over ("ready"): the
     * client starts its data only then, so none of it waits for ACKs while the server prints its header.
     */
    static final int READY_IMM = 0x2E_AD_7E_AD;

    // work request id: type in the top byte, QP index in the next 16 bits, a sequence or slot below
    static final int WR_INFO_RECV = 1;
    static final int WR_INFO_SEND = 2;
    static final int WR_DATA = 3;
    static final int WR_DONE_SEND = 4;
    static final int WR_CTRL_RECV = 5;
    static final int WR_BYE_SEND = 6;
    static final int WR_DATA_RECV = 7;
    static final int WR_READY_SEND = 8;

    private Wire() {
    }

    static long wrId(int type, int qpIndex, long seq) {
        return (long) type << 56 | (long) (qpIndex & 0xFFFF) << 40 | (seq & 0xFF_FFFF_FFFFL);
    }

    static int wrType(long wrId) {
        return (int) (wrId >>> 56);
    }

    static int wrQp(long wrId) {
        return (int) (wrId >>> 40 & 0xFFFF);
    }

    static long wrSeq(long wrId) {
        return wrId & 0xFF_FFFF_FFFFL;
    }

    /**
     * The 32-byte "done" message: what the client measured on this QP (messages completed, first post to last
     * completion, message size, best 100 ms sample in bits/s), so the server can print and verify its side.
     */
    record Done(long messages, long elapsedNs, long size, long peakBps) {
        static final int BYTES = 32;

        void encode(MemorySegment seg, long off) {
            seg.set(LONG, off, messages);
            seg.set(LONG, off + 8, elapsedNs);
            seg.set(LONG, off + 16, size);
            seg.set(LONG, off + 24, peakBps);
        }

        static Done decode(MemorySegment seg, long off) {
            return new Done(seg.get(LONG, off), seg.get(LONG, off + 8), seg.get(LONG, off + 16),
                    seg.get(LONG, off + 24));
        }
    }
}
