package io.metaroce.core;

import java.util.Arrays;

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

    /** Set by {@link #nextDeadline()}: this QP's earliest deadline that only lets it transmit (NO_DEADLINE: none). */
    long sendDeadlineNs = Engine.NO_DEADLINE;
    /** Per path: its timers' earliest deadline and its delayed ACK's, as {@link #nextDeadline()} last computed them. */
    private long[] pathDueNs = new long[0];
    private long[] pathAckNs = new long[0];
    /** The peer's {@link PeerLoad#estimatesVersion()} when the kept deadlines were computed (-1: none kept). */
    private long keptVersion = -1;

    QpTimers(QpCore c, LossRecovery recovery, Rack rack, PathProber prober) {
        this.c = c;
        this.recovery = recovery;
        this.rack = rack;
        this.prober = prober;
    }

    /**
     * Earliest deadline of this QP whose timer changes its state, or {@link Engine#NO_DEADLINE}; the earliest one
     * that only lets it transmit (a delayed ACK falling due, ACK-2) is left in
     * {@link #sendDeadlineNs}. Only the paths in the QP's armed mask are looked at (a path is armed when it takes a
     * packet into flight, accepts one to acknowledge or sets a probe deadline); a path found with none of these left
     * is dropped from the mask, so an idle path costs nothing here. Each path's deadlines are kept for
     * {@link #nextDeadlineAfterData}.
     */
    long nextDeadline() {
        sendDeadlineNs = Engine.NO_DEADLINE;
        keptVersion = -1;
        if (!c.running()) {
            return Engine.NO_DEADLINE;
        }
        Path[] paths = c.paths;
        if (pathDueNs.length != paths.length) {
            pathDueNs = new long[paths.length];
            pathAckNs = new long[paths.length];
            Arrays.fill(pathDueNs, Engine.NO_DEADLINE);
            Arrays.fill(pathAckNs, Engine.NO_DEADLINE);
        }
        long newestAckedSentNs = rack.newestAckedSentNs(Long.MIN_VALUE);
        long d = Engine.NO_DEADLINE;
        long send = Engine.NO_DEADLINE; // deadlines that only let the QP transmit
        long[] armed = c.armedPaths;
        for (int w = 0; w < armed.length; w++) {
            long bits = armed[w];
            while (bits != 0) {
                int b = Long.numberOfTrailingZeros(bits);
                bits &= bits - 1;
                int i = (w << 6) + b;
                Path p = paths[i];
                if (p.timersIdle()) {
                    armed[w] &= ~(1L << b);
                    continue;
                }
                keep(p, i, newestAckedSentNs);
                d = Math.min(d, pathDueNs[i]);
                send = Math.min(send, pathAckNs[i]);
            }
        }
        PeerLoad peer = c.peerLoad;
        keptVersion = peer == null ? -1 : peer.estimatesVersion();
        return qpDeadline(d, send);
    }

    /**
     * {@link #nextDeadline()} after the QP's only change since it was last called is a data packet sent on {@code p}
     * (its record, floor and pacing): only that path's deadlines are computed again, the others' are the ones kept.
     * They still hold unless the peer's shared estimates (RTO-2, RTO-10) changed meanwhile, which makes this the
     * full computation. The same result as {@link #nextDeadline()}, without reading every armed path.
     */
    long nextDeadlineAfterData(Path p) {
        PeerLoad peer = p.peer;
        if (keptVersion < 0 || peer == null || peer.estimatesVersion() != keptVersion || !c.running()) {
            return nextDeadline();
        }
        keep(p, p.id, rack.newestAckedSentNs(Long.MIN_VALUE)); // it has a packet in flight now: it is armed
        long d = Engine.NO_DEADLINE;
        long send = Engine.NO_DEADLINE;
        long[] armed = c.armedPaths;
        for (int w = 0; w < armed.length; w++) {
            for (long bits = armed[w]; bits != 0; bits &= bits - 1) {
                int i = (w << 6) + Long.numberOfTrailingZeros(bits);
                d = Math.min(d, pathDueNs[i]);
                send = Math.min(send, pathAckNs[i]);
            }
        }
        return qpDeadline(d, send);
    }

    /** Computes and keeps path {@code p}'s (index {@code i}) deadlines: its timers' and its delayed ACK's. */
    private void keep(Path p, int i, long newestAckedSentNs) {
        EngineConfig cfg = c.cfg;
        long d = p.probeDeadlineNs;
        if (p.inflightPackets > 0) {
            d = Math.min(d, PathDeadlines.rtoDeadlineNs(p, cfg.maxRtoNs, c.silentTimeouts, newestAckedSentNs));
            d = Math.min(d, PathDeadlines.tailProbeAtNs(p, cfg));
        }
        pathDueNs[i] = d;
        pathAckNs[i] = p.rxPending > 0 ? p.ackDeadlineNs : Engine.NO_DEADLINE;
    }

    /** The QP-wide deadlines joined to its paths' earliest {@code d} (and {@code send}, into {@link #sendDeadlineNs}). */
    private long qpDeadline(long d, long send) {
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
            d = Math.min(d, c.allFailedSinceNs + c.cfg.connectionTimeoutNs);
        }
        return d;
    }

    /**
     * The deadline in {@link #sendDeadlineNs} has passed and the line is free: a delayed ACK due is looked for at the
     * next poll (a grant's slot is the peer's {@link GrantClock}, not timed here).
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

    /** RTO-6: sends a tail-loss probe on {@code p}, whose answer settles what was sent before the first (RTO-8). */
    private void probeTail(Path p, long nowNs) {
        PathSendState s = p.tx();
        if (s.tlps++ == 0) {
            s.tlpAtNs = nowNs; // RTO-8 settles from the first probe: what was sent before it
        }
        p.tlpCheck = true;
        prober.due(p);
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
            if (PathDeadlines.deferForSilentPeer(p, c.paths, cfg, nowNs)) {
                c.count(Counter.RTO_DEFERRED); // RTO-11
                // and a probe each time: a running peer answers it (its ACKs were lost, or the packets: RTO-8 settles
                // the tail), a stalled one cannot
                probeTail(p, nowNs);
            } else {
                recovery.onRto(p, nowNs);
            }
        } else {
            long tlp = PathDeadlines.tailProbeAtNs(p, cfg);
            if (tlp != Engine.NO_DEADLINE && tlp - nowNs <= 0) {
                probeTail(p, nowNs); // RTO-6: the last ACK of a window may be lost; a probe makes the receiver ACK again
            }
        }
        if (p.probeDeadlineNs - nowNs <= 0) {
            prober.onProbeTimer(p, nowNs);
        }
    }
}
