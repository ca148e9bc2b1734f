package io.metaroce.core;

import io.metaroce.core.wire.Opcode;

/**
 * One outbound message: an application work request (WRITE, WRITE_IMM, SEND, SEND_IMM, READ) or, on a
 * responder, a READ response. Preallocated in a ring and reused; {@code serial} tells a live entry from a stale
 * reference held by an in-flight record or a retransmission entry.
 */
final class SendWqe {
    long serial = -1;
    int msn;
    /** Wire opcode of the packets it produces: a data opcode, READ_REQ or READ_RESP. */
    int op;
    long wrId;
    boolean signaled;
    MemoryRegion local;
    long localOffset;
    int length;
    long remoteVa;
    int rkey;
    int imm;
    int rsn;
    long sinkVa;
    /** Packets the message is sent as (a READ request is one). */
    int segments;
    int nextSeg;
    long[] acked = new long[1];
    int ackedCount;
    /** READ requester: response segments expected and received. */
    int recvSegments;
    long[] recv = new long[1];
    int recvCount;
    WcStatus status;
    boolean done;
    int rnrRetries;
    long rnrWaitUntilNs;
    boolean rnrWaiting;

    void init(long serial, int msn, int op, long wrId, boolean signaled, MemoryRegion local, long localOffset,
              int length, long remoteVa, int rkey, int imm, int rsn, long sinkVa, int mtu) {
        this.serial = serial;
        this.msn = msn;
        this.op = op;
        this.wrId = wrId;
        this.signaled = signaled;
        this.local = local;
        this.localOffset = localOffset;
        this.length = length;
        this.remoteVa = remoteVa;
        this.rkey = rkey;
        this.imm = imm;
        this.rsn = rsn;
        this.sinkVa = sinkVa;
        int dataSegs = segmentsOf(length, mtu);
        this.segments = op == Opcode.READ_REQ ? 1 : dataSegs;
        this.nextSeg = 0;
        this.acked = clearBits(acked, segments);
        this.ackedCount = 0;
        this.recvSegments = op == Opcode.READ_REQ ? dataSegs : 0;
        this.recv = clearBits(recv, recvSegments);
        this.recvCount = 0;
        this.status = null;
        this.done = false;
        this.rnrRetries = 0;
        this.rnrWaitUntilNs = 0;
        this.rnrWaiting = false;
    }

    static int segmentsOf(int length, int mtu) {
        return length == 0 ? 1 : (int) ((length + (long) mtu - 1) / mtu);
    }

    static long[] clearBits(long[] bits, int n) {
        int words = (n + 63) >>> 6;
        if (bits.length < words) {
            return new long[Math.max(words, bits.length * 2)];
        }
        java.util.Arrays.fill(bits, 0, Math.max(words, 1), 0L);
        return bits;
    }

    static boolean bit(long[] bits, int i) {
        return (bits[i >>> 6] >>> (i & 63) & 1L) != 0;
    }

    static void set(long[] bits, int i) {
        bits[i >>> 6] |= 1L << (i & 63);
    }

    /** Payload bytes of segment {@code seg}. */
    int segmentBytes(int seg, int mtu) {
        if (op == Opcode.READ_REQ) {
            return 0;
        }
        long off = (long) seg * mtu;
        return (int) Math.min(mtu, length - off);
    }

    WcOpcode wcOpcode() {
        return wcOpcodeOf(op);
    }

    /** The completion opcode of a work request whose packets carry {@code op}. */
    static WcOpcode wcOpcodeOf(int op) {
        return switch (op) {
            case Opcode.WRITE, Opcode.WRITE_IMM -> WcOpcode.RDMA_WRITE;
            case Opcode.READ_REQ -> WcOpcode.RDMA_READ;
            default -> WcOpcode.SEND;
        };
    }
}
