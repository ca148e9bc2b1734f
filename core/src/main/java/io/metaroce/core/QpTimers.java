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

    QpTimers(QpCore c, LossRecovery recovery, Rack rack, PathProber prober, TransmitScheduler scheduler) {
        this.c = c;
        this.recovery = recovery;
        this.rack = rack;
        this.prober = prober;
        this.scheduler = scheduler;
    }

    /**
     * Earliest deadline of this QP, or {@link Engine#NO_DEADLINE}. Only the paths in the QP's armed mask are looked
     * at (a path is armed when it takes a packet into flight, accepts one to acknowledge or sets a probe deadline);
     * a path found with none of these left is dropped from the mask, so an idle path costs nothing here.
     */
    long nextDeadline() {
        if (!c.running()) {
            return Engine.NO_DEADLINE;
        }
        EngineConfig cfg = c.cfg;
        long d = Engine.NO_DEADLINE;
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
                if (p.rxPending > 0 && p.ackDeadlineNs < d) {
                    d = p.ackDeadlineNs;
                }
                if (p.inflightPackets > 0) {
                    long rto = PathDeadlines.rtoDeadlineNs(p, cfg.maxRtoNs, c.silentTimeouts, rack.newestAckedSentNs(Long.MIN_VALUE));
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
