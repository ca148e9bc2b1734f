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

    private static final int INITIAL = 8;
    /** MSNs tracked at once (ORD-6): the send queue depth. */
    final int window;
    private Msg[] ring;
    private int mask;
    int retireMsn;

    InboundMessages(int window) {
        this.window = window;
        // a small ring that doubles up to the window as messages arrive: thousands of QPs seldom fill their windows
        ring = new Msg[Math.min(window, INITIAL)];
        mask = ring.length - 1;
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

    /** The entry of {@code msn}, which must lie in [retireMsn, retireMsn + window); made on first use. */
    Msg slot(int msn) {
        int rel = msn - retireMsn;
        if (rel >= ring.length) {
            grow(rel + 1);
        }
        Msg m = ring[msn & mask];
        if (m == null) {
            m = ring[msn & mask] = new Msg();
        }
        return m;
    }

    private void grow(int needed) {
        int n = ring.length;
        while (n < needed) {
            n *= 2;
        }
        Msg[] bigger = new Msg[n];
        for (Msg m : ring) {
            if (m != null && m.active) {
                bigger[m.msn & (n - 1)] = m; // an active message lies within the window: its new place is free
            }
        }
        ring = bigger;
        mask = n - 1;
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
