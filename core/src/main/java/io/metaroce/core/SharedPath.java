package io.metaroce.core;

import java.util.ArrayDeque;

/**
 * PATH-15: one path id between this engine and one peer, as every QP between them uses it: the same source port and
 * plane, so the same route through the fabric. It holds what belongs to the route rather than to a connection: the
 * congestion controller (CC-*) and its window, the RTT and ECN signals it reacts to, the bytes in flight from all
 * the QPs, and the pacing clock (CC-5). What belongs to a connection (its PSN space, SACK, in-flight records,
 * retransmission timer and path health) stays in each QP's {@link Path}; only the probing of a failed route is done
 * once for all of them (PATH-17).
 */
public final class SharedPath {
    private final int id;
    final CongestionControl cc;
    /**
     * The controller's window as of its last event (the calls below): read for every packet's path choice, so a
     * copy here saves reading a second object per path and packet (the simulator at 1,024 hosts is memory-bound
     * there). {@link CongestionControl} changes its window only in those calls.
     */
    double cwndBytes;
    private boolean started;
    long srttNs;
    /** The route's RTT variation over every sharing QP's samples (RTO-2, as RFC 6298), in ns. */
    long rttvarNs;
    /** Smallest RTT sample on this route (CC-4). */
    long minRttNs;
    long lastCeNs = Long.MIN_VALUE;
    /** PATH-16: send time of the most recently sent packet, of any QP, acknowledged on the route (MIN_VALUE: none). */
    long newestDeliveredSentNs = Long.MIN_VALUE;
    long inflightBytes;
    int inflightPackets;
    /** PATH-18: the QPs waiting for this route's next pacing slot (null until the first waits). */
    PacingQueue pacing;
    /** PATH-17: the failed path, of one QP, whose probes speak for the route while it is down (null: none). */
    Path prober;
    /** PATH-17: failed paths of the other QPs, waiting for the route's verdict instead of probing (made on first use). */
    ArrayDeque<Path> waiting;

    /** Every route to the same peer (RTO-2: their joint estimate stands in for a route without samples). */
    final PeerLoad peerLoad;

    SharedPath(int id, EngineConfig cfg, PeerLoad peerLoad) {
        this.id = id;
        this.peerLoad = peerLoad;
        this.cc = cfg.congestionControl.create(this, cfg);
        this.cwndBytes = cc.cwndBytes();
    }

    /** The route's controller starts, or starts again after a re-admission (PATH-6): the initial window. */
    void startCc() {
        cc.onStart();
        cwndBytes = cc.cwndBytes();
        refreshRoom();
    }

    /** CC-2, CC-3: an ACK newly acknowledged {@code packets} ({@code bytes}) reporting {@code marked} CE marks. */
    void onAck(int packets, long bytes, int marked, long nowNs) {
        cc.onAck(packets, bytes, marked, nowNs);
        cwndBytes = cc.cwndBytes();
        refreshRoom();
    }

    /** CC-4: a packet of the route was declared lost. */
    void onLoss(long nowNs) {
        cc.onLoss(nowNs);
        cwndBytes = cc.cwndBytes();
        refreshRoom();
    }

    /** CC-6: a retransmission timeout on the route ({@code first} of a series saves what it cuts for RTO-7). */
    void onTimeout(long nowNs, boolean first) {
        cc.onTimeout(nowNs, first);
        cwndBytes = cc.cwndBytes();
        refreshRoom();
    }

    /** RTO-7: the timeout series proved spurious: the window it cut comes back. */
    void undoTimeout() {
        cc.undoTimeout();
        cwndBytes = cc.cwndBytes();
        refreshRoom();
    }

    /**
     * When the route may take its next data packet (CC-5, CC-10): kept in its peer's {@link PeerLoad#nextSendNs}, an
     * array the path choice reads for every path with room without reading the route itself.
     */
    long nextSendNs() {
        return peerLoad.nextSendNs[id];
    }

    /** CC-5: the route's next pacing slot is at {@code atNs}. */
    void nextSendNs(long atNs) {
        peerLoad.nextSendNs[id] = atNs;
    }

    /** PATH-18: the route's pacing queue, made on first use. */
    PacingQueue pacingQueue() {
        if (pacing == null) {
            pacing = new PacingQueue(this, peerLoad.engine, peerLoad.mtu);
        }
        return pacing;
    }

    /** PATH-18: whether {@code qp} may send on the route now as far as its turn among waiting QPs goes. */
    boolean turnOf(QueuePair qp) {
        return pacing == null || pacing.mayUse(qp);
    }

    /** CC-5: a packet took the route's pacing slot; the next one is timed if QPs wait for it. */
    void paced() {
        if (pacing != null) {
            pacing.paced();
        }
    }

    /** A packet left the route's flight: QPs parked for room get their turn timed again (PATH-18). */
    void roomOpened() {
        if (pacing != null) {
            pacing.roomOpened();
        }
    }

    /**
     * PATH-1 (3), PATH-15: whether the route has room for one more datagram of up to {@code mtu} payload bytes of any
     * QP: nothing in flight (one packet may always go, the smallest window, CC-10), or the bytes in flight plus half a
     * packet within the window. The window is a real number of bytes and datagrams are whole, so the window is taken
     * to the nearest whole packet: rounded down, a route lost half a packet on average, and a connection of 16 paths
     * started with 2 packets per path where CC-1 gives it about 2.9.
     */
    boolean hasRoom(int mtu) {
        return inflightBytes == 0 || inflightBytes + (mtu >> 1) <= cwndBytes;
    }

    /**
     * PATH-1, PATH-15: keeps this route's open window in its peer's {@link PeerLoad#roomBytes} and its bit in
     * {@link PeerLoad#fullRoutes} true to whether it has no room ({@link #hasRoom}): called wherever the window or the
     * bytes in flight change.
     */
    void refreshRoom() {
        if (id < 0) {
            return; // the sample controller of a PeerLoad, not a route
        }
        peerLoad.roomBytes[id] = cwndBytes - inflightBytes;
        long[] full = peerLoad.fullRoutes;
        if (hasRoom(peerLoad.mtu)) {
            full[id >>> 6] &= ~(1L << id);
        } else {
            full[id >>> 6] |= 1L << id;
        }
    }

    /** The path id (the same on every QP that shares it). */
    public int id() {
        return id;
    }

    /** The smoothed RTT of the route over every sharing QP's samples, in ns (0 before the first). */
    public long srttNs() {
        return srttNs;
    }

    /** The smallest RTT sample seen on the route, in ns (0 before the first). */
    public long minRttNs() {
        return minRttNs;
    }

    /** When an ACK last reported a CE mark on the route ({@link Long#MIN_VALUE}: never). */
    public long lastCeNs() {
        return lastCeNs;
    }

    /**
     * CC-4: whether a loss now looks like congestion: a CE mark within the last 4 smoothed RTTs, or a queue
     * (smoothed RTT above the unloaded one by more than half of it). Otherwise it is taken for random loss.
     */
    public boolean congestedNow(long nowNs) {
        if (markedRecently(nowNs)) {
            return true;
        }
        return minRttNs == 0 || srttNs - minRttNs > minRttNs / 2;
    }

    /** CC-4, RTO-12: whether an ACK reported a CE mark on the route within the last 4 smoothed RTTs. */
    public boolean markedRecently(long nowNs) {
        return lastCeNs != Long.MIN_VALUE && nowNs - lastCeNs <= 4 * srttNs;
    }

    /**
     * PATH-16: whether the route delivered a packet, of any QP sharing it, sent after {@code sentNs}: then a timeout
     * of a packet sent at {@code sentNs} is that packet's loss, not the route's failure.
     */
    public boolean deliveredSince(long sentNs) {
        return newestDeliveredSentNs != Long.MIN_VALUE && newestDeliveredSentNs - sentNs > 0;
    }

    /** Starts the controller the first time a QP starts sending on the route; later QPs join its state. */
    void startIfNew() {
        if (!started) {
            started = true;
            startCc();
        }
    }

    void onRttSample(long sampleNs) {
        if (sampleNs <= 0) {
            return;
        }
        if (minRttNs == 0 || sampleNs < minRttNs) {
            minRttNs = sampleNs;
        }
        rttvarNs = RttEstimator.rttvarAfter(srttNs, rttvarNs, sampleNs);
        srttNs = RttEstimator.srttAfter(srttNs, sampleNs);
        if (peerLoad != null) {
            peerLoad.onRttSample(sampleNs);
        }
    }

    /**
     * RTO-2: the route's timeout estimate {@code srtt + 4 rttvar} over every sharing QP's samples, in ns (0 before
     * the first): a QP that samples the route rarely still times out no earlier than the queue the others see.
     */
    public long rtoEstimateNs() {
        return srttNs == 0 ? 0 : srttNs + 4 * rttvarNs;
    }
}
