package io.metaroce.core;

/**
 * The responder's view of the requester's messages (spec ORD-*): MSNs in [retireMsn, retireMsn + window) are
 * tracked with a per-message segment bitmap so each segment is placed at most once; messages retire in MSN
 * order.
 */
final class InboundMessages {
    static final class Msg {
        boolean active;
        int msn;
        int op;
        int length;
        int segments;
        long[] bits = new long[1];
        int count;
        int rsn;
        int imm;
    }

    final Msg[] ring;
    final int mask;
    int retireMsn;

    InboundMessages(int window) {
        ring = new Msg[window]; // entries made on first use: thousands of QPs seldom fill their windows
        mask = window - 1;
    }

    void reset(int firstMsn) {
        retireMsn = firstMsn;
        for (Msg m : ring) {
            if (m != null) {
                m.active = false;
            }
        }
    }

    /** Position of {@code msn} relative to the window: negative = retired, >= window = beyond. */
    int relative(int msn) {
        return msn - retireMsn;
    }

    Msg slot(int msn) {
        Msg m = ring[msn & mask];
        if (m == null) {
            m = ring[msn & mask] = new Msg();
        }
        return m;
    }

    Msg open(int msn, int op, int length, int mtu, int rsn, int imm) {
        Msg m = slot(msn);
        m.active = true;
        m.msn = msn;
        m.op = op;
        m.length = length;
        m.segments = SendWqe.segmentsOf(length, mtu);
        m.bits = SendWqe.clearBits(m.bits, m.segments);
        m.count = 0;
        m.rsn = rsn;
        m.imm = imm;
        return m;
    }
}
