package io.metaroce.core;

import java.util.ArrayDeque;

/**
 * PATH-18: the QPs waiting for one route's next pacing slot (CC-5), in order, and that slot's timer. With thousands
 * of QPs sharing a route, each timing the route's next slot itself woke all of them for one packet, and only one
 * could send (a thundering herd, O(QPs) per paced packet). Here the route's slot is timed once, in the engine's
 * pacing heap, and wakes the oldest waiter with the slot's token. While QPs wait, the route is reserved: only the
 * token's holder may send on it, so a QP that was not waiting cannot take the slot ahead of those that were. The
 * holder hands the token back when it has sent a data packet, or when a poll of it sent nothing (it had no room or
 * nothing left); the next slot is then timed for the next waiter (at once, if the slot is still free). When the
 * route's window has no room the queue parks instead, and the next packet to leave the route's flight times it again:
 * waking waiters that would all find no room would be the herd again.
 *
 * <p>A QP waits in at most one queue ({@link QueuePair#pacedOn}); an entry whose QP has since moved to another queue,
 * or sent data, is stale and skipped when met.
 */
final class PacingQueue extends PacedSlot {
    private final SharedPath route;
    private final Engine engine;
    private final int mtu;
    private final ArrayDeque<QueuePair> waiters = new ArrayDeque<>();
    /** A woken QP holds the slot and has not handed it back yet: the queue is not timed meanwhile. */
    private boolean tokenOut;
    /** Waiters, but the route's window had no room: timed again when a packet leaves the route's flight. */
    private boolean parked;

    PacingQueue(SharedPath route, Engine engine, int mtu) {
        this.route = route;
        this.engine = engine;
        this.mtu = mtu;
    }

    /**
     * Whether {@code qp} may send on the route now as far as its turn goes (the route's clock aside): it holds the
     * token, or no token is out and no other QP waits before it (stale entries at the head are dropped here).
     */
    boolean mayUse(QueuePair qp) {
        if (qp.pacingToken == this) {
            return true;
        }
        if (tokenOut) {
            return false;
        }
        QueuePair head;
        while ((head = waiters.peek()) != null && head.pacedOn != this) {
            waiters.poll();
        }
        return head == null || head == qp;
    }

    /** {@code qp} has data for the route and waits for its turn. */
    void await(QueuePair qp) {
        if (qp.pacedOn == this) {
            return;
        }
        qp.pacedOn = this;
        waiters.add(qp);
        if (!tokenOut && heapIndex < 0) {
            parked = false; // the newcomer found room on the route
            engine.armPacing(this, route.nextSendNs());
        }
    }

    /** The slot came (the engine took this queue out of its heap): the oldest live waiter wakes with the token. */
    @Override
    void fire() {
        QueuePair qp;
        while ((qp = waiters.poll()) != null) {
            if (qp.pacedOn == this) {
                qp.pacedOn = null;
                qp.pacingToken = this;
                tokenOut = true;
                engine.markReady(qp);
                return;
            }
        }
    }

    /** The holder {@code qp} is done with the slot: the next waiter's turn is timed. */
    void handBack(QueuePair qp) {
        qp.pacingToken = null;
        tokenOut = false;
        if (waiters.isEmpty()) {
            return;
        }
        if (route.hasRoom(mtu)) {
            engine.armPacing(this, route.nextSendNs());
        } else {
            parked = true;
        }
    }

    /** A packet left the route's flight: a parked queue is timed again. */
    void roomOpened() {
        if (parked) {
            parked = false;
            engine.armPacing(this, route.nextSendNs());
        }
    }

    /** A packet took the route's slot: a timed queue moves to the next one. */
    void paced() {
        if (heapIndex >= 0) {
            engine.armPacing(this, route.nextSendNs());
        }
    }
}
