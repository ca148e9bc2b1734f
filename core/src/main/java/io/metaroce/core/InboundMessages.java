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
        /**
         * REL-16: the highest segment index received (-1: none), its sender timestamp, and when the holes below it
         * are overdue.
         */
        int hiSeg;
        long hiSentTs;
        long hiDueNs;
        /**
         * REL-16: the pending check: holes below {@code dueSeg} (sent no later than {@code dueSentTs}, the sender's
         * clock) are NAKed at {@code dueNs} (NO_DEADLINE: none).
         */
        int dueSeg;
        long dueSentTs;
        long dueNs;
        /** REL-16: segments below this were checked (each hole is NAKed once); the path the NAK goes on. */
        int nakUpTo;
        int nakPath;
        /** REL-19: when this message's latest MISSING NAK was sent (NO_DEADLINE: none yet). */
        long lastNakNs;
        /** REL-16/REL-17: segments NAKed TRIMMED, not to be reported MISSING (null until the message's first trim). */
        long[] trimmedBits;

        /** Segment {@code seg} (below {@link #segments}) was NAKed TRIMMED. */
        void markTrimmed(int seg) {
            if (trimmedBits == null) {
                trimmedBits = new long[(segments + 63) >>> 6];
            }
            SendWqe.set(trimmedBits, seg);
        }

        /** Whether segment {@code seg} (below {@link #segments}) was NAKed TRIMMED. */
        boolean trimmed(int seg) {
            return trimmedBits != null && SendWqe.bit(trimmedBits, seg);
        }
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

    /** The entry of {@code msn} if a segment of it arrived and it has not retired; null otherwise. */
    Msg openEntry(int msn) {
        int rel = msn - retireMsn;
        if (rel < 0 || rel >= ring.length) {
            return null;
        }
        Msg m = ring[msn & mask];
        return m != null && m.active && m.msn == msn ? m : null;
    }

    /** Slots of the ring, for a scan over the tracked messages (REL-16); entries may be null or inactive. */
    int slots() {
        return ring.length;
    }

    /** The entry in ring slot {@code i} (null if never used). */
    Msg slotAt(int i) {
        return ring[i];
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
        m.hiSeg = -1;
        m.dueNs = Engine.NO_DEADLINE;
        m.nakUpTo = 0;
        m.lastNakNs = Engine.NO_DEADLINE;
        if (m.trimmedBits != null) {
            m.trimmedBits = SendWqe.clearBits(m.trimmedBits, m.segments); // sized for this message, as bits
        }
        return m;
    }
}
