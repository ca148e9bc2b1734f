package io.metaroce.core;

import java.util.ArrayDeque;

/**
 * PATH-15: an engine's routes to one peer ({@link SharedPath}, one per path id), shared by every QP to that peer,
 * and the QPs waiting for room in their windows; the grant that peer gives (HINT-3) and whether it counts as an
 * active sender here (HINT-2).
 */
final class PeerLoad {
    final Engine engine;
    private final SharedPath[] paths;
    /**
     * QPs whose data waits for room in a shared window, oldest first: one is woken per packet that leaves flight
     * (a packet's worth of room), all of them when nothing to the peer is in flight any more.
     */
    private final ArrayDeque<QueuePair> waiters = new ArrayDeque<>();
    /** Data packets in flight to this peer, over every path and QP. */
    private int inflightPackets;
    /** RTO-2: the RTT estimate over every route to this peer (0: no sample yet), in ns. */
    long srttNs;
    long rttvarNs;
    /** RTO-10: the longest ACK hold time this peer reported recently. */
    final AckHoldEstimate ackHold;
    /** REL-16: the recent largest one-way delay of this peer's data packets, as this engine receives them. */
    final OneWayDelay oneWayDelay = new OneWayDelay();
    /** HINT-3/HINT-7: the grant the peer gives this engine and the pacing clock of every QP to it. */
    final GrantClock grant;
    /** HINT-2: when data from this peer last arrived, and whether this engine's grants count it as active. */
    long lastDataRxNs = Long.MIN_VALUE;
    boolean activeSender;

    /** RTT samples taken on routes to this peer ({@link #estimatesVersion()}). */
    private long samples;
    /** The engine's minRto: the floor of a timeout taken from a route's estimate (RTO-2); here, not per route. */
    final long minRtoNs;
    /** The engine's MTU (a route's pacing queue, PATH-18); here, not per route. */
    final int mtu;

    PeerLoad(Engine engine, EngineConfig cfg) {
        this.engine = engine;
        this.minRtoNs = cfg.minRtoNs;
        this.mtu = cfg.mtu;
        this.paths = new SharedPath[cfg.paths];
        this.ackHold = new AckHoldEstimate(cfg.ackHoldWindowNs);
        this.grant = new GrantClock(engine);
        for (int i = 0; i < paths.length; i++) {
            paths[i] = new SharedPath(i, cfg, this);
        }
    }

    /** A sample taken on any route to this peer (its route's estimate changed too). */
    void onRttSample(long sampleNs) {
        rttvarNs = RttEstimator.rttvarAfter(srttNs, rttvarNs, sampleNs);
        srttNs = RttEstimator.srttAfter(srttNs, sampleNs);
        samples++;
    }

    /**
     * Changes whenever an estimate a QP's timers read from this peer or its routes may have changed (RTT samples,
     * RTO-2; ACK hold reports, RTO-10): a QP's kept path deadlines ({@link QpTimers}) hold while it stays the same.
     */
    long estimatesVersion() {
        return samples + ackHold.reports();
    }

    /** RTO-2: {@code srtt + 4 rttvar} over every route to this peer, in ns (0 before the first sample). */
    long rtoEstimateNs() {
        return srttNs == 0 ? 0 : srttNs + 4 * rttvarNs;
    }

    SharedPath path(int id) {
        return paths[id];
    }

    /** {@code qp} has data but no path with room: wake it when room opens. */
    void await(QueuePair qp) {
        if (!qp.awaitingPeer) {
            qp.awaitingPeer = true;
            waiters.add(qp);
        }
    }

    /** {@code packets} data packets to this peer went into flight. */
    void sent(int packets) {
        inflightPackets += packets;
    }

    /**
     * {@code packets} data packets to this peer left flight (acknowledged, declared lost or abandoned). PATH-15:
     * the oldest waiting QPs are woken, one per packet released, so thousands of QPs waiting on one route do not
     * all wake for one packet's room (each that finds no room registers again at the back). When nothing to the
     * peer is in flight, every waiter is woken: no later release would wake them.
     */
    void released(int packets) {
        inflightPackets -= packets;
        int wake = inflightPackets <= 0 ? waiters.size() : Math.min(packets, waiters.size());
        for (int i = 0; i < wake; i++) {
            QueuePair qp = waiters.poll();
            qp.awaitingPeer = false;
            engine.markReady(qp);
        }
    }
}
