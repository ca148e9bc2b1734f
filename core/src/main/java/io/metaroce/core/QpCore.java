package io.metaroce.core;

import io.metaroce.core.wire.Opcode;

/**
 * The state one queue pair's roles share ({@link Responder}, {@link LossRecovery}, {@link Rack},
 * {@link PathProber}, {@link TransmitScheduler}, {@link PacketWriter}, {@link QpTimers}), and the helpers every role
 * needs: counting, finishing and retiring work requests in order (ORD-1), declaring a segment lost, and entering
 * the error state (VERBS-8). {@link QueuePair} is the verbs face over it.
 */
final class QpCore {
    static final int Q_SEND = 0;
    static final int Q_RESP = 1;
    /** Paths made together ({@link #path(int)}): ids {@code 16k..16k+15}. */
    static final int PATH_BLOCK = 16;
    /** PSNs of room REL-15 leaves in a path's 256-PSN window: lost records are not held into it. */
    private static final int LOST_HOLD_HEADROOM = 64;

    final Engine engine;
    final EngineConfig cfg;
    final ProtectionDomain pd;
    final CompletionQueue sendCq;
    final CompletionQueue recvCq;
    final int qpn;
    final Counters counters = new Counters();
    /**
     * The paths by id, made on first use in blocks ({@link #path(int)}): a null slot is a path nothing has touched
     * since the QP was made, in the state its last resets left it (fresh, or as {@link #startRx} and {@link #startTx}
     * start one). Loops over the array skip null slots where a fresh path would do nothing, and the scheduler reads a
     * null slot as a fresh path on its route (PATH-1). With 48 paths a QP typically sends on a handful.
     */
    final Path[] paths;
    /** The prober every path of the QP reports to ({@link Path#owner}). */
    PathProber prober;
    /** The peer's routes and waiting QPs (PATH-15; null before RTR). */
    PeerLoad peerLoad;
    /** Whether RTR and RTS ran (since the QP was made), and the initial PSNs they gave: what a path made now takes. */
    private boolean rxStarted;
    private boolean txStarted;
    private int rxInitialPsn;
    private int txInitialPsn;
    /** Bit i: path i may have a timer armed (see {@link Path#armedMask()}); the timers scan only these. */
    final long[] armedPaths;
    /**
     * Bit i: path i is made and may not take a packet by its own state (see {@link Path#refreshOpen()}); with its
     * peer's {@link PeerLoad#fullRoutes} the path choice finds the paths with room without reading each path.
     */
    final long[] closedPaths;
    final OutQueue sq;
    final OutQueue rsq;
    final RetransmitQueue retx = new RetransmitQueue();
    /** RNR/BUSY resends waiting for their hold time (NAK-7). */
    final RetransmitQueue held = new RetransmitQueue();
    final InboundMessages inbound;
    final RecvQueue rq;
    /** NAKs the responder owes (NAK-*). */
    final ControlRing naks = new ControlRing();
    /** REL-16: the receiver's check for segments missing behind later ones of their message. */
    final MissingSegments missing = new MissingSegments(this);
    /** Probe replies owed (PATH-10). */
    final ControlRing replies = new ControlRing();
    /** The PARITY owed (REL-18). */
    final ParityOwed parityOwed = new ParityOwed();
    /** PARITY packets received and held, and the segments rebuilt from them (REL-18). */
    final ParityDecoder parityIn = new ParityDecoder(this);
    /** REL-18: the last rx MSN the peer's ACKs reported, once one was ({@link #peerRetiredBelow}). */
    private int peerRxMsn;
    private boolean peerRxMsnKnown;

    /** The verbs face of this QP (what the engine's ready queue and timer heap hold). */
    QueuePair face;
    QpState state = QpState.RESET;
    int peer;
    int remoteQpn;
    int nextMsn;
    int nextRsn;
    /** When every path became FAILED (NO_DEADLINE: some path lives): the connection timeout runs from here. */
    long allFailedSinceNs = Engine.NO_DEADLINE;
    /**
     * RTO-9: timeouts on any path since the peer last newly acknowledged anything of this QP: every path's timer
     * backs off at least this much, so a segment moving from path to path in a total outage is not resent on
     * each fresh path's short timer (and {@code retryLimit} is not spent in milliseconds).
     */
    int silentTimeouts;
    /**
     * RTO-9: until when a timeout of any path belongs to the round of the last one counted in {@link #silentTimeouts}
     * (valid while it is above 0): paths that time out together count once, as one path would.
     */
    long silentRoundEndNs;
    long sendsRetired;
    /** Some path may owe an ACK now (cleared when a scan finds none due). */
    boolean ackWork;

    QpCore(Engine engine, int qpn, ProtectionDomain pd, CompletionQueue sendCq, CompletionQueue recvCq) {
        this.engine = engine;
        this.cfg = engine.config();
        this.qpn = qpn;
        this.pd = pd;
        this.sendCq = sendCq;
        this.recvCq = recvCq;
        this.paths = new Path[cfg.paths];
        this.armedPaths = new long[(cfg.paths + 63) >>> 6];
        this.closedPaths = new long[(cfg.paths + 63) >>> 6];
        this.sq = new OutQueue(cfg.sqDepth);
        this.rsq = new OutQueue(cfg.sqDepth);
        this.inbound = new InboundMessages(cfg.sqDepth);
        this.rq = new RecvQueue(cfg.rqDepth);
    }

    /** Path {@code id}, made on first use: call it where a path is written or handed on (a packet, a getter). */
    Path path(int id) {
        Path p = paths[id];
        return p != null ? p : makePath(id);
    }

    /**
     * Makes path {@code id} and the others of its block of {@link #PATH_BLOCK} not made yet, one after the other: the
     * scheduler's scan reads every path of the QP for each packet, and paths made together lie together in memory
     * (made one by one as the QP first sends on each, they were scattered among other objects, and the k=16
     * permutation took ~10-40% more CPU for it).
     */
    private Path makePath(int id) {
        int from = id & -PATH_BLOCK;
        int to = Math.min(paths.length, from + PATH_BLOCK);
        for (int i = from; i < to; i++) {
            if (paths[i] == null) {
                paths[i] = newPath(i);
            }
        }
        return paths[id];
    }

    private Path newPath(int id) {
        Path p = new Path(id, id % cfg.planes);
        p.owner = prober;
        if (rxStarted) {
            p.resetRx(rxInitialPsn);
            p.share(peerLoad);
        }
        if (txStarted) {
            p.resetTx(txInitialPsn, cfg.initialRtoNs);
        }
        return p;
    }

    /** RTR: every path expects {@code psn} first from the peer whose routes are {@code load} (PATH-15). */
    void startRx(int psn, PeerLoad load) {
        peerLoad = load;
        rxInitialPsn = psn;
        rxStarted = true;
        for (Path p : paths) {
            if (p != null) {
                p.resetRx(psn);
                p.share(load);
            }
        }
    }

    /** RTS: every path sends from {@code psn}. */
    void startTx(int psn) {
        txInitialPsn = psn;
        txStarted = true;
        for (Path p : paths) {
            if (p != null) {
                p.resetTx(psn, cfg.initialRtoNs);
            }
        }
    }

    /** The next PSN of path {@code id} (the initial one on a path never used). */
    int nextPsn(int id) {
        Path p = paths[id];
        return p != null ? p.nextPsn : txStarted ? txInitialPsn : 0;
    }

    boolean running() {
        return state == QpState.RTS || state == QpState.RTR;
    }

    void count(Counter c) {
        counters.inc(c);
        engine.counters.inc(c);
    }

    void add(Counter c, long n) {
        counters.add(c, n);
        engine.counters.add(c, n);
    }

    OutQueue queue(int q) {
        return q == Q_SEND ? sq : rsq;
    }

    /** The live work request a path's in-flight record {@code i} refers to, or null. */
    SendWqe recordWqe(Path p, int i) {
        return queue(p.recQueue[i]).live(p.recSerial[i]);
    }

    /**
     * Moves a path's floor (REL-5) past every resolved record: acknowledged ones, and lost ones once REL-15 no longer
     * holds them.
     */
    void advanceFloor(Path p, long nowNs) {
        int from = p.floor;
        while (p.floor != p.nextPsn) {
            int i = p.slot(p.floor);
            byte st = p.recState[i];
            if (st == Path.INFLIGHT || st == Path.LOST_HELD && holdsLost(p, i, nowNs)) {
                break;
            }
            p.recState[i] = Path.FREE;
            p.floor++;
        }
        if (p.floor != from) {
            p.refreshOpen(); // a full PSN window may have opened
        }
    }

    /**
     * REL-15: a PSN declared lost by a timer keeps its record (out of flight, but below the floor's reach) for a hold
     * after the declaration, so that a late ACK of a packet that was only delayed (a standing queue, a stalled host) still
     * acknowledges its segment instead of leaving every copy to be overtaken by the next timer. The hold ends when
     * the segment is acknowledged otherwise, after {@code min(RTO, 2 srtt + ackDelay)}, or when the PSN window needs
     * the room.
     */
    private boolean holdsLost(Path p, int i, long nowNs) {
        if (p.nextPsn - p.floor >= Path.WINDOW - LOST_HOLD_HEADROOM) {
            return false;
        }
        long srttNs = p.srttNs();
        long hold = srttNs == 0 ? cfg.minRtoNs
                : Math.min(PathDeadlines.currentRtoNs(p, cfg.maxRtoNs, silentTimeouts), 2 * srttNs + cfg.ackDelayNs);
        if (nowNs - p.recSentNs[i] >= hold) { // a LOST record's time is when it was declared lost
            return false;
        }
        SendWqe w = recordWqe(p, i);
        return w != null && !w.done && !SendWqe.bit(w.acked, p.recSeg[i]);
    }

    /**
     * Marks record {@code i} of path {@code p} lost and queues its segment again (after {@code holdNs}).
     * {@code byTimer}: the loss was inferred from time alone (RTO, REL-14), not from later packets of the same path
     * (REL-3, RTO-8) or a NAK, so REL-15 holds the record, whose time becomes the time of the declaration.
     */
    void declareLost(Path p, int i, long nowNs, long holdNs, boolean byTimer) {
        p.recState[i] = byTimer ? Path.LOST_HELD : Path.LOST;
        p.recSentNs[i] = nowNs;
        p.removeInflight(p.recBytes[i]);
        if (holdNs == 0) {
            p.peer.lossRate.onLost(); // REL-21: the packet's loss, whether or not its segment is still needed
        }
        SendWqe w = recordWqe(p, i);
        if (w == null || w.done || SendWqe.bit(w.acked, p.recSeg[i])) {
            return;
        }
        if (holdNs > 0) {
            // An RNR/BUSY resend is not a transport retry: it does not count against retryLimit.
            held.push(p.recQueue[i], p.recSerial[i], p.recSeg[i], p.recAttempt[i] - 1, nowNs + holdNs);
        } else {
            p.peer.lastLossNs = nowNs; // REL-18: parityAfterLossNs counts from here
            retx.push(p.recQueue[i], p.recSerial[i], p.recSeg[i], p.recAttempt[i], 0);
        }
    }

    void onSegmentAcked(int q, long serial, int seg) {
        SendWqe w = queue(q).live(serial);
        if (w == null || w.done || SendWqe.bit(w.acked, seg)) {
            return;
        }
        SendWqe.set(w.acked, seg);
        w.ackedCount++;
        if (w.ackedCount == w.segments && w.op != Opcode.READ_REQ) {
            finish(w, WcStatus.SUCCESS); // REL-1: every byte acknowledged means every byte placed
            if (w.signaled && cfg.seam.completeOutOfOrder()) { // a defect a test may plug in (ProtocolSeam)
                sendCq.push(w.wrId, w.status, w.wcOpcode(), w.length, 0, false, qpn);
                w.signaled = false;
            }
        }
    }

    /**
     * REL-18: the peer has retired every message of this QP below {@code rxMsn} (an ACK's rx MSN), so each of them
     * this QP has sent whole (below the send queue's next to send) is acknowledged whole, whatever its PSNs' fate: a
     * segment the peer rebuilt from a PARITY is never acknowledged by PSN. READs complete by their responses.
     */
    void peerRetiredBelow(int rxMsn) {
        if (peerRxMsnKnown && rxMsn == peerRxMsn) {
            return; // nothing new: what lay below it was settled when it was first seen
        }
        peerRxMsnKnown = true;
        peerRxMsn = rxMsn;
        for (long s = sq.head; s < sq.nextToSend; s++) {
            SendWqe w = sq.at(s);
            if (w.msn - rxMsn >= 0) {
                return;
            }
            if (w.done || w.op == Opcode.READ_REQ) {
                continue;
            }
            for (int seg = 0; seg < w.segments; seg++) {
                if (!SendWqe.bit(w.acked, seg)) {
                    SendWqe.set(w.acked, seg);
                    w.ackedCount++;
                }
            }
            finish(w, WcStatus.SUCCESS); // REL-1: the peer placed every byte
        }
    }

    static void finish(SendWqe w, WcStatus status) {
        if (!w.done) {
            w.done = true;
            w.status = status;
        }
    }

    /** Completes finished work requests in posting order (ORD-1). */
    void retireSends() {
        while (sq.head != sq.tail) {
            SendWqe w = sq.at(sq.head);
            if (!w.done) {
                return;
            }
            if (w.signaled || w.status != WcStatus.SUCCESS) {
                int len = w.status == WcStatus.SUCCESS ? w.length : 0;
                sendCq.push(w.wrId, w.status, w.wcOpcode(), len, 0, false, qpn);
                count(w.status == WcStatus.SUCCESS ? Counter.COMPLETIONS : Counter.ERROR_COMPLETIONS);
            }
            w.local = null;
            sq.head++;
            sendsRetired++;
            engine.touch(face);
            if (sq.nextToSend < sq.head) {
                sq.nextToSend = sq.head;
            }
        }
    }

    void retireResponses() {
        while (rsq.head != rsq.tail && rsq.at(rsq.head).done) {
            rsq.at(rsq.head).local = null;
            rsq.head++;
            if (rsq.nextToSend < rsq.head) {
                rsq.nextToSend = rsq.head;
            }
        }
    }

    /** A work request failed: the QP enters ERROR with that status on it (VERBS-8). */
    void failRequest(SendWqe w, WcStatus status) {
        if (w.op == Opcode.READ_RESP) {
            // A responder's READ response failing does not fail the responder: drop the response.
            finish(w, status);
            retireResponses();
            return;
        }
        finish(w, status);
        enterError(w);
    }

    void enterError(SendWqe cause) {
        if (state == QpState.ERROR) {
            return;
        }
        state = QpState.ERROR;
        engine.touch(face);
        for (long s = sq.head; s < sq.tail; s++) {
            SendWqe w = sq.at(s);
            if (w != cause && !w.done) {
                finish(w, WcStatus.WR_FLUSH_ERR);
            }
        }
        retireSends();
        while (rq.count > 0) {
            int idx = rq.headIndex();
            recvCq.push(rq.wrIds[idx], WcStatus.WR_FLUSH_ERR, WcOpcode.RECV, 0, 0, false, qpn);
            count(Counter.ERROR_COMPLETIONS);
            rq.pop();
        }
        rsq.clear();
        retx.clear();
        held.clear();
        naks.clear();
        missing.reset();
        replies.clear();
        parityOwed.clear();
        parityIn.reset();
        peerRxMsnKnown = false;
        for (Path p : paths) {
            if (p == null) {
                continue; // a path never used has nothing to clear
            }
            SharedPath route = p.routeIfMade();
            if (route != null && route.prober == p) {
                PathProber.handOver(route); // PATH-17: another QP probes the route from now on
            }
            p.clearRecords();
            p.floor = p.nextPsn;
            p.clearInflight();
            p.ackNow = false;
            p.rxPending = 0;
            p.rxClearHeld();
            p.ackDeadlineNs = Engine.NO_DEADLINE;
            p.probeDeadlineNs = Engine.NO_DEADLINE;
            p.probeDue = false;
        }
    }

    boolean allPathsFailed() {
        for (Path p : paths) {
            if (p == null || p.state == PathState.ACTIVE || p.state == PathState.SUSPECT) {
                return false;
            }
        }
        return true;
    }

    static boolean sendable(Path p) {
        return p.state == PathState.ACTIVE || p.state == PathState.SUSPECT;
    }

    boolean hasDataToSend() {
        return !retx.isEmpty() || hasNewData();
    }

    /** Whether a message of the send queue or a READ response has segments never sent yet. */
    boolean hasNewData() {
        return sq.hasNew() || rsq.hasNew();
    }
}
