package io.metaroce.core;

/**
 * One QP's timers: delayed ACKs (ACK-2), retransmission timeouts (RTO-1), tail-loss probes (RTO-6), probe
 * deadlines (PATH-5), pacing, the REL-14 reordering timer, the REL-16 missing-segment check, RNR holds (NAK-7),
 * the probe budget (PATH-13) and the connection timeout (PATH-9). {@link #nextDeadline()} is the earliest of them; {@link #onTimeout(long)} fires
 * every one that expired and nothing else (spurious calls are no-ops).
 */
final class QpTimers {
    private final QpCore c;
    private final LossRecovery recovery;
    private final Rack rack;
    private final PathProber prober;
    private final TransmitScheduler scheduler;

    /** Set by {@link #nextDeadline()}: this QP's earliest deadline that only lets it transmit (NO_DEADLINE: none). */
    long sendDeadlineNs = Engine.NO_DEADLINE;

    QpTimers(QpCore c, LossRecovery recovery, Rack rack, PathProber prober, TransmitScheduler scheduler) {
        this.c = c;
        this.recovery = recovery;
        this.rack = rack;
        this.prober = prober;
        this.scheduler = scheduler;
    }

    /**
     * Earliest deadline of this QP whose timer changes its state, or {@link Engine#NO_DEADLINE}; the earliest one
     * that only lets it transmit (a delayed ACK falling due, ACK-2; the grant's next slot, HINT-3) is left in
     * {@link #sendDeadlineNs}. Only the paths in the QP's armed mask are looked at (a path is armed when it takes a
     * packet into flight, accepts one to acknowledge or sets a probe deadline); a path found with none of these left
     * is dropped from the mask, so an idle path costs nothing here.
     */
    long nextDeadline() {
        sendDeadlineNs = Engine.NO_DEADLINE;
        if (!c.running()) {
            return Engine.NO_DEADLINE;
        }
        EngineConfig cfg = c.cfg;
        long d = Engine.NO_DEADLINE;
        long send = Engine.NO_DEADLINE; // deadlines that only let the QP transmit
        long newestAckedSentNs = rack.newestAckedSentNs(Long.MIN_VALUE);
        long[] armed = c.armedPaths;
        Path[] paths = c.paths;
        for (int w = 0; w < armed.length; w++) {
            long bits = armed[w];
            while (bits != 0) {
                int b = Long.numberOfTrailingZeros(bits);
                bits &= bits - 1;
                Path p = paths[(w << 6) + b];
                if (p.timersIdle()) {
                    armed[w] &= ~(1L << b);
                    continue;
                }
                if (p.rxPending > 0 && p.ackDeadlineNs < send) {
                    send = p.ackDeadlineNs;
                }
                if (p.inflightPackets > 0) {
                    long rto = PathDeadlines.rtoDeadlineNs(p, cfg.maxRtoNs, c.silentTimeouts, newestAckedSentNs);
                    if (rto < d) {
                        d = rto;
                    }
                    long tlp = PathDeadlines.tailProbeAtNs(p, cfg.ackDelayNs, cfg.tailCopy);
                    if (tlp < d) {
                        d = tlp;
                    }
                }
                if (p.probeDeadlineNs < d) {
                    d = p.probeDeadlineNs;
                }
            }
        }
        if (c.grantBps > 0 && c.state == QpState.RTS && scheduler.grantNextNs < send && c.hasDataToSend()
                && grantCanSend()) {
            send = scheduler.grantNextNs;
        }
        sendDeadlineNs = send;
        if (rack.timerNs < d) {
            d = rack.timerNs;
        }
        if (c.missing.dueNs < d) {
            d = c.missing.dueNs; // REL-16
        }
        if (prober.throttled()) {
            d = Math.min(d, c.engine.probeBudget.nextTokenNs());
        }
        if (!c.held.isEmpty() && c.held.headNotBefore() < d) {
            d = c.held.headNotBefore();
        }
        if (c.allFailedSinceNs != Engine.NO_DEADLINE) {
            d = Math.min(d, c.allFailedSinceNs + cfg.connectionTimeoutNs);
        }
        return d;
    }

    /**
     * HINT-3: whether a path could send when the QP-wide grant next allows: eligible, with room, and its route's
     * pacing slot due by then (a deadline at which nothing can be sent would have the driver call us in a loop). A
     * route's own pacing slot is not timed here: the QP waits in the route's pacing queue, which wakes one QP per
     * slot (CC-5, PATH-18).
     */
    private boolean grantCanSend() {
        long ready = scheduler.grantNextNs;
        for (Path p : c.paths) {
            if (QpCore.sendable(p) && scheduler.windowOpen(p) && ready - p.shared.nextSendNs >= 0) {
                return true;
            }
        }
        return false;
    }

    /**
     * The deadline in {@link #sendDeadlineNs} has passed and the line is free: a delayed ACK due is looked for at the
     * next poll (the grant's slot needs nothing: the poll checks it).
     */
    void onSendDue() {
        c.ackWork = true;
    }

    /** Fires every expired timer; a call with nothing expired changes nothing. */
    void onTimeout(long nowNs) {
        if (!c.running()) {
            return;
        }
        EngineConfig cfg = c.cfg;
        int silent = c.silentTimeouts; // RTO-9: timers due together all fire, whatever the first of them counts
        long[] armed = c.armedPaths;
        Path[] paths = c.paths;
        for (int w = 0; w < armed.length; w++) {
            for (long bits = armed[w]; bits != 0; bits &= bits - 1) {
                fire(paths[(w << 6) + Long.numberOfTrailingZeros(bits)], nowNs, silent);
            }
        }
        if (rack.timerNs != Engine.NO_DEADLINE && rack.timerNs - nowNs <= 0) {
            rack.detect(nowNs); // re-arms itself if something is still pending
        }
        c.missing.onTimer(nowNs); // REL-16: NAKs what is overdue, re-arms for the rest
        RetransmitQueue held = c.held;
        while (!held.isEmpty() && held.headNotBefore() - nowNs <= 0) {
            c.retx.push(held.headQueue(), held.headSerial(), held.headSeg(), held.headAttempt(), 0);
            held.pop();
        }
        if (c.allFailedSinceNs != Engine.NO_DEADLINE && c.allFailedSinceNs + cfg.connectionTimeoutNs - nowNs <= 0) {
            // PATH-9: every path stayed failed for the connection timeout
            SendWqe w = c.sq.head != c.sq.tail ? c.sq.at(c.sq.head) : null;
            if (w != null) {
                QpCore.finish(w, WcStatus.RETRY_EXC_ERR);
            }
            c.enterError(w);
        }
    }

    /** Fires {@code p}'s expired timers: its delayed ACK, RTO or tail-loss probe, and probe deadline. */
    private void fire(Path p, long nowNs, int silent) {
        EngineConfig cfg = c.cfg;
        if (p.rxPending > 0 && p.ackDeadlineNs - nowNs <= 0) {
            p.ackNow = true;
            c.ackWork = true;
        }
        if (p.inflightPackets > 0
                && PathDeadlines.rtoDeadlineNs(p, cfg.maxRtoNs, silent, rack.newestAckedSentNs(Long.MIN_VALUE)) - nowNs <= 0) {
            recovery.onRto(p, nowNs);
        } else {
            long tlp = PathDeadlines.tailProbeAtNs(p, cfg.ackDelayNs, cfg.tailCopy);
            if (tlp != Engine.NO_DEADLINE && tlp - nowNs <= 0) {
                // RTO-6: the last ACK of a window may be lost; a probe makes the receiver ACK again.
                p.tlpSent = true;
                p.tlpAtNs = nowNs;
                p.tlpCheck = true;
                prober.due(p);
            }
        }
        if (p.probeDeadlineNs - nowNs <= 0) {
            prober.onProbeTimer(p, nowNs);
        }
    }
}
