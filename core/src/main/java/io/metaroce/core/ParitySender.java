package io.metaroce.core;

import io.metaroce.core.wire.Opcode;

import java.lang.foreign.MemorySegment;

/**
 * REL-18, sender side: which PARITY packets a QP owes and writing the next one. A message of WRITE or SEND of at
 * least two segments owes one PARITY over its last {@code parityTailSegments} segments (all of them when it has
 * fewer) once its last segment has gone out for the first time; it goes on that segment's path at the QP's next
 * poll, unless every segment it covers is acknowledged by then. Only the tail is covered: a segment lost mid-message
 * is resent while the rest of the message still flows, a lost tail is what makes a message, and every step of a
 * collective chained on it, wait a round trip or a timeout.
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
        c.parityJobs.push(q, w.serial, w.segments - n, n, p.id);
    }

    /** Writes the oldest PARITY still of use into {@code out}; returns its length, 0 when none is owed. */
    int next(long nowNs, MemorySegment out, Transmit tx) {
        ParityJobs jobs = c.parityJobs;
        while (!jobs.isEmpty()) {
            jobs.take();
            SendWqe w = c.queue(jobs.queue()).live(jobs.serial());
            if (w == null || w.done || allAcked(w, jobs.first(), jobs.count())) {
                continue;
            }
            sentOn = c.path(jobs.path());
            return writer.parity(nowNs, sentOn, w, jobs.first(), jobs.count(), out, tx);
        }
        return 0;
    }

    /** The path of the PARITY {@link #next} wrote last. */
    Path sentOn() {
        return sentOn;
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
