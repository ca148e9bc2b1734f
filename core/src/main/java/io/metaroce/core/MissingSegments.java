package io.metaroce.core;

import io.metaroce.core.wire.NakHeader;

import java.util.Arrays;

/**
 * REL-16, the receiver's side of loss detection: a segment of a message that is still missing when a later segment
 * of the same message has arrived, and the lag the peer's slowest recent path could explain ({@link OneWayDelay})
 * plus a margin has passed, is reported to the sender at once with a NAK {@code MISSING} naming the message and the
 * segment's offset. The sender cannot see such a loss when the lost packet was the last one on its path (no later
 * PSN on that path is acknowledged); this names it half a round trip after the receiver knows, instead of a probe
 * or a timeout later. Each hole of a message is reported once, and a hole already NAKed TRIMMED (REL-17) is not
 * reported again; what happens to the resend is the sender's business.
 */
final class MissingSegments {
    private final QpCore c;
    /** The earliest pending check of any message of this QP (NO_DEADLINE: none). */
    long dueNs = Engine.NO_DEADLINE;
    /** CM-13: the peer did not announce that it understands NAK MISSING ({@code CAP_MISSING_NAK}); until a reset. */
    boolean peerRefuses;
    /**
     * Segments NAKed TRIMMED before any segment of their message arrived (the message is not open yet): the last
     * {@value #EARLY_TRIMS} of them, as (MSN, segment index; -1: free), taken over when their message opens. Null
     * until the QP's first such trim (a sender's first window into a full buffer can be trimmed whole: 7 senders'
     * first windows into 64 KB buffers left up to 32 per QP).
     */
    private int[] earlyMsn;
    private int[] earlySeg;
    private int earlyNext;
    private static final int EARLY_TRIMS = 64;

    MissingSegments(QpCore c) {
        this.c = c;
    }

    /** Whether this QP sends NAK MISSING: {@link EngineConfig#missingNak}, unless its peer cannot take them. */
    boolean enabled() {
        return c.cfg.missingNak && !peerRefuses;
    }

    void reset() {
        dueNs = Engine.NO_DEADLINE;
        if (earlySeg != null) {
            Arrays.fill(earlySeg, -1);
        }
    }

    /**
     * Segment {@code segIdx} of {@code m}, stamped {@code sentTs} by the peer, was placed at {@code nowNs}; it came on
     * path {@code p}, CE-marked if {@code ce} (then it reveals no hole: a queue is building, and what was sent before
     * it on another path may be late rather than lost). Call after counting it and before the message may retire.
     */
    void onSegment(InboundMessages.Msg m, int segIdx, long nowNs, long sentTs, Path p, boolean ce) {
        if (!enabled()) {
            return;
        }
        if (m.count == 1 && earlySeg != null) {
            adoptEarlyTrims(m); // the message's first segment: it opened just now
        }
        OneWayDelay owd = p.peer == null ? null : p.peer.oneWayDelay;
        if (owd != null) {
            owd.sample(nowNs, sentTs);
        }
        if (segIdx <= m.hiSeg || m.count == m.segments || ce) {
            return;
        }
        long lag = owd == null ? 0 : owd.lagNs(nowNs, sentTs); // only for a segment that may reveal a hole
        // a message's segments leave in order: every segment below this one was sent before it, and is overdue once
        // the slowest recent path's lag over this packet's delay, and the margin, have passed
        m.hiSeg = segIdx;
        m.hiSentTs = sentTs;
        m.hiDueNs = nowNs + lag + c.cfg.missingNakMarginNs;
        m.nakPath = p.id;
        if (m.dueNs == Engine.NO_DEADLINE && segIdx > m.nakUpTo) {
            m.dueSeg = segIdx;
            m.dueSentTs = sentTs;
            m.dueNs = m.hiDueNs;
            if (m.dueNs < dueNs) {
                dueNs = m.dueNs;
            }
        }
    }

    /**
     * REL-19: segment {@code segIdx} of {@code m} arrived (placed now, or a duplicate of its resend) at {@code nowNs}
     * on path {@code p}. When it was NAKed MISSING and this is its first transmission ({@code resend} false: not
     * flagged RETRANSMIT, which every resend and tail copy is), the NAK was spurious: the packet was late, not lost,
     * and the wait for the peer's holes grows by how late it was after the NAK ({@link OneWayDelay#widen}).
     */
    void onArrival(InboundMessages.Msg m, int segIdx, long nowNs, boolean resend, Path p) {
        if (resend || segIdx >= m.nakUpTo || m.lastNakNs == Engine.NO_DEADLINE || m.trimmed(segIdx)
                || p.peer == null || !enabled()) {
            return;
        }
        p.peer.oneWayDelay.widen(nowNs - m.lastNakNs);
        c.count(Counter.MISSING_NAKS_LATE);
    }

    /**
     * REL-16 with REL-17: segment {@code segIdx} of message {@code msn} arrived trimmed and was NAKed TRIMMED; a check
     * that finds its hole later does not report it again. For a message none of whose segments has arrived yet, the
     * last few such segments are remembered until it opens (a MISSING NAK for one forgotten is only stale at the
     * sender, never an error).
     */
    void onTrimmed(int msn, int segIdx) {
        if (!enabled() || segIdx < 0) {
            return;
        }
        InboundMessages.Msg m = c.inbound.openEntry(msn);
        if (m != null) {
            if (segIdx < m.segments) {
                m.markTrimmed(segIdx);
            }
            return;
        }
        int rel = c.inbound.relative(msn);
        if (rel >= 0 && rel < c.inbound.window) {
            if (earlySeg == null) {
                earlyMsn = new int[EARLY_TRIMS];
                earlySeg = new int[EARLY_TRIMS];
                Arrays.fill(earlySeg, -1);
            }
            earlyMsn[earlyNext] = msn;
            earlySeg[earlyNext] = segIdx;
            earlyNext = (earlyNext + 1) % EARLY_TRIMS;
        }
    }

    private void adoptEarlyTrims(InboundMessages.Msg m) {
        for (int i = 0; i < EARLY_TRIMS; i++) {
            if (earlySeg[i] >= 0 && earlyMsn[i] == m.msn) {
                if (earlySeg[i] < m.segments) {
                    m.markTrimmed(earlySeg[i]);
                }
                earlySeg[i] = -1;
            }
        }
    }

    /** Runs the checks that are due; re-arms {@link #dueNs} for the rest. */
    void onTimer(long nowNs) {
        if (dueNs == Engine.NO_DEADLINE || dueNs - nowNs > 0) {
            return;
        }
        long next = Engine.NO_DEADLINE;
        InboundMessages inbound = c.inbound;
        for (int i = 0, n = inbound.slots(); i < n; i++) {
            InboundMessages.Msg m = inbound.slotAt(i);
            if (m == null || !m.active) {
                continue;
            }
            while (m.dueNs != Engine.NO_DEADLINE && m.dueNs - nowNs <= 0) {
                nakHoles(m, m.dueSeg, nowNs);
                if (m.hiSeg > m.dueSeg) {
                    m.dueSeg = m.hiSeg;
                    m.dueSentTs = m.hiSentTs;
                    m.dueNs = m.hiDueNs;
                } else {
                    m.dueNs = Engine.NO_DEADLINE;
                }
            }
            if (m.dueNs < next) {
                next = m.dueNs;
            }
        }
        dueNs = next;
    }

    /**
     * NAKs every hole of {@code m} below segment {@code below} not reported before. The NAKed PSN field carries the
     * low 32 bits of the sender timestamp of segment {@code below}: the requester resends only what it sent no later
     * than that (a resend made since is not what this receiver missed).
     */
    private void nakHoles(InboundMessages.Msg m, int below, long nowNs) {
        int mtu = c.cfg.mtu;
        for (int s = m.nakUpTo; s < below; s++) {
            if (SendWqe.bit(m.bits, s) || m.trimmed(s)) {
                continue;
            }
            if (c.naks.pushNak(m.nakPath, (int) m.dueSentTs, m.msn, NakHeader.CODE_MISSING, s * mtu)) {
                c.count(Counter.MISSING_NAKS);
                m.lastNakNs = nowNs;
            } else {
                c.count(Counter.NAK_QUEUE_OVERFLOW); // the sender's own detection (REL-3, REL-14, RTO-6) remains
            }
        }
        m.nakUpTo = Math.max(m.nakUpTo, below);
    }
}
