package io.metaroce.core;

/**
 * A path's timer arithmetic (RTO-2, RTO-3, RTO-6, RTO-9, RTO-10): when its tail-loss probe and its retransmission
 * timeout fall due, from the path's own RTT estimate or, before its first sample, its route's or its peer's.
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
        boolean overtaken = newestAckedSentNs != Long.MIN_VALUE && p.floor != p.nextPsn
                && newestAckedSentNs - p.recSentNs[p.slot(p.floor)] > 0;
        return overtaken ? d : d + peerHoldNs(p);
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
