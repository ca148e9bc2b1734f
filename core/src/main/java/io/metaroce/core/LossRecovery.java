package io.metaroce.core;

import io.metaroce.core.wire.AckHeader;
import io.metaroce.core.wire.AckHold;
import io.metaroce.core.wire.BaseHeader;
import io.metaroce.core.wire.NakHeader;
import io.metaroce.core.wire.Opcode;

import java.lang.foreign.MemorySegment;

/**
 * The sender's side of reliability for one QP (REL-*, SACK-*, RTO-*, NAK-*): reads ACKs (cumulative PSN and 256-bit
 * SACK per path), declares losses by gap (REL-3), by tail-loss probe (RTO-8) and, through {@link Rack}, by time
 * (REL-14); handles NAKs; fires and undoes retransmission timeouts (RTO-1..RTO-7) and moves path health on
 * timeouts (PATH-2..PATH-4).
 */
final class LossRecovery {
    private final QpCore c;
    private final Rack rack;
    private final PathProber prober;
    private final BaseHeader base = new BaseHeader();
    private final AckHeader ack = new AckHeader();
    private final NakHeader nak = new NakHeader();

    LossRecovery(QpCore c, Rack rack, PathProber prober) {
        this.c = c;
        this.rack = rack;
        this.prober = prober;
    }

    void onAck(long nowNs, Path p, MemorySegment seg) {
        c.count(Counter.RX_ACKS);
        base.wrap(seg, 0);
        ack.wrap(seg, BaseHeader.LENGTH);
        if (base.payloadLength() != 0) {
            c.count(Counter.DROP_MALFORMED);
            return;
        }
        int cum = ack.cumPsn();
        if (cum - (p.nextPsn - 1) > 0) {
            c.count(Counter.DROP_MALFORMED); // acknowledges PSNs never sent
            return;
        }
        long echoTs = ack.echoTimestampNs();
        if (p.rtoUndoArmed()) {
            PathFaults f = p.faults();
            if (echoTs - f.rtoAtNs >= 0
                    || nowNs - f.rtoAtNs > 4 * Math.max(p.srttNs(), c.cfg.minRtoNs) + PathDeadlines.peerHoldNs(p)) {
                f.rtoUndoArmed = false; // the receiver has heard from us since the RTO: nothing to undo
            } else if (cum - f.rtoLowPsn >= 0) {
                // RTO-7 (Eifel): this ACK echoes a packet sent before the timeout and covers the PSNs the
                // timeout declared lost: the originals arrived, the timeout was spurious. Undo its damage.
                undoRto(p);
            }
        }
        p.peer.grant.onAck(ack.grantMbps(), nowNs); // HINT-3; HINT-7: the peer is scheduled again
        long newlyBytes = scanSack(p, cum);
        int newlyPackets = scanNewlyPackets;
        int ce = ack.ceCount();
        if (ce > 0) {
            c.add(Counter.ECN_ECHOES, ce);
            PathSendState s = p.tx();
            s.ecnEchoes += ce;
            s.lastCeNs = nowNs;
            p.route().lastCeNs = nowNs;
        }
        if ((base.flags() & BaseHeader.FLAG_ACK_HOLD) != 0 && c.cfg.ackHoldWindowNs > 0 && p.peer != null) {
            // RTO-10: the peer says how long it held what this ACK is the first to acknowledge (ACK-12). RTT samples
            // keep the hold: the tail-loss probe's timer (RTO-6) goes by srtt and rttvar, and without the peer's
            // stalls in them it fired in every stall (measured: twice the tail copies on the test bed); a hold longer
            // than the settle time starts the peer's drain (REL-14 and the routes' timeouts wait it out)
            p.peer.onHold(nowNs, AckHold.longestNs(base.psnFloor()), PathDeadlines.drainSettleNs(p, c.cfg));
        }
        if (newlyPackets > 0) {
            p.onRttSample(nowNs - echoTs, c.cfg.minRtoNs, c.cfg.maxRtoNs);
            p.lastProgressNs = nowNs;
            PathSendState s = p.tx();
            s.backoff = 0;
            c.silentTimeouts = 0;
            s.consecutiveTimeouts = 0;
            s.tlps = 0;
            p.rackStreak = 0;
            if (p.state == PathState.SUSPECT) {
                p.setState(PathState.ACTIVE);
            }
        }
        if (p.tlpCheck && echoTs - p.tx().tlpAtNs >= 0) {
            settleTail(p, nowNs);
        }
        // REL-3: a PSN still unacknowledged reorderThreshold below the highest acknowledged one is lost.
        if (p.anyAcked()) {
            PathSendState s = p.tx();
            for (int psn = p.floor; s.highestAcked - psn >= c.cfg.reorderThreshold
                    || c.cfg.seam.goBackN() && s.sackGaps > 0 && psn != p.nextPsn; psn++) {
                int i = p.slot(psn);
                if (p.recState[i] == Path.INFLIGHT) {
                    c.declareLost(p, i, nowNs, 0, false);
                    s.sackGaps++;
                    c.count(Counter.SACK_GAPS);
                    p.route().onLoss(nowNs);
                }
            }
        }
        c.advanceFloor(p, nowNs);
        if (newlyPackets > 0) {
            p.route().onAck(newlyPackets, newlyBytes, ce, nowNs);
        }
        if (scanAckedAny) {
            rack.onAcked(scanNewestSentNs, nowNs);
        }
        if (c.cfg.parityTailSegments > 0) {
            c.peerRetiredBelow(ack.rxMsn()); // REL-18: what the peer rebuilt is never acknowledged by PSN
        }
        c.retireSends();
        c.retireResponses();
    }

    // results of scanSack besides the bytes it returns (fields, not an allocation per ACK)
    private int scanNewlyPackets;
    private boolean scanAckedAny;
    private long scanNewestSentNs;

    /**
     * SACK-1/2: marks acknowledged every record of {@code p} covered by the cumulative PSN or a SACK bit; returns the
     * bytes newly acknowledged (and sets the scan fields).
     */
    private long scanSack(Path p, int cum) {
        long w0 = ack.sackWord(0);
        long w1 = ack.sackWord(1);
        long w2 = ack.sackWord(2);
        long w3 = ack.sackWord(3);
        int newlyPackets = 0;
        long newlyBytes = 0;
        long newestSentNs = rack.newestAckedSentNs(0);
        boolean ackedAny = false; // some packet acknowledged whose send time REL-14 may use
        long pathNewestSentNs = Long.MIN_VALUE; // PATH-16: the newest send time acknowledged on this path
        for (int psn = p.floor; psn != p.nextPsn; psn++) {
            int i = p.slot(psn);
            byte st = p.recState[i];
            if (st != Path.INFLIGHT && st != Path.LOST && st != Path.LOST_HELD) {
                continue;
            }
            int d = psn - cum;
            boolean acked;
            if (d <= 0) {
                acked = true;
            } else if (d <= Path.WINDOW) {
                int b = d - 1;
                long w = b < 64 ? w0 : b < 128 ? w1 : b < 192 ? w2 : w3;
                acked = (w >>> (b & 63) & 1L) != 0;
            } else {
                acked = false;
            }
            if (!acked) {
                continue;
            }
            if (st == Path.INFLIGHT && (!ackedAny && !rack.valid() || p.recSentNs[i] - newestSentNs > 0)) {
                newestSentNs = p.recSentNs[i]; // (a lost record's time is its declaration's: REL-15)
                ackedAny = true;
            }
            if (st == Path.LOST || st == Path.LOST_HELD) {
                rack.onSpuriousLoss(st);
            }
            if (st == Path.INFLIGHT) {
                if (pathNewestSentNs == Long.MIN_VALUE || p.recSentNs[i] - pathNewestSentNs > 0) {
                    pathNewestSentNs = p.recSentNs[i];
                }
                p.removeInflight(p.recBytes[i]);
                newlyPackets++;
                newlyBytes += p.recBytes[i];
                PathSendState s = p.tx();
                if (!s.anyAcked || psn - s.highestAcked > 0) {
                    s.highestAcked = psn;
                    s.anyAcked = true;
                }
            }
            p.recState[i] = Path.ACKED;
            c.onSegmentAcked(p.recQueue[i], p.recSerial[i], p.recSeg[i]);
        }
        scanNewlyPackets = newlyPackets;
        scanAckedAny = ackedAny;
        scanNewestSentNs = newestSentNs;
        SharedPath route = p.route();
        if (pathNewestSentNs != Long.MIN_VALUE && (route.newestDeliveredSentNs == Long.MIN_VALUE
                || pathNewestSentNs - route.newestDeliveredSentNs > 0)) {
            route.newestDeliveredSentNs = pathNewestSentNs;
        }
        return newlyBytes;
    }

    /**
     * RTO-8: this ACK left the receiver after a packet sent since the tail-loss probe was due; a path delivers in
     * order, so what was sent before the probe and is still unacknowledged was lost.
     */
    private void settleTail(Path p, long nowNs) {
        p.tlpCheck = false;
        boolean lost = false;
        long tlpAtNs = p.tx().tlpAtNs;
        for (int psn = p.floor; psn != p.nextPsn; psn++) {
            int i = p.slot(psn);
            if (p.recState[i] == Path.INFLIGHT && p.recSentNs[i] - tlpAtNs < 0) {
                c.declareLost(p, i, nowNs, 0, false);
                c.count(Counter.TAIL_LOSSES);
                lost = true;
            }
        }
        if (lost) {
            p.route().onLoss(nowNs);
            p.tx().tlps = 0; // what is sent next (the resends, maybe here) may need a probe of its own
            p.lastProgressNs = nowNs;
        }
    }

    void onNak(long nowNs, Path p, MemorySegment seg) {
        c.count(Counter.RX_NAKS);
        base.wrap(seg, 0);
        nak.wrap(seg, BaseHeader.LENGTH);
        if (nak.code() == NakHeader.CODE_MISSING && base.payloadLength() == 0) {
            onMissing(nowNs);
            return;
        }
        int psn = nak.nakPsn();
        if (base.payloadLength() != 0 || psn - p.floor < 0 || psn - p.nextPsn >= 0
                || p.recState[p.slot(psn)] != Path.INFLIGHT) {
            c.count(Counter.DROP_STALE_NAK);
            return;
        }
        int i = p.slot(psn);
        SendWqe w = c.recordWqe(p, i);
        if (w == null || w.msn != nak.msn()) {
            c.count(Counter.DROP_STALE_NAK);
            return;
        }
        switch (nak.code()) {
            case NakHeader.CODE_RNR, NakHeader.CODE_BUSY -> {
                c.count(Counter.RNR_NAKS_RECEIVED);
                // NAK-7: one retry per wait, however many of the message's packets were NAKed in it.
                if (!w.rnrWaiting || nowNs - w.rnrWaitUntilNs >= 0) {
                    w.rnrWaiting = true;
                    w.rnrRetries++;
                    w.rnrWaitUntilNs = nowNs + Math.max(1, c.cfg.rnrDelayNs);
                }
                if (w.rnrRetries > c.cfg.rnrRetryLimit) {
                    c.declareLost(p, i, nowNs, 0, false);
                    c.failRequest(w, WcStatus.RNR_RETRY_EXC_ERR);
                } else {
                    c.declareLost(p, i, nowNs, Math.max(1, c.cfg.rnrDelayNs), false);
                }
            }
            case NakHeader.CODE_BAD_RKEY, NakHeader.CODE_OUT_OF_BOUNDS, NakHeader.CODE_NO_PERMISSION -> {
                c.declareLost(p, i, nowNs, 0, false);
                c.failRequest(w, WcStatus.REM_ACCESS_ERR);
            }
            case NakHeader.CODE_INVALID_REQUEST -> {
                c.declareLost(p, i, nowNs, 0, false);
                c.failRequest(w, WcStatus.REM_INV_REQ_ERR);
            }
            case NakHeader.CODE_TRIMMED -> { // REL-17: lost in a full buffer; resent at once, the window reacts (CC-4)
                c.declareLost(p, i, nowNs, 0, false);
                c.count(Counter.TRIM_LOSSES);
                p.route().onLoss(nowNs);
            }
            default -> {
                c.declareLost(p, i, nowNs, 0, false);
                c.failRequest(w, WcStatus.REM_OP_ERR);
            }
        }
        c.advanceFloor(p, nowNs);
    }

    /**
     * REL-16: the receiver reports a segment of a message missing while later ones arrived. The segment's record still
     * in flight, sent at least its route's smallest round trip ago (a resend younger than that cannot be what the
     * receiver missed), is lost: resent at once, and the route's window reacts as to any detected loss (CC-4).
     */
    private void onMissing(long nowNs) {
        int msn = nak.msn();
        int offset = nak.offset();
        int mtu = c.cfg.mtu;
        SendWqe w = c.sq.slotOfMsn(msn);
        if (w == null || c.sq.live(w.serial) != w || w.msn != msn || w.done || w.op == Opcode.READ_REQ
                || offset < 0 || offset % mtu != 0 || offset / mtu >= w.segments
                || SendWqe.bit(w.acked, offset / mtu)) {
            c.count(Counter.DROP_STALE_NAK); // acknowledged, completed or never sent: nothing to resend
            return;
        }
        int seg = offset / mtu;
        int revealedAt = nak.nakPsn(); // the revealing segment's timestamp, low 32 bits
        boolean found = false;
        for (Path q : c.paths) {
            if (q == null || q.recordCapacity() == 0) {
                continue;
            }
            for (int psn = q.floor; psn != q.nextPsn; psn++) {
                int i = q.slot(psn);
                if (q.recState[i] == Path.INFLIGHT && q.recQueue[i] == QpCore.Q_SEND && q.recSerial[i] == w.serial
                        && q.recSeg[i] == seg && (int) q.recSentNs[i] - revealedAt <= 0) {
                    if (q.rackStreak >= Rack.STREAK_LIMIT) {
                        break; // as REL-14: a path that keeps losing without progress is left to its RTO (PATH-4)
                    }
                    c.declareLost(q, i, nowNs, 0, false);
                    q.rackStreak++;
                    c.count(Counter.MISSING_LOSSES);
                    q.route().onLoss(nowNs);
                    c.advanceFloor(q, nowNs);
                    found = true;
                    break;
                }
            }
        }
        if (!found) {
            c.count(Counter.DROP_STALE_NAK); // resent since the hole was seen, or acknowledged meanwhile
        }
    }

    /** RTO-7: the timeouts of a series proved spurious; undo their damage (window, backoff, path health). */
    private void undoRto(Path p) {
        PathFaults f = p.faults();
        f.rtoUndoArmed = false;
        p.route().undoTimeout();
        // the backoff stays (RTO-7): under a standing queue a timer that keeps firing early must keep growing
        p.tx().consecutiveTimeouts = 0;
        if (p.state != PathState.ACTIVE) {
            // The path delivered all along: whatever the timeouts made of it (SUSPECT, FAILED, PROBING) is undone.
            p.setState(PathState.ACTIVE);
            p.probeDeadlineNs = Engine.NO_DEADLINE;
            p.probeDue = false;
            f.probeSuccesses = 0;
            c.allFailedSinceNs = Engine.NO_DEADLINE;
            if (p.route().prober == p) {
                PathProber.routeAnswered(p.route()); // PATH-17: the route delivered all along
            }
        }
        f.spuriousTimeouts++;
        c.count(Counter.SPURIOUS_TIMEOUTS);
    }

    /** Send time of the oldest packet in flight on {@code p} ({@code Long.MAX_VALUE} when none). */
    private static long oldestInflightSentNs(Path p) {
        for (int psn = p.floor; psn != p.nextPsn; psn++) {
            int i = p.slot(psn);
            if (p.recState[i] == Path.INFLIGHT) {
                return p.recSentNs[i];
            }
        }
        return Long.MAX_VALUE;
    }

    /** RTO-1..RTO-4 and PATH-2..PATH-4: the path's retransmission timer expired. */
    void onRto(Path p, long nowNs) {
        PathFaults f = p.faults();
        f.timeouts++;
        c.count(Counter.TIMEOUTS);
        // PATH-16: the route delivered something (of any QP) sent after the oldest packet this timeout declares lost
        boolean routeAlive = p.route().deliveredSince(oldestInflightSentNs(p));
        boolean first = !routeAlive && !f.rtoUndoArmed; // nothing for RTO-7 to undo when the route is alive
        if (first) {
            f.rtoUndoArmed = true;
            f.rtoAtNs = nowNs;
            f.rtoLowPsn = p.floor;
        }
        for (int psn = p.floor; psn != p.nextPsn; psn++) {
            int i = p.slot(psn);
            if (p.recState[i] == Path.INFLIGHT) {
                c.declareLost(p, i, nowNs, 0, true);
            }
        }
        c.advanceFloor(p, nowNs);
        p.lastProgressNs = nowNs;
        if (routeAlive) {
            // a loss on a working route: the window reacts as to a detected loss (CC-4); the path's state, its
            // backoff and the QP's silence count stay as they are (the route is not silent: resend at the base RTO)
            c.count(Counter.ROUTE_ALIVE_TIMEOUTS);
            p.route().onLoss(nowNs);
            return;
        }
        PathSendState s = p.tx();
        s.backoff++;
        if (c.silentTimeouts == 0 || nowNs - c.silentRoundEndNs >= 0) {
            // RTO-9: one count per round of the QP's backed-off timeout, however many paths time out within it
            c.silentTimeouts++;
            c.silentRoundEndNs = nowNs + PathDeadlines.currentRtoNs(p, c.cfg.maxRtoNs, c.silentTimeouts);
        }
        p.route().onTimeout(nowNs, first);
        boolean congested = s.lastCeNs != Long.MIN_VALUE
                && nowNs - s.lastCeNs <= 4 * Math.max(s.srttNs, c.cfg.minRtoNs);
        if (congested) {
            return; // PATH-3: ECN says congestion, not failure
        }
        s.consecutiveTimeouts++;
        if (s.consecutiveTimeouts >= c.cfg.failAfterTimeouts) {
            prober.fail(p, nowNs);
        } else if (p.state == PathState.ACTIVE) {
            p.setState(PathState.SUSPECT);
        }
    }
}
