package io.metaroce.core;

/**
 * A path's timer arithmetic (RTO-2, RTO-3, RTO-6, RTO-9, RTO-10, RTO-11): when its tail-loss probe and its
 * retransmission timeout fall due, from the path's own RTT estimate or, before its first sample, its route's or its
 * peer's.
 */
final class PathDeadlines {
    private PathDeadlines() {
    }

    /**
     * RTO-6: when to send a tail-loss probe, or {@link Engine#NO_DEADLINE} when none is due: after the last progress,
     * with tail copies on {@code srtt + max(4 rttvar, srtt / 4)} when the newest transmission asked for an immediate
     * ACK (ACK_REQ: the end of a message or a resend), else {@code 2 srtt + ackDelay}. (Counting from the newest
     * transmission instead put the probe off while a path kept sending: 0.796 instead of 0.887 of lossless in the
     * harness at 10% loss.) Up to {@code tailProbes} probes per progress, each further one an interval after the
     * first: a lost probe, or its lost answer, costs one more interval instead of the RTO.
     */
    static long tailProbeAtNs(Path p, EngineConfig cfg) {
        long srtt = knownSrttNs(p);
        long rttvar = knownRttvarNs(p);
        int sent = p.tlps();
        if (sent >= cfg.tailProbes || srtt == 0 || p.inflightPackets == 0 || p.state != PathState.ACTIVE) {
            return Engine.NO_DEADLINE;
        }
        long delay = cfg.tailCopy && p.lastTxAckReq ? srtt + Math.max(4 * rttvar, srtt / 4) : 2 * srtt + cfg.ackDelayNs;
        return sent == 0 ? p.lastProgressNs + delay : p.tx().tlpAtNs + sent * delay;
    }

    /**
     * RTO-2/RTO-3/RTO-9: the timeout now: the larger of this QP's estimate and its route's (PATH-15), doubled per
     * backoff (this path's, or the QP's {@code silentTimeouts} if larger), at most {@code maxRtoNs}.
     */
    static long currentRtoNs(Path p, long maxRtoNs, int silentTimeouts) {
        long r = baseRtoNs(p, maxRtoNs) << Math.min(Math.max(p.backoff(), silentTimeouts), 20);
        return r < 0 || r > maxRtoNs ? maxRtoNs : r;
    }

    /**
     * RTO-3 and RTO-10: when the path's retransmission timer expires, in ns: its last progress plus
     * {@link #currentRtoNs}, plus the peer's recent longest ACK hold unless the peer has acknowledged a packet of the
     * QP sent after the path's oldest unacknowledged one ({@code newestAckedSentNs}, Long.MIN_VALUE for none): then
     * the peer was running when that packet should have arrived, and it is lost, not held.
     */
    static long rtoDeadlineNs(Path p, long maxRtoNs, int silentTimeouts, long newestAckedSentNs) {
        long d = p.lastProgressNs + currentRtoNs(p, maxRtoNs, silentTimeouts);
        boolean waiting = p.floor != p.nextPsn;
        long oldestSentNs = waiting ? p.recSentNs[p.slot(p.floor)] : 0;
        boolean overtaken = newestAckedSentNs != Long.MIN_VALUE && waiting && newestAckedSentNs - oldestSentNs > 0;
        long due = overtaken ? d : d + peerHoldNs(p);
        PathSendState s = p.tx(); // made already: the path has a packet in flight
        if (s.rtoDeferredAt != Long.MIN_VALUE && s.rtoDeferredAt == p.lastProgressNs && s.rtoDeferredTo - due > 0
                && waiting && p.peer != null && !p.peer.deliveredSentSince(oldestSentNs)) {
            due = s.rtoDeferredTo; // RTO-11: put off while the peer is silent (once it speaks, the timeout is due)
        }
        PeerLoad peer = p.peer;
        if (peer != null && peer.drainingUntilNs != Long.MIN_VALUE && peer.drainingUntilNs - due > 0) {
            due = peer.drainingUntilNs; // RTO-10: the peer is working through a backlog; this path's ACK may be in it
        }
        return due;
    }

    /**
     * RTO-11: whether path {@code p}'s timeout, due now, waits instead because the peer has acknowledged nothing, of
     * any QP on any route, sent since the path's oldest unacknowledged packet, and that packet left less than
     * {@code peerSilenceGraceNs} ago: a peer that is descheduled, collecting garbage or swapped out acknowledges
     * nothing new on any path, while a failed path's peer goes on acknowledging on the others; and more than
     * {@link #SILENCE_EVIDENCE_PACKETS} of the QP's packets must be out since. If so the timeout is looked at again
     * {@code max(minRto, srtt)} later or when the grace ends, whichever is first, and this returns true.
     */
    static boolean deferForSilentPeer(Path p, Path[] qpPaths, EngineConfig cfg, long nowNs) {
        long grace = cfg.peerSilenceGraceNs;
        PeerLoad peer = p.peer;
        if (grace == 0 || peer == null || p.floor == p.nextPsn) {
            return false;
        }
        long oldestSentNs = p.recSentNs[p.slot(p.floor)];
        if (nowNs - oldestSentNs >= grace || !peer.anyDelivered() || peer.deliveredSentSince(oldestSentNs)) {
            return false; // silent too long, or nothing ever acknowledged, or a later packet was (this one is lost)
        }
        if (inflightSentSince(qpPaths, oldestSentNs) <= SILENCE_EVIDENCE_PACKETS) {
            return false; // too few sent since for their silence to say more than loss does (the tail of a window)
        }
        PathSendState s = p.tx();
        s.rtoDeferredTo = Math.min(oldestSentNs + grace, nowNs + Math.max(cfg.minRtoNs, p.srttNs()));
        s.rtoDeferredAt = p.lastProgressNs;
        return true;
    }

    /**
     * RTO-11: packets of the QP sent with or after the oldest one waiting, besides it, that must all be unacknowledged
     * before the wait is taken for a stalled peer: a window of a few packets all lost with their ACKs (at the test
     * bed's 10% loss per hop) looks silent too, and waiting for it took a fifth of the goodput.
     */
    static final int SILENCE_EVIDENCE_PACKETS = 8;

    /**
     * Packets in flight on any of {@code paths} sent at or after {@code sentNs} (the oldest one itself among them),
     * counted up to one more than {@link #SILENCE_EVIDENCE_PACKETS}.
     */
    private static int inflightSentSince(Path[] paths, long sentNs) {
        int n = 0;
        for (Path q : paths) {
            if (q == null || q.inflightPackets == 0) {
                continue;
            }
            for (int psn = q.floor; psn != q.nextPsn; psn++) {
                int i = q.slot(psn);
                if (q.recState[i] == Path.INFLIGHT && q.recSentNs[i] - sentNs >= 0 && ++n > SILENCE_EVIDENCE_PACKETS) {
                    return n;
                }
            }
        }
        return n;
    }

    /**
     * RTO-10: the settle time of a peer's drain, in ns: an ACK hold longer than this says the peer was stalled, and for
     * this long after it its routes' timeouts and REL-14 wait for the rest of its backlog's ACKs. The path's smoothed
     * RTT (its route's or peer's before its own first sample), at least a quarter of minRto.
     */
    static long drainSettleNs(Path p, EngineConfig cfg) {
        return Math.max(knownSrttNs(p), cfg.minRtoNs / 4);
    }

    /** RTO-10: the longest ACK hold time the path's peer reported recently (0 when hold times are ignored), in ns. */
    static long peerHoldNs(Path p) {
        return p.peer == null ? 0 : p.peer.ackHold.allowanceNs();
    }

    /** RTO-2: the larger of the QP's estimate and the route's, at most {@code maxRtoNs}. */
    static long baseRtoNs(Path p, long maxRtoNs) {
        SharedPath shared = p.routeIfMade(); // a route not made yet has no estimate (0)
        long route = shared == null ? 0 : Math.min(maxRtoNs, shared.rtoEstimateNs());
        PeerLoad peer = p.peer;
        if (p.srttNs() == 0 && peer != null) {
            // RTO-2: no sample of its own yet: the route's estimate, or the peer's over all its routes, not
            // initialRto (a path the scheduler has barely used would otherwise wait initialRto, and after an undone
            // timeout twice that, for its lost tail while the RTT to the peer is known)
            long known = route > 0 ? route : Math.min(maxRtoNs, peer.rtoEstimateNs());
            if (known > 0) {
                return Math.max(known, peer.minRtoNs);
            }
        }
        return Math.max(p.rtoNs, route);
    }

    /** The smoothed RTT the path goes by: its own, or before its first sample its route's or its peer's (RTO-2). */
    private static long knownSrttNs(Path p) {
        long own = p.srttNs();
        if (own != 0 || p.peer == null) {
            return own;
        }
        SharedPath shared = p.routeIfMade();
        return shared != null && shared.srttNs != 0 ? shared.srttNs : p.peer.srttNs;
    }

    /** The RTT variation that goes with {@link #knownSrttNs}. */
    private static long knownRttvarNs(Path p) {
        if (p.srttNs() != 0 || p.peer == null) {
            return p.rttvarNs();
        }
        SharedPath shared = p.routeIfMade();
        return shared != null && shared.srttNs != 0 ? shared.rttvarNs : p.peer.rttvarNs;
    }
}
