package io.metaroce.core;

import java.util.ArrayDeque;

/**
 * HINT-3 and HINT-7 on the sending side, per peer: the rate the peer's receiver granted this engine (HINT-2 counts
 * senders by endpoint) and the pacing clock every QP of this engine to that peer shares, so QPs to one peer
 * together send at most the grant and one that has nothing to send leaves its share to the others. The grant's next
 * slot is timed once, here, and wakes the oldest QP waiting for it (as a route's slot does, PATH-18): with 64 QPs to
 * one peer, each timing the slot itself woke all 64 for one packet.
 */
final class GrantClock extends PacedSlot {
    private final Engine engine;
    /** QPs with data held back by the grant, oldest first (an entry whose QP has since sent is stale). */
    private final ArrayDeque<QueuePair> waiters = new ArrayDeque<>();
    /** The interval of the last datagram paced by the grant: how long a woken waiter has to take its slot. */
    private long lastGapNs;
    /** The latest grant in bits/s (0 = none: no cap). */
    long bps;
    /** HINT-7: when the last valid ACK from the peer arrived (MIN_VALUE: none yet), in ns. */
    private long ackRxNs = Long.MIN_VALUE;
    /** HINT-7: datagram bytes of data sent to the peer since that ACK. */
    private long sentSinceAckBytes;
    /** When the next datagram paced by the grant may leave. */
    long nextNs;
    /** When the last datagram paced by the grant left (MIN_VALUE: none since the grant was 0). */
    private long pacedNs = Long.MIN_VALUE;

    GrantClock(Engine engine) {
        this.engine = engine;
    }

    /** A valid ACK from the peer, carrying {@code grantMbps} (0 = no grant), arrived at {@code nowNs}. */
    void onAck(int grantMbps, long nowNs) {
        bps = grantMbps == 0 ? 0 : (grantMbps & 0xFFFFFFFFL) * 1_000_000L;
        ackRxNs = nowNs;
        sentSinceAckBytes = 0;
    }

    /** Whether the grant holds the next data datagram back at {@code nowNs}. */
    boolean waits(long nowNs) {
        return bps > 0 && nextNs - nowNs > 0;
    }

    /**
     * HINT-7: whether the peer is unscheduled (no ACK from it within {@code windowNs}) and this engine has sent it
     * {@code budget} bytes since its last ACK. A grant that old is void: the receiver no longer counts this sender.
     */
    boolean unscheduledSpent(long nowNs, long budget, long windowNs) {
        if (budget == 0 || ackRxNs != Long.MIN_VALUE && nowNs - ackRxNs <= windowNs) {
            return false;
        }
        bps = 0;
        return sentSinceAckBytes >= budget;
    }

    /**
     * A data datagram of {@code len} bytes left at {@code nowNs}: the next send time moves one interval on. A peer
     * that has been sent to under the grant and whose QPs were woken late keeps its schedule (catching up by at most
     * two intervals: a host's timers are not exact, and without this every late wake-up is throughput lost for
     * good); after a pause it starts from now.
     */
    void sent(QueuePair qp, int len, long nowNs) {
        qp.awaitingGrant = false; // it sent: its place in the queue is stale
        sentSinceAckBytes += len;
        if (bps <= 0) {
            pacedNs = Long.MIN_VALUE;
            return;
        }
        long gap = len * 8_000_000_000L / bps;
        boolean onSchedule = pacedNs != Long.MIN_VALUE && nowNs - nextNs <= 2 * gap && nowNs - pacedNs <= 3 * gap;
        nextNs = (onSchedule ? Math.max(nextNs, nowNs - 2 * gap) : Math.max(nextNs, nowNs)) + gap;
        pacedNs = nowNs;
        lastGapNs = gap;
        if (heapIndex >= 0) {
            engine.armPacing(this, nextNs); // a timed slot moves to the next one
        }
    }

    /** {@code qp} has data, a path that could take it, and waits for the grant's next slot. */
    void await(QueuePair qp) {
        if (!qp.awaitingGrant) {
            qp.awaitingGrant = true;
            waiters.add(qp);
        }
        if (heapIndex < 0) {
            engine.armPacing(this, nextNs);
        }
    }

    /**
     * The slot came: the oldest live waiter is woken. Further waiters are timed one interval on: the woken QP moves
     * the slot when it sends, and when it does not (no room after all), the next waiter's turn comes then.
     */
    @Override
    void fire() {
        QueuePair qp;
        while ((qp = waiters.poll()) != null) {
            if (qp.awaitingGrant) {
                qp.awaitingGrant = false;
                engine.markReady(qp);
                break;
            }
        }
        if (!waiters.isEmpty()) {
            engine.armPacing(this, nextNs + Math.max(1, lastGapNs));
        }
    }
}
