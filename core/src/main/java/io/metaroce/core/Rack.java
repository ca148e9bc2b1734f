package io.metaroce.core;

/**
 * REL-14, cross-path time-based loss detection (after RACK, RFC 8985): a packet still in flight on any path that
 * was sent more than the reordering window before the newest packet acknowledged so far (on any path) is lost.
 * The window starts from the paths' queueing spread, doubles each time a loss declared by a timer (this rule or an
 * RTO) proves spurious, halves again after {@link #DECAY_LOSSES} losses declared here without one, and never exceeds
 * the slowest path's smoothed RTT (RFC 8985's bound).
 */
final class Rack {
    /** Losses a path may take this way in a row, without progress, before only its RTO speaks. */
    static final int STREAK_LIMIT = 4;
    /** Largest multiplier of the reordering window. */
    private static final int MAX_SCALE = 64;
    /** Losses declared by this rule, none of them proven spurious since the last widening, that halve the window. */
    static final int DECAY_LOSSES = 16;

    private final QpCore c;
    /** Send time of the most recently sent packet acknowledged so far, on any path. */
    private long sentNs;
    private boolean valid;
    /** Multiplier of the reordering window, doubled on each timer loss proven spurious. */
    private int scale = 1;
    /** Losses declared by this rule since the multiplier last changed. */
    private int sinceChange;
    /** When a packet reordered past the window becomes overdue, or when to examine (NO_DEADLINE: none). */
    long timerNs = Engine.NO_DEADLINE;

    Rack(QpCore c) {
        this.c = c;
    }

    /** The sender (re)starts: no packet acknowledged yet. */
    void reset() {
        valid = false;
        timerNs = Engine.NO_DEADLINE;
    }

    /** The newest send time among packets acknowledged so far ({@code fallback} when none). */
    long newestAckedSentNs(long fallback) {
        return valid ? sentNs : fallback;
    }

    boolean valid() {
        return valid;
    }

    /**
     * A packet declared lost was acknowledged after all ({@code state}: its record's, {@link Path#LOST_HELD} when a
     * timer declared it): a wider reordering window from now on if a timer did. A loss found by SACK or a NAK that
     * proves spurious says nothing about this window (widening on those too left it at its cap for good at 64
     * paths and 10% loss: every loss then waited for an RTO).
     */
    void onSpuriousLoss(byte state) {
        if (state == Path.LOST_HELD && scale < MAX_SCALE) {
            scale *= 2;
            sinceChange = 0;
        }
    }

    /**
     * An ACK acknowledged packets, the newest of them sent at {@code newestSentNs}. Detection runs at the next timer
     * pass, not here: the driver hands over every datagram it has (ACKs of other paths arrive on other sockets, in
     * another order) before it runs the timers.
     */
    void onAcked(long newestSentNs, long nowNs) {
        if (!valid || newestSentNs - sentNs > 0) {
            sentNs = newestSentNs;
            valid = true;
            timerNs = nowNs;
        }
    }

    /** Runs detection; re-arms {@link #timerNs} when a packet is reordered but not yet overdue. */
    void detect(long nowNs) {
        timerNs = Engine.NO_DEADLINE;
        PeerLoad peer = c.peerLoad; // every path's peer (null before RTR)
        if (peer != null && peer.draining(nowNs)) {
            // RTO-10: the peer is working through a backlog after a stall, one batch of ACKs after another: a
            // packet sent before the newest one acknowledged may simply be in a later batch
            timerNs = peer.drainingUntilNs;
            return;
        }
        long minRtt = Long.MAX_VALUE;
        long srttHi = 0;
        for (Path q : c.paths) {
            long qMinRtt = q == null ? 0 : q.minRttNs();
            if (qMinRtt > 0) {
                minRtt = Math.min(minRtt, qMinRtt);
                srttHi = Math.max(srttHi, q.srttNs());
            }
        }
        if (minRtt == Long.MAX_VALUE) {
            return; // no RTT sample yet: no notion of "too old"
        }
        // the window covers the largest queueing delay seen on any path (slowest smoothed RTT over the fastest
        // unloaded one): packets sprayed over paths with different queues are legitimately reordered by that much,
        // and a delayed ACK on one path reorders ACKs by up to ackDelay
        long window = Math.min(c.cfg.ackDelayNs + Math.max(minRtt / 4, srttHi - minRtt) * scale,
                c.cfg.ackDelayNs + srttHi);
        long limit = sentNs - window;
        for (Path q : c.paths) {
            if (q == null || q.state != PathState.ACTIVE || q.rackStreak >= STREAK_LIMIT) {
                continue; // a path that keeps losing without progress is left to its RTO: that is how it fails
            }
            // and not before its ACK is overdue: its path's smoothed RTT plus the reordering window or the RTT's
            // variation or a quarter of minRto (the platform's timing noise), whichever is largest (RFC 8985 waits
            // an RTT plus the window; the others guard hosts whose scheduling stalls dwarf the network's RTT)
            long wait = q.srttNs() + Math.max(Math.max(window, 4 * q.rttvarNs()), c.cfg.minRtoNs / 4);
            long overdue = nowNs - wait;
            boolean lost = false;
            for (int psn = q.floor; psn != q.nextPsn; psn++) {
                int i = q.slot(psn);
                if (q.recState[i] != Path.INFLIGHT) {
                    continue; // (a lost record's time is its declaration's, not its send's: REL-15)
                }
                if (q.recSentNs[i] - limit >= 0) {
                    break;
                }
                if (q.recSentNs[i] - overdue >= 0) {
                    // reordered past the window but not yet overdue: look again when it is
                    long at = q.recSentNs[i] + wait + 1;
                    if (timerNs == Engine.NO_DEADLINE || at - timerNs < 0) {
                        timerNs = at;
                    }
                    break;
                }
                c.declareLost(q, i, nowNs, 0, true);
                c.count(Counter.RACK_LOSSES);
                if (++sinceChange >= DECAY_LOSSES) {
                    sinceChange = 0;
                    scale = Math.max(1, scale / 2);
                }
                lost = true;
                q.rackStreak++;
            }
            if (lost) {
                q.route().onLoss(nowNs);
                c.advanceFloor(q, nowNs);
            }
        }
    }
}
