package io.metaroce.core;

import io.metaroce.core.auth.AuthKeys;
import io.metaroce.core.auth.PacketAuth;
import io.metaroce.core.wire.BaseHeader;
import io.metaroce.core.wire.Opcode;
import io.metaroce.core.wire.Packet;

import java.lang.foreign.MemorySegment;

/**
 * A reliable-connected queue pair spread over {@code paths} paths (spec VERBS-4, REL-*, PATH-*): the verbs face
 * (state machine, posting) over the QP's roles, which share a {@link QpCore}: the {@link Responder} (placement,
 * READ responses, receive completions), {@link LossRecovery} (SACK, NAK, RTO, undo) with {@link Rack} (REL-14),
 * the {@link PathProber} (path health), the {@link TransmitScheduler} with its {@link PacketWriter}, and the
 * {@link QpTimers}. Application methods ({@code post*}, {@code modifyTo*}) are called on the engine's thread;
 * everything else is driven by the {@link Engine}. Posting methods return {@link #OK} or an errno-like code
 * ({@link #EINVAL}, {@link #ENOMEM}) for a request that cannot be queued at all; every other failure is reported
 * as a completion.
 */
public final class QueuePair extends Timed {
    /** Post result: queued. */
    public static final int OK = 0;
    /** Post result: invalid request (bad local key, range, length or access; QP not ready). */
    public static final int EINVAL = 22;
    /** Post result: the queue is full. */
    public static final int ENOMEM = 12;
    /** Post flag: produce a completion on success too. */
    public static final int SIGNALED = 1;

    private final QpCore c;
    private final Engine engine;
    private final Responder responder;
    private final Rack rack;
    private final PathProber prober;
    private final LossRecovery recovery;
    private final TransmitScheduler scheduler;
    private final QpTimers timers;
    private final PacketWriter writer;
    private final BaseHeader base = new BaseHeader();
    /** AUTH-*: this connection's packet authenticator, or null (no authentication). */
    private PacketAuth auth;

    boolean inReady;
    /** PATH-15: waiting in its peer's list for room in a shared window. */
    boolean awaitingPeer;
    /** In the engine's list of QPs touched since the driver last drained it ({@link Engine#pollTouched()}). */
    boolean touched;
    /** CC-5: the route pacing queue this QP waits in for a pacing slot (null: none; see {@link PacingQueue}). */
    PacingQueue pacedOn;
    /** CC-5: the route pacing queue whose slot woke this QP, handed back after its next poll (null: none). */
    PacingQueue pacingToken;
    /** HINT-3: waiting in its peer's grant clock for the grant's next slot. */
    boolean awaitingGrant;
    /** PATH-14: this QP's earliest deadline that only lets it transmit, timed apart from the rest (ACK-2). */
    final SendDue sendDue = new SendDue(this);

    QueuePair(Engine engine, int qpn, ProtectionDomain pd, CompletionQueue sendCq, CompletionQueue recvCq) {
        this.engine = engine;
        this.c = new QpCore(engine, qpn, pd, sendCq, recvCq);
        c.face = this;
        this.responder = new Responder(c);
        this.rack = new Rack(c);
        this.prober = new PathProber(c);
        this.recovery = new LossRecovery(c, rack, prober);
        this.writer = new PacketWriter(c);
        this.scheduler = new TransmitScheduler(c, writer, prober);
        this.timers = new QpTimers(c, recovery, rack, prober);
    }

    /**
     * REL-16, CM-13: this QP sends no NAK MISSING, because its peer did not announce that it understands them
     * ({@code CAP_MISSING_NAK} missing from its CM_REQ or CM_REP: a version before REL-16, which would take code 7 for
     * an unknown NAK and fail the connection). The QP's own detection (REL-3, REL-14, RTO-6) finds those losses
     * instead. A reset to RESET turns them back on as {@link EngineConfig#missingNak} says.
     */
    public void disableMissingNaks() {
        c.missing.peerRefuses = true;
    }

    /** REL-16: whether this QP reports missing segments to its peer with NAK MISSING. */
    public boolean sendsMissingNaks() {
        return c.missing.enabled();
    }

    // =====================================================================================================
    // Getters
    // =====================================================================================================

    public int qpn() { return c.qpn; }
    public QpState state() { return c.state; }
    public int remoteQpn() { return c.remoteQpn; }
    public ProtectionDomain pd() { return c.pd; }
    /** This QP's own counters (the engine's counters add up every QP's). */
    public Counters counters() { return c.counters; }
    public int pathCount() { return c.paths.length; }
    /** Path {@code i} (reading a path the QP never used makes it: its getters then read the reset values). */
    public Path path(int i) { return c.path(i); }
    /** Work requests posted and not yet completed. */
    public int outstandingSends() { return c.sq.outstanding(); }
    /** Send work requests finished so far (completed, failed or flushed; signaled or not). */
    public long sendsRetired() { return c.sendsRetired; }
    /** Receives posted and not yet consumed. */
    public int postedReceives() { return c.rq.count; }
    /** The latest rate granted by the peer in bits/s (0 = none). */
    public long grantBps() { return c.peerLoad == null ? 0 : c.peerLoad.grant.bps; }
    /** Whether this QP's packets are authenticated (AUTH-1). */
    public boolean authenticated() { return auth != null; }
    /** Whether this QP's payloads are encrypted (AUTH-5). */
    public boolean encrypted() { return auth != null && auth.encrypts(); }
    /** AUTH-17: the generation of the key this QP seals with (its key updates so far; 0 without keys). */
    public long txKeyGeneration() { return auth == null ? 0 : auth.txKeyGeneration(); }
    /** AUTH-19: the generation of the peer's key this QP opens with (the peer's updates it followed). */
    public long rxKeyGeneration() { return auth == null ? 0 : auth.rxKeyGeneration(); }

    /**
     * AUTH-1: authenticates every packet of this connection with {@code keys} (derived by the connection manager,
     * AUTH-3, or configured by the application). Only in RESET or INIT, before the peer is known; both sides must
     * do it with matching keys. A reset forgets the keys: a reconnected QP needs new ones.
     */
    public void enableAuth(AuthKeys keys) {
        if (c.state != QpState.RESET && c.state != QpState.INIT) {
            throw new IllegalStateException("QP " + c.qpn + ": authentication is set before RTR, not in " + c.state);
        }
        if (c.cfg.elidePayload) {
            throw new IllegalStateException("authentication needs real payloads (elidePayload is on)");
        }
        auth = new PacketAuth(keys, c.paths.length);
        writer.auth = auth;
        writer.keyUpdates = new KeyUpdates(c, auth);
    }

    // =====================================================================================================
    // State machine (spec VERBS-6)
    // =====================================================================================================

    /** RESET -> INIT. */
    public void modifyToInit() {
        requireState(QpState.RESET, "INIT");
        c.state = QpState.INIT;
        engine.touch(this);
    }

    /** INIT -> RTR: learn the peer (an opaque handle for the driver), its QP number and initial PSN. */
    public void modifyToRtr(int peerHandle, int remoteQpNumber, int remoteInitialPsn) {
        requireState(QpState.INIT, "RTR");
        c.peer = peerHandle;
        c.remoteQpn = remoteQpNumber;
        c.startRx(remoteInitialPsn, engine.peerLoad(peerHandle));
        c.inbound.reset(0);
        c.state = QpState.RTR;
        engine.touch(this);
    }

    /** RTR -> RTS: start sending with {@code localInitialPsn} on every path. */
    public void modifyToRts(int localInitialPsn) {
        requireState(QpState.RTR, "RTS");
        c.startTx(localInitialPsn);
        c.peerLoad.start(); // PATH-15: a QP joining a route in use takes its window as it is
        rack.reset();
        c.allFailedSinceNs = Engine.NO_DEADLINE;
        c.silentTimeouts = 0;
        c.state = QpState.RTS;
        engine.reschedule(this);
        engine.markReady(this);
    }

    /** RESET or INIT -> RTS in one call. */
    public void connect(int peerHandle, int remoteQpNumber, int localInitialPsn, int remoteInitialPsn) {
        if (c.state == QpState.RESET) {
            modifyToInit();
        }
        modifyToRtr(peerHandle, remoteQpNumber, remoteInitialPsn);
        modifyToRts(localInitialPsn);
    }

    /** Any state -> ERROR: outstanding work is flushed with WR_FLUSH_ERR (spec VERBS-8). */
    public void modifyToError() {
        c.enterError(null);
    }

    /** ERROR (or any) -> RESET: forget everything; completions already queued stay in the CQs. */
    public void modifyToReset() {
        if (c.state != QpState.ERROR && c.state != QpState.RESET) {
            c.enterError(null);
        }
        c.sq.clear();
        c.rsq.clear();
        c.retx.clear();
        c.held.clear();
        c.naks.clear();
        c.replies.clear();
        prober.reset();
        c.nextMsn = 0;
        c.nextRsn = 0;
        auth = null; // AUTH-4: keys belong to one connection; nonces must never repeat under a key
        writer.auth = null;
        writer.keyUpdates = null;
        c.missing.peerRefuses = false; // REL-16: the next peer announces its own capabilities
        // A reconnected QP starts its MSN, RSN and queue serials afresh (serials index by MSN).
        c.sq.reset();
        c.rsq.reset();
        c.rq.reset();
        c.state = QpState.RESET;
        engine.touch(this);
    }

    private void requireState(QpState expected, String target) {
        if (c.state != expected) {
            throw new IllegalStateException("QP " + c.qpn + ": cannot move from " + c.state + " to " + target
                    + " (expected " + expected + ")");
        }
    }

    // =====================================================================================================
    // Posting (application)
    // =====================================================================================================

    /** RDMA WRITE of {@code length} bytes at {@code localOffset} of {@code mr} to (remoteVa, rkey). */
    public int postWrite(long wrId, MemoryRegion mr, long localOffset, int length, long remoteVa, int rkey,
                         int flags) {
        return post(Opcode.WRITE, wrId, mr, localOffset, length, remoteVa, rkey, 0, flags);
    }

    /** RDMA WRITE with immediate: consumes one receive at the peer, which completes with {@code imm}. */
    public int postWriteImm(long wrId, MemoryRegion mr, long localOffset, int length, long remoteVa, int rkey,
                            int imm, int flags) {
        return post(Opcode.WRITE_IMM, wrId, mr, localOffset, length, remoteVa, rkey, imm, flags);
    }

    /** SEND into the peer's next posted receive. */
    public int postSend(long wrId, MemoryRegion mr, long localOffset, int length, int flags) {
        return post(Opcode.SEND, wrId, mr, localOffset, length, 0, 0, 0, flags);
    }

    /** SEND with immediate. */
    public int postSendImm(long wrId, MemoryRegion mr, long localOffset, int length, int imm, int flags) {
        return post(Opcode.SEND_IMM, wrId, mr, localOffset, length, 0, 0, imm, flags);
    }

    /** RDMA READ of {@code length} bytes at (remoteVa, rkey) into {@code localOffset} of {@code mr}. */
    public int postRead(long wrId, MemoryRegion mr, long localOffset, int length, long remoteVa, int rkey,
                        int flags) {
        return post(Opcode.READ_REQ, wrId, mr, localOffset, length, remoteVa, rkey, 0, flags);
    }

    /** Posts a receive buffer for one SEND or WRITE_IMM. */
    public int postRecv(long wrId, MemoryRegion mr, long localOffset, int length) {
        if (c.state == QpState.RESET) {
            return EINVAL;
        }
        if (mr == null || !mr.isValid() || mr.pd() != c.pd || length < 0 || !mr.containsOffset(localOffset, length)
                || (mr.access() & Access.LOCAL_WRITE) == 0) {
            return EINVAL;
        }
        if (c.state == QpState.ERROR) {
            c.recvCq.push(wrId, WcStatus.WR_FLUSH_ERR, WcOpcode.RECV, 0, 0, false, c.qpn);
            c.count(Counter.ERROR_COMPLETIONS);
            return OK;
        }
        if (c.rq.full()) {
            return ENOMEM;
        }
        c.rq.push(wrId, mr, localOffset, length);
        // A receive may unblock SENDs held by RNR: let them go now.
        engine.markReady(this);
        return OK;
    }

    private int post(int op, long wrId, MemoryRegion mr, long localOffset, int length, long remoteVa, int rkey,
                     int imm, int flags) {
        QpState state = c.state;
        if (state == QpState.RESET || state == QpState.INIT || state == QpState.RTR) {
            return EINVAL;
        }
        if (length < 0 || mr == null || !mr.isValid() || mr.pd() != c.pd || !mr.containsOffset(localOffset, length)) {
            return EINVAL;
        }
        if (op == Opcode.READ_REQ && (mr.access() & Access.LOCAL_WRITE) == 0) {
            return EINVAL;
        }
        if (state == QpState.ERROR) {
            c.sendCq.push(wrId, WcStatus.WR_FLUSH_ERR, SendWqe.wcOpcodeOf(op), 0, 0, false, c.qpn);
            c.count(Counter.ERROR_COMPLETIONS);
            c.sendsRetired++;
            engine.touch(this);
            return OK;
        }
        if (c.sq.full()) {
            return ENOMEM;
        }
        long serial = c.sq.tail++;
        int rsn = Opcode.consumesReceive(op) ? c.nextRsn++ : 0;
        long sinkVa = op == Opcode.READ_REQ ? mr.address() + localOffset : 0;
        c.sq.at(serial).init(serial, c.nextMsn++, op, wrId, (flags & SIGNALED) != 0, mr, localOffset, length,
                remoteVa, rkey, imm, rsn, sinkVa, c.cfg.mtu);
        engine.markReady(this);
        return OK;
    }

    // =====================================================================================================
    // Engine side: datagrams in, timers, transmit
    // =====================================================================================================

    /** Handles one datagram already checked by {@link Packet#check} and addressed to this QP. */
    void handle(long nowNs, MemorySegment seg, int length, int ecn) {
        int pathId = admit(seg, length, false);
        if (pathId < 0) {
            return;
        }
        Path p = c.path(pathId);
        int op = base.opcode();
        switch (op) {
            case Opcode.ACK -> recovery.onAck(nowNs, p, seg);
            case Opcode.ACK_BUNDLE -> engine.ackBundles.read(nowNs, c, seg, recovery);
            case Opcode.NAK -> recovery.onNak(nowNs, p, seg);
            case Opcode.PROBE -> prober.onProbe(nowNs, p, seg);
            case Opcode.PROBE_REPLY -> prober.onProbeReply(nowNs, p, seg);
            case Opcode.PARITY, Opcode.PARITY_Q, Opcode.PARITY_R -> responder.onParity(p, seg, op);
            case Opcode.WRITE, Opcode.WRITE_IMM, Opcode.SEND, Opcode.SEND_IMM, Opcode.READ_RESP, Opcode.READ_REQ ->
                    responder.onData(nowNs, p, seg, op, ecn);
            default -> c.count(Counter.DROP_MALFORMED); // CM packets are the driver's, never a QP's
        }
    }

    /**
     * REL-17: the headers of a sequenced packet a switch trimmed (checked by {@link Packet#checkTrimmed}). Nothing of
     * it can be authenticated (its trailer is cut off), so a QP with packet authentication drops it (AUTH-6).
     */
    void handleTrimmed(MemorySegment seg, int length) {
        int pathId = admit(seg, length, true);
        if (pathId >= 0) {
            responder.onTrimmed(c.path(pathId), seg);
        }
    }

    /**
     * BAD-2 and AUTH-6..8 for a datagram addressed to this QP: source QPN, path id, authentication (a trimmed packet's
     * trailer is gone: it cannot be verified, nor its length checked), then QP state. Returns the path id, or -1 after
     * counting the drop. Leaves {@link #base} on the datagram.
     */
    private int admit(MemorySegment seg, int length, boolean trimmed) {
        base.wrap(seg, 0);
        if (base.srcQpn() != c.remoteQpn) {
            c.count(Counter.DROP_WRONG_PEER);
            return -1;
        }
        int pathId = base.pathId();
        if (pathId >= c.paths.length) {
            c.count(Counter.DROP_MALFORMED);
            return -1;
        }
        if (auth != null) {
            if (trimmed) {
                c.count(Counter.DROP_AUTH);
                return -1;
            }
            int r = auth.open(seg, length, pathId); // AUTH-6, AUTH-7, AUTH-19: before any other field is trusted
            if (r != PacketAuth.OK) {
                if (r != PacketAuth.UPDATED) {
                    c.count(r == PacketAuth.REPLAY ? Counter.DROP_REPLAY
                            : r == PacketAuth.RETIRED ? Counter.DROP_KEY_RETIRED : Counter.DROP_AUTH);
                    return -1;
                }
                c.count(Counter.KEY_UPDATES_RECEIVED);
            }
        } else if (!trimmed && length != Packet.datagramLength(base.opcode(), base.payloadLength())) {
            c.count(Counter.DROP_AUTH); // AUTH-8: an authenticated packet on a connection without keys
            return -1;
        }
        if (!c.running()) {
            c.count(Counter.DROP_QP_NOT_READY);
            return -1;
        }
        return pathId;
    }

    /**
     * Earliest deadline of this QP whose timer changes its state, or {@link Engine#NO_DEADLINE}; also times
     * {@link #sendDue}.
     */
    long nextDeadline() {
        long d = timers.nextDeadline();
        sendDue.cachedDeadline = timers.sendDeadlineNs;
        return d;
    }

    /** {@link #nextDeadline()} right after a {@link #poll}: cheaper when the poll only sent a data packet. */
    long nextDeadlineAfterPoll() {
        Path p = scheduler.dataPath;
        long d = p == null ? timers.nextDeadline() : timers.nextDeadlineAfterData(p);
        sendDue.cachedDeadline = timers.sendDeadlineNs;
        return d;
    }

    /** {@link #sendDue}'s deadline passed and the line is free: the QP is polled for what it may send. */
    void onSendDue() {
        timers.onSendDue();
    }

    /** Fires every expired timer; a call with nothing expired changes nothing (spurious timeouts are no-ops). */
    void onTimeout(long nowNs) {
        timers.onTimeout(nowNs);
    }

    /**
     * Writes the next datagram of this QP into {@code out}; returns its length, or 0 when nothing may be sent
     * now. Control packets (NAKs, probe replies, ACKs, probes) go before data.
     */
    int poll(long nowNs, MemorySegment out, Transmit tx) {
        return scheduler.poll(nowNs, out, tx);
    }

    /** PATH-14: whether a poll at {@code atNs} could send anything; if not, the QP waits for what it needs. */
    boolean canSendBy(long atNs) {
        return scheduler.canSendBy(atNs);
    }

    @Override
    public String toString() {
        return "QP " + c.qpn + " " + c.state + " -> " + c.remoteQpn + " sq=" + c.sq.outstanding() + " rq=" + c.rq.count;
    }
}
