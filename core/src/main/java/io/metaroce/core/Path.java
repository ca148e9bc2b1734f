package io.metaroce.core;

/**
 * One path of a QP (spec PATH-*, REL-*, SACK-*): both directions of it. As a sender it keeps its own PSN space,
 * in-flight records for PSNs in [floor, nextPsn), RTT estimate, retransmission timer, pacing and health, and its
 * own {@link CongestionControl} instance; as a receiver it keeps the cumulative PSN and the 256-bit accepted-PSN
 * bitmap of the reverse direction ({@link ReceivedPsns}). Fields are package-private for the engine and the
 * congestion strategy; read them through the getters.
 * <p>
 * Memory: a QP may have up to 256 paths and most of them may stay idle, so its QP makes paths when they are first
 * used (in blocks, {@link QpCore#path}), a path keeps inline only what the transmit path touches on every packet
 * (about 160 bytes) and makes the rest when it is first needed: the in-flight record table on the first send,
 * {@link PathSendState} on the first send, ACK or probe reply, {@link ReceiveWindow} on the first packet received,
 * {@link PathFaults} on the first timeout, failure or probe, and its route ({@link #route()}) when first written.
 */
public final class Path {
    /** PSNs tracked at once: the width of the SACK bitmap. */
    static final int WINDOW = 256;
    static final int MASK = WINDOW - 1;
    /** In-flight records a sending path starts with (see {@link #ensureRecords}). */
    static final int MIN_RECORDS = 4;
    static final byte FREE = 0;
    static final byte INFLIGHT = 1;
    static final byte ACKED = 2;
    static final byte LOST = 3;
    /** Declared lost by a timer (RTO or REL-14) and kept for REL-15's hold, so a late ACK still counts. */
    static final byte LOST_HELD = 4;

    /** The path's index in its QP (EngineConfig#paths is at most 256). */
    final short id;
    final short plane;
    PathState state = PathState.ACTIVE;

    // ---- sender side ----
    int nextPsn;
    int floor;
    // in-flight records for PSNs in [floor, nextPsn) at slot(psn), made by ensureRecords() before each send: none
    // on a path that only receives (every path of a WRITE's responder), MIN_RECORDS at first, doubled up to WINDOW
    // (~7.5 KB) as the path's flight grows
    byte[] recState;
    byte[] recQueue;
    long[] recSerial;
    int[] recSeg;
    int[] recBytes;
    int[] recAttempt;
    long[] recSentNs;
    int inflightPackets;
    /** PATH-15: the route shared with every QP of the engine to the peer (null until {@link #route()} makes it). */
    private SharedPath route;
    /** The peer's routes and waiting QPs (null before RTR). */
    PeerLoad peer;
    /**
     * The prober of the QP this path belongs to (PATH-17: another QP's probes may re-admit this path through it), and
     * through it the QP (its armed mask, see {@link #armedMask()}); null for a path outside a QP.
     */
    PathProber owner;
    /** PATH-17: in its route's list of failed paths waiting for the route's verdict. */
    boolean waitingOnRoute;
    /** RTT estimate, backoff, ACK progress, tail-loss probe and counters: null until the path first sends or hears. */
    private PathSendState tx;
    long rtoNs;
    long lastProgressNs;
    long probeDeadlineNs = Engine.NO_DEADLINE;
    boolean probeDue;
    /** Timeouts, failures, RTO-7 undo and probe state: null until the path first times out, fails or is probed. */
    private PathFaults faults;
    /** Whether the path's newest data packet asked for an immediate ACK (RTO-6). */
    boolean lastTxAckReq;
    /** RTO-8: a tail-loss probe is out and its answer not yet seen. */
    boolean tlpCheck;
    /** REL-14: packets of this path declared lost by a later packet's ACK since its last progress. */
    int rackStreak;

    // ---- receiver side (reverse direction) ----
    int rxCum;
    /** The bitmap, echo and hold state, made on the first packet received: null on a path that only sends. */
    private ReceiveWindow rx;
    int rxPending;
    long ackDeadlineNs = Engine.NO_DEADLINE;
    boolean ackNow;

    // ---- per-path counters ----
    long txPackets;
    long txBytes;
    long retransmits;

    Path(int id, int plane) {
        this.id = (short) id;
        this.plane = (short) plane;
    }

    /** Joins the engine's route to {@code load}'s peer on this path id (PATH-15). */
    void share(PeerLoad load) {
        peer = load;
        route = null; // made on first use (PeerLoad#path): most routes of most peers never carry a packet
    }

    /** This path's route (PATH-15), made on first use: call it where the route is written (only after RTR). */
    SharedPath route() {
        SharedPath r = route;
        if (r == null) {
            r = peer.path(id);
            route = r;
        }
        return r;
    }

    /** This path's route if a QP to the peer made it, else null: an idle route (see {@link PeerLoad}). */
    SharedPath routeIfMade() {
        SharedPath r = route;
        if (r == null && peer != null) {
            r = peer.pathIfMade(id);
            route = r;
        }
        return r;
    }

    /**
     * Makes room for a record at {@code nextPsn}: allocates {@link #MIN_RECORDS} on first use and doubles the
     * table (up to the {@link #WINDOW} PSNs a path may have in flight) when {@code [floor, nextPsn]} would not fit.
     * A path that keeps a few packets in flight per round trip never pays for 256 records.
     */
    void ensureRecords() {
        if (recState == null) {
            allocateRecords(MIN_RECORDS);
        } else if (nextPsn - floor >= recState.length) {
            growRecords();
        }
    }

    /**
     * The slot of {@code psn}'s in-flight record: only for PSNs in {@code [floor, nextPsn)} (a path that never sent
     * has no table).
     */
    int slot(int psn) {
        return psn & (recState.length - 1);
    }

    /** Slots allocated for in-flight records (0 before the first send). */
    int recordCapacity() {
        return recState == null ? 0 : recState.length;
    }

    private void allocateRecords(int n) {
        recState = new byte[n];
        recQueue = new byte[n];
        recSerial = new long[n];
        recSeg = new int[n];
        recBytes = new int[n];
        recAttempt = new int[n];
        recSentNs = new long[n];
    }

    private void growRecords() {
        if (recState.length >= WINDOW) {
            return; // a full window: slots alias modulo WINDOW as before the table could grow (see PathRecordsTest)
        }
        byte[] state = recState;
        byte[] queue = recQueue;
        long[] serial = recSerial;
        int[] seg = recSeg;
        int[] bytes = recBytes;
        int[] attempt = recAttempt;
        long[] sentNs = recSentNs;
        int oldMask = state.length - 1;
        allocateRecords(2 * state.length);
        int newMask = recState.length - 1;
        for (int psn = floor; psn != nextPsn; psn++) {
            int from = psn & oldMask;
            int to = psn & newMask;
            recState[to] = state[from];
            recQueue[to] = queue[from];
            recSerial[to] = serial[from];
            recSeg[to] = seg[from];
            recBytes[to] = bytes[from];
            recAttempt[to] = attempt[from];
            recSentNs[to] = sentNs[from];
        }
    }

    /** Marks every in-flight record FREE (nothing to do before the first send). */
    void clearRecords() {
        if (recState != null) {
            java.util.Arrays.fill(recState, FREE);
        }
    }

    /** Sets the path's state (PATH-4..PATH-6, RTO-5) and whether it may take a packet ({@link #refreshOpen()}). */
    void setState(PathState s) {
        state = s;
        refreshOpen();
    }

    /**
     * PATH-1: keeps this path's bit in its QP's {@link QpCore#closedPaths} true to whether the path, by its own state,
     * may not take a packet: not sendable (FAILED, PROBING), its PSN window full, or SUSPECT with a packet of its QP in
     * flight. Called wherever one of these changes (the state, {@code nextPsn}, {@code floor}, the packets in flight),
     * so the scheduler's path choice reads one bit per path instead of the path itself.
     */
    void refreshOpen() {
        if (owner == null) {
            return;
        }
        boolean open = (state == PathState.ACTIVE || state == PathState.SUSPECT && inflightPackets == 0)
                && psnWindowOpen();
        long[] closed = owner.c.closedPaths;
        if (open) {
            closed[id >>> 6] &= ~(1L << id);
        } else {
            closed[id >>> 6] |= 1L << id;
        }
    }

    /** Starts the sending direction at {@code txInitialPsn}. */
    void resetTx(int txInitialPsn, long initialRtoNs) {
        state = PathState.ACTIVE;
        nextPsn = txInitialPsn;
        floor = txInitialPsn;
        clearRecords();
        clearInflight();
        if (tx != null) {
            tx.reset();
        }
        rtoNs = initialRtoNs;
        probeDeadlineNs = Engine.NO_DEADLINE;
        probeDue = false;
        tlpCheck = false;
        rackStreak = 0;
        if (faults != null) {
            faults.rtoUndoArmed = false;
        }
        refreshOpen();
    }

    /** Starts the receiving direction expecting {@code rxInitialPsn} first. */
    void resetRx(int rxInitialPsn) {
        rxCum = rxInitialPsn - 1;
        clearRxBits();
        rxAcknowledged();
        rxPending = 0;
        ackDeadlineNs = Engine.NO_DEADLINE;
        ackNow = false;
    }

    /** ACK-12: a packet to acknowledge (its timestamp echoed from now on) arrived at {@code heldAtNs}. */
    void rxHeld(long heldAtNs, boolean pending) {
        ReceiveWindow w = rx();
        w.echoAtNs = heldAtNs;
        if (pending && w.heldSinceNs == Engine.NO_DEADLINE) {
            w.heldSinceNs = heldAtNs;
        }
    }

    // ---------------- receive window ----------------

    /** The path's {@link ReceiveWindow} if made (null: nothing received yet), for {@link ReceivedPsns}. */
    ReceiveWindow rxIfMade() {
        return rx;
    }

    /** The path's {@link ReceiveWindow}, made on first use: call it where a packet is received. */
    ReceiveWindow rx() {
        if (rx == null) {
            rx = new ReceiveWindow();
        }
        return rx;
    }

    /** CE-marked packets accepted since the last ACK. */
    int rxCe() { return rx == null ? 0 : rx.ce; }

    /** The timestamp the path's ACK echoes (0 before anything was received). */
    long rxEchoTs() { return rx == null ? 0 : rx.echoTs; }

    /** ACK-12: when the echoed packet arrived ({@link Engine#NO_DEADLINE}: nothing received). */
    long rxEchoAtNs() { return rx == null ? Engine.NO_DEADLINE : rx.echoAtNs; }

    /** ACK-12: the earliest arrival not yet acknowledged ({@link Engine#NO_DEADLINE}: none). */
    long rxHeldSinceNs() { return rx == null ? Engine.NO_DEADLINE : rx.heldSinceNs; }

    /** ACK-12: nothing received is held back any more. */
    void rxClearHeld() {
        if (rx != null) {
            rx.heldSinceNs = Engine.NO_DEADLINE;
        }
    }

    /** An ACK just reported the receive state: no CE marks to echo and nothing held back. */
    void rxAcknowledged() {
        if (rx != null) {
            rx.ce = 0;
            rx.heldSinceNs = Engine.NO_DEADLINE;
        }
    }

    /** Forgets every PSN above the cumulative one (the bitmap, if made). */
    void clearRxBits() {
        if (rx != null) {
            rx.clearAll();
        }
    }

    // ---------------- send state ----------------

    /** This path's {@link PathSendState}, made on first use: call it where the state is written. */
    PathSendState tx() {
        if (tx == null) {
            tx = new PathSendState();
        }
        return tx;
    }

    /** RTO-3: timeouts of this path since its last progress, the exponent of its backoff. */
    int backoff() { return tx == null ? 0 : tx.backoff; }

    /** RTO-6: tail-loss probes sent since the last progress. */
    int tlps() { return tx == null ? 0 : tx.tlps; }

    /** Whether any PSN of the path was acknowledged since it started. */
    boolean anyAcked() { return tx != null && tx.anyAcked; }

    /** The highest PSN acknowledged (valid once {@link #anyAcked()}). */
    int highestAcked() { return tx == null ? 0 : tx.highestAcked; }

    // ---------------- rare state ----------------

    /** This path's {@link PathFaults}, made on first use: call it where a timeout, failure or probe is recorded. */
    PathFaults faults() {
        if (faults == null) {
            faults = new PathFaults();
        }
        return faults;
    }

    /** RTO-7: whether a timeout series may still be undone (false on a path that never timed out). */
    boolean rtoUndoArmed() { return faults != null && faults.rtoUndoArmed; }

    /** PATH-10: the id the path's next probe carries (0 until a probe was answered). */
    long probeId() { return faults == null ? 0 : faults.probeId; }

    // ---------------- sender helpers ----------------

    /**
     * The QP's mask of paths that may have a timer armed ({@link QpTimers}): bit {@code id} is set whenever this path
     * takes a packet into flight, accepts a packet to acknowledge or sets a probe deadline, and cleared by the timers'
     * scan once none of the three holds. Null for a path outside a QP.
     */
    long[] armedMask() { return owner == null ? null : owner.c.armedPaths; }

    /** This path may have a timer armed from now on: the QP's timer scan must look at it. */
    void arm() {
        long[] armedMask = armedMask();
        if (armedMask != null) {
            armedMask[id >>> 6] |= 1L << id;
        }
    }

    /** Whether this path has no timer that {@link QpTimers} looks at: nothing in flight, to acknowledge or probed. */
    boolean timersIdle() {
        return inflightPackets == 0 && rxPending == 0 && probeDeadlineNs == Engine.NO_DEADLINE;
    }

    /** Sets the probe deadline (PATH-5, PATH-17) and arms the path's timers. */
    void armProbe(long deadlineNs) {
        probeDeadlineNs = deadlineNs;
        arm();
    }

    /** A packet of {@code bytes} went into flight on this path. */
    void addInflight(long bytes) {
        arm();
        tx().inflightBytes += bytes;
        inflightPackets++;
        SharedPath r = route();
        r.inflightBytes += bytes;
        r.inflightPackets++;
        r.refreshRoom();
        refreshOpen();
        peer.sent(1);
    }

    /** A packet of {@code bytes} left flight (acknowledged or declared lost). */
    void removeInflight(long bytes) {
        tx.inflightBytes -= bytes;
        inflightPackets--;
        SharedPath r = route; // made when the packet went into flight
        r.inflightBytes -= bytes;
        r.inflightPackets--;
        r.refreshRoom();
        refreshOpen();
        r.roomOpened();
        peer.released(1);
    }

    /** Nothing of this QP is in flight on the path any more (error, reset). */
    void clearInflight() {
        if (route != null && inflightPackets > 0) { // (packets in flight made the route)
            route.inflightBytes -= tx.inflightBytes;
            route.inflightPackets -= inflightPackets;
            route.refreshRoom();
            route.roomOpened();
            peer.released(inflightPackets);
        }
        if (tx != null) {
            tx.inflightBytes = 0;
        }
        inflightPackets = 0;
        refreshOpen();
    }

    /** True when another packet fits under the PSN window of the SACK bitmap. */
    boolean psnWindowOpen() {
        return nextPsn - floor < WINDOW;
    }

    void onRttSample(long sampleNs, long minRtoNs, long maxRtoNs) {
        if (sampleNs <= 0) {
            return;
        }
        PathSendState s = tx();
        if (s.minRttNs == 0 || sampleNs < s.minRttNs) {
            s.minRttNs = sampleNs;
        }
        s.rttvarNs = RttEstimator.rttvarAfter(s.srttNs, s.rttvarNs, sampleNs);
        s.srttNs = RttEstimator.srttAfter(s.srttNs, sampleNs);
        rtoNs = Math.min(maxRtoNs, Math.max(minRtoNs, s.srttNs + 4 * s.rttvarNs));
        if (peer != null) {
            route().onRttSample(sampleNs);
        }
    }

    // ---------------- getters for stats and tests ----------------

    public int id() { return id; }
    public int plane() { return plane; }
    public PathState state() { return state; }
    public long cwndBytes() { return peer == null ? 0 : (long) peer.cwndBytes(id); }
    public long inflightBytes() { return tx == null ? 0 : tx.inflightBytes; }
    public int inflightPackets() { return inflightPackets; }
    public long srttNs() { return tx == null ? 0 : tx.srttNs; }
    public long rttvarNs() { return tx == null ? 0 : tx.rttvarNs; }
    public long minRttNs() { return tx == null ? 0 : tx.minRttNs; }
    /** RTO-2: the base timeout (before backoff and the {@code maxRto} cap): this QP's or its route's, the larger. */
    public long rtoNs() { return PathDeadlines.baseRtoNs(this, Long.MAX_VALUE); }
    public double ecnAlpha() { return peer == null ? 0 : peer.alpha(id); }
    public int nextPsn() { return nextPsn; }
    public int floorPsn() { return floor; }
    public int rxCumPsn() { return rxCum; }
    public long txPackets() { return txPackets; }
    public long txBytes() { return txBytes; }
    public long retransmits() { return retransmits; }
    public long timeouts() { return faults == null ? 0 : faults.timeouts; }
    public long spuriousTimeouts() { return faults == null ? 0 : faults.spuriousTimeouts; }
    public long ecnEchoes() { return tx == null ? 0 : tx.ecnEchoes; }
    public long sackGaps() { return tx == null ? 0 : tx.sackGaps; }
    public long rxPackets() { return rx == null ? 0 : rx.packets; }
    public long failures() { return faults == null ? 0 : faults.failures; }
    public long readmissions() { return faults == null ? 0 : faults.readmissions; }

    @Override
    public String toString() {
        return String.format("path %d (plane %d) %s cwnd=%d inflight=%d srtt=%dns retx=%d rto=%d ecn=%d",
                id, plane, state, cwndBytes(), inflightBytes(), srttNs(), retransmits, timeouts(), ecnEchoes());
    }
}
