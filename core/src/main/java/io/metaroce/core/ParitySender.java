package io.metaroce.core;

import io.metaroce.core.wire.Opcode;

import java.lang.foreign.MemorySegment;

/**
 * REL-18, sender side: which PARITY packets a QP owes and writing the next one. A message of WRITE or SEND of at
 * least two segments owes one PARITY over its last {@code parityTailSegments} segments (all of them when it has
 * fewer) once its last segment has gone out for the first time; it goes on that segment's path at the QP's next
 * poll, unless every segment it covers is acknowledged by then. Only the tail is covered: a segment lost mid-message
 * is resent while the rest of the message still flows, a lost tail is what makes a message, and every step of a
 * collective chained on it, wait a round trip or a timeout. With {@code parityRepairs} 2 a PARITY_Q over the same
 * segments follows each PARITY, at the next poll, on the next ACTIVE path (REL-20): one lossy route does not take both;
 * with more, PARITY_Rs of repairs 2, 3, ... follow the same way (REL-21), as many as {@code parityRepairs} or, with
 * {@code parityAdaptive}, as the peer's measured loss rate calls for ({@link ParityCount}).
 */
final class ParitySender {
    private final QpCore c;
    private final PacketWriter writer;
    private Path sentOn;

    ParitySender(QpCore c, PacketWriter writer) {
        this.c = c;
        this.writer = writer;
    }

    /**
     * Segment {@code seg} of {@code w} (queue {@code q}) has just gone out for the first time on {@code p} at
     * {@code nowNs}. With {@code parityAfterLossNs}, only while a loss to the peer was declared that recently.
     */
    void owe(int q, SendWqe w, int seg, Path p, long nowNs) {
        if (seg != w.segments - 1 || seg == 0 || w.op == Opcode.READ_REQ || w.op == Opcode.READ_RESP) {
            return;
        }
        long window = c.cfg.parityAfterLossNs;
        if (window > 0 && (p.peer.lastLossNs == Long.MIN_VALUE || nowNs - p.peer.lastLossNs > window)) {
            return;
        }
        int n = Math.min(c.cfg.parityTailSegments, w.segments);
        int repairs = c.cfg.parityAdaptive ? ParityCount.forLoss(n, p.peer.lossRate.rate(), c.cfg.parityRepairs)
                : c.cfg.parityRepairs; // REL-21
        c.parityOwed.owe(q, w.serial, p.id, 0, repairs);
    }

    /** Writes the owed PARITY into {@code out} if it is still of use; returns its length, 0 when none goes. */
    int next(long nowNs, MemorySegment out, Transmit tx) {
        ParityOwed owed = c.parityOwed;
        if (owed.isEmpty()) {
            return 0;
        }
        owed.take();
        int j = owed.repair();
        SendWqe w = c.queue(owed.queue()).live(owed.serial());
        if (w == null || w.done) {
            return 0;
        }
        int n = Math.min(c.cfg.parityTailSegments, w.segments); // the tail: the message's last n segments
        if (allAcked(w, w.segments - n, n)) {
            return 0;
        }
        sentOn = c.path(owed.path());
        if (j + 1 < owed.count()) {
            owed.owe(owed.queue(), owed.serial(), nextActive(sentOn).id, j + 1, owed.count());
        }
        return writer.parity(nowNs, sentOn, w, w.segments - n, n, j, out, tx);
    }

    /** The path of the PARITY {@link #next} wrote last. */
    Path sentOn() {
        return sentOn;
    }

    /**
     * The first ACTIVE path after {@code p} in path id order (wrapping) among those made (a path not made yet has
     * carried nothing), or {@code p} itself when there is none.
     */
    private Path nextActive(Path p) {
        int paths = c.paths.length;
        for (int k = 1; k < paths; k++) {
            Path o = c.paths[(p.id + k) % paths];
            if (o != null && o.state == PathState.ACTIVE) {
                return o;
            }
        }
        return p;
    }

    private static boolean allAcked(SendWqe w, int first, int count) {
        for (int k = first; k < first + count; k++) {
            if (!SendWqe.bit(w.acked, k)) {
                return false;
            }
        }
        return true;
    }
}
