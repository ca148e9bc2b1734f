package io.metaroce.core;

import java.util.ArrayDeque;

/**
 * PATH-15: an engine's routes to one peer ({@link SharedPath}, one per path id), shared by every QP to that peer,
 * and the QPs waiting for room in their windows; the grant that peer gives (HINT-3) and whether it counts as an
 * active sender here (HINT-2).
 * <p>
 * Memory: a route is made when a QP first needs it (a packet goes on it, an ACK or RTT sample or timeout concerns
 * it), not for every path id up front: with 48 paths per QP and many peers most routes never carry a packet. A route
 * not made yet reads as a fresh one ({@link Path#routeIfMade()}): nothing in flight, no RTT sample, its pacing slot
 * at 0, and the window of a controller just made ({@link #idleCwndBytes()}), started once a QP to the peer is.
 */
final class PeerLoad {
    final Engine engine;
    private final SharedPath[] paths;
    /**
     * PATH-1, PATH-15: bit {@code id} set when route {@code id} is made and has no room for another packet
     * ({@link SharedPath#hasRoom}; kept by {@link SharedPath#refreshRoom()}): the path choice skips these unread.
     */
    final long[] fullRoutes;
    /**
     * CC-5: when route {@code id} may take its next data packet ({@link SharedPath#nextSendNs()}; 0: a fresh route).
     */
    final long[] nextSendNs;
    /**
     * PATH-1: route {@code id}'s open window, its window less its bytes in flight (kept by
     * {@link SharedPath#refreshRoom()}).
     */
    final double[] roomBytes;
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
    /**
     * RTO-10: until when the peer is taken to be draining a backlog (it reported holding what it acknowledged for
     * longer than a round trip: it was stalled), or MIN_VALUE; meanwhile its routes' timeouts and REL-14 wait.
     */
    long drainingUntilNs = Long.MIN_VALUE;
    /** REL-16: the recent largest one-way delay of this peer's data packets, as this engine receives them. */
    final OneWayDelay oneWayDelay = new OneWayDelay();
    /** HINT-3/HINT-7: the grant the peer gives this engine and the pacing clock of every QP to it. */
    final GrantClock grant;
    /** HINT-2: when data from this peer last arrived, and whether this engine's grants count it as active. */
    long lastDataRxNs = Long.MIN_VALUE;
    /** REL-18: when a QP of this engine last declared a packet to this peer lost (resent it), or MIN_VALUE. */
    long lastLossNs = Long.MIN_VALUE;
    /** REL-21: the share of data packets to this peer declared lost recently. */
    final LossRate lossRate = new LossRate();
    boolean activeSender;

    /** RTT samples taken on routes to this peer ({@link #estimatesVersion()}). */
    private long samples;
    /** The engine's minRto: the floor of a timeout taken from a route's estimate (RTO-2); here, not per route. */
    final long minRtoNs;
    /** The engine's MTU (a route's pacing queue, PATH-18); here, not per route. */
    final int mtu;
    private final EngineConfig cfg;
    /** Whether a QP to this peer reached RTS: every route is started from then on (later ones when made). */
    private boolean started;
    /** What a route not made yet reads as ({@link CongestionControl}'s window and alpha, fresh and once started). */
    private final double freshCwnd;
    private final double freshAlpha;
    private final double startedCwnd;
    private final double startedAlpha;

    PeerLoad(Engine engine, EngineConfig cfg) {
        this.engine = engine;
        this.cfg = cfg;
        this.minRtoNs = cfg.minRtoNs;
        this.mtu = cfg.mtu;
        this.paths = new SharedPath[cfg.paths];
        this.fullRoutes = new long[(cfg.paths + 63) >>> 6];
        this.nextSendNs = new long[cfg.paths];
        this.roomBytes = new double[cfg.paths];
        this.ackHold = new AckHoldEstimate(cfg.ackHoldWindowNs);
        this.grant = new GrantClock(engine);
        CongestionControl sample = new SharedPath(-1, cfg, this).cc; // a controller as a made route's starts
        freshCwnd = sample.cwndBytes();
        freshAlpha = sample.alpha();
        sample.onStart();
        startedCwnd = sample.cwndBytes();
        startedAlpha = sample.alpha();
    }

    /** PATH-15: a QP to this peer starts sending: every route starts, a route in use keeps its window as it is. */
    void start() {
        started = true;
        for (SharedPath r : paths) {
            if (r != null) {
                r.startIfNew();
            }
        }
    }

    /** The window of a route not made yet, in bytes (what its controller would have now). */
    double idleCwndBytes() {
        return started ? startedCwnd : freshCwnd;
    }

    /** Route {@code id}'s window in bytes, made or not. */
    double cwndBytes(int id) {
        SharedPath r = paths[id];
        return r != null ? r.cwndBytes : idleCwndBytes();
    }

    /** Route {@code id}'s ECN alpha, made or not. */
    double alpha(int id) {
        SharedPath r = paths[id];
        return r != null ? r.cc.alpha() : started ? startedAlpha : freshAlpha;
    }

    /** A sample taken on any route to this peer (its route's estimate changed too). */
    void onRttSample(long sampleNs) {
        rttvarNs = RttEstimator.rttvarAfter(srttNs, rttvarNs, sampleNs);
        srttNs = RttEstimator.srttAfter(srttNs, sampleNs);
        samples++;
    }

    /**
     * RTO-10: the peer reported at {@code nowNs} that it held what an ACK acknowledges for {@code holdNs}; a hold longer
     * than {@code settleNs} means it was stalled and is working through the backlog in its socket, one receive batch
     * (and one ACK) after another, so the ACKs of packets sent before the newest one acknowledged may be a batch
     * behind: for {@code settleNs} from now nothing sent to it is taken for lost by time.
     */
    void onHold(long nowNs, long holdNs, long settleNs) {
        ackHold.onHold(nowNs, holdNs);
        long until = nowNs + settleNs;
        if (holdNs > settleNs && (drainingUntilNs == Long.MIN_VALUE || until - drainingUntilNs > 0)) {
            drainingUntilNs = until;
        }
    }

    /** RTO-10: whether the peer is still taken to be draining a backlog at {@code nowNs} (see {@link #onHold}). */
    boolean draining(long nowNs) {
        return drainingUntilNs != Long.MIN_VALUE && drainingUntilNs - nowNs > 0;
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

    /** The route of path id {@code id}, made on first use (started if a QP to the peer already is). */
    SharedPath path(int id) {
        SharedPath r = paths[id];
        if (r == null) {
            r = new SharedPath(id, cfg, this);
            if (started) {
                r.startIfNew();
            }
            paths[id] = r;
        }
        return r;
    }

    /**
     * RTO-11: whether the peer has acknowledged a packet, of any QP on any route, sent after {@code sentNs} (not at
     * the same time: a driver stamps every datagram of a send round with one time, and the peer may read one path's
     * before another's)
     * (PATH-16's evidence, over every route). What a stalled peer cannot do: ACKs it sent before the stall still
     * arrive during it. False before its first acknowledgement.
     */
    boolean deliveredSentSince(long sentNs) {
        for (SharedPath r : paths) {
            if (r != null && r.newestDeliveredSentNs != Long.MIN_VALUE && r.newestDeliveredSentNs - sentNs > 0) {
                return true;
            }
        }
        return false;
    }

    /** Whether the peer has acknowledged anything yet, on any route (RTO-11). */
    boolean anyDelivered() {
        for (SharedPath r : paths) {
            if (r != null && r.newestDeliveredSentNs != Long.MIN_VALUE) {
                return true;
            }
        }
        return false;
    }

    /** The route of path id {@code id} if a QP made it, else null (it reads as an idle one). */
    SharedPath pathIfMade(int id) {
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
