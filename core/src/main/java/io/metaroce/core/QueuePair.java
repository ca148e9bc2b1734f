package io.metaroce.core;

import io.metaroce.core.wire.AckHeader;
import io.metaroce.core.wire.BaseHeader;
import io.metaroce.core.wire.DataHeader;
import io.metaroce.core.wire.NakHeader;
import io.metaroce.core.wire.Opcode;
import io.metaroce.core.wire.Packet;
import io.metaroce.core.wire.ProbeHeader;
import io.metaroce.core.wire.ReadRequestHeader;

import java.lang.foreign.MemorySegment;

/**
 * A reliable-connected queue pair spread over {@code paths} paths (spec VERBS-4, REL-*, PATH-*). Application
 * methods ({@code post*}, {@code modifyTo*}) are called on the engine's thread; everything else is driven by
 * the {@link Engine}. Posting methods return {@link #OK} or an errno-like code ({@link #EINVAL},
 * {@link #ENOMEM}) for a request that cannot be queued at all; every other failure is reported as a
 * completion.
 */
public final class QueuePair {
    /** Post result: queued. */
    public static final int OK = 0;
    /** Post result: invalid request (bad local key, range, length or access; QP not ready). */
    public static final int EINVAL = 22;
    /** Post result: the queue is full. */
    public static final int ENOMEM = 12;
    /** Post flag: produce a completion on success too. */
    public static final int SIGNALED = 1;

    private static final int Q_SEND = 0;
    private static final int Q_RESP = 1;
    private static final int NAK_QUEUE = 64;
    /** The furthest a data packet's PSN floor may move the receiver's cumulative PSN at once. */
    private static final int MAX_FLOOR_JUMP = 1 << 16;
    /** IP ECN codepoint ECT(0): every datagram is ECN-capable so that switches mark instead of dropping. */
    private static final int ECT0 = 2;

    private final Engine engine;
    private final EngineConfig cfg;
    private final ProtectionDomain pd;
    private final CompletionQueue sendCq;
    private final CompletionQueue recvCq;
    private final int qpn;
    final Counters counters = new Counters();
    private final Path[] paths;
    /** HINT-3: when the last datagram paced by the grant left (MIN_VALUE: none since the grant was 0). */
    private long grantPacedNs = Long.MIN_VALUE;
    /** REL-14: send time of the most recently sent packet acknowledged so far, on any path. */
    private long rackSentNs;
    private boolean rackValid;
    /** REL-14: losses a path may take this way in a row, without progress, before only its RTO speaks. */
    private static final int RACK_STREAK_LIMIT = 4;
    /** REL-14: multiplier of the reordering window, doubled on each loss proven spurious (up to 64). */
    private int rackScale = 1;
    /** REL-14: when a packet reordered past the window becomes overdue (NO_DEADLINE: none). */
    private long rackTimerNs = Engine.NO_DEADLINE;
    private final OutQueue sq;
    private final OutQueue rsq;
    private final RetransmitQueue retx = new RetransmitQueue();
    private final RetransmitQueue held = new RetransmitQueue();
    private final InboundMessages inbound;
    private final RecvQueue rq;
    private final CongestionControl cc;

    private QpState state = QpState.RESET;
    private int peer;
    private int remoteQpn;
    private int nextMsn;
    private int nextRsn;
    private int pathCursor;
    private int ackCursor;
    private boolean preferResponses;
    /** Some path may owe an ACK now (cleared when a scan finds none due). */
    private boolean ackWork;
    /** Some path may have a probe due. */
    private boolean probeWork;
    /** A due probe waits for an engine-wide probe token. */
    private boolean probeThrottled;
    private long grantBps;
    private long nextSendNs;
    private long allFailedSinceNs = Engine.NO_DEADLINE;
    private long sendsRetired;
    long lastDataRxNs = Long.MIN_VALUE;
    boolean activeSender;
    boolean inReady;
    /** The deadline last computed by the engine (its timer heap's key) and the QP's place in that heap. */
    long cachedDeadline = Engine.NO_DEADLINE;
    int heapIndex = -1;

    // pending NAKs and probe replies (small rings)
    private final int[] nakPath = new int[NAK_QUEUE];
    private final int[] nakPsnQ = new int[NAK_QUEUE];
    private final int[] nakMsn = new int[NAK_QUEUE];
    private final int[] nakCode = new int[NAK_QUEUE];
    private final int[] nakOffset = new int[NAK_QUEUE];
    private int nakHead;
    private int nakSize;
    private final long[] replyProbeId = new long[NAK_QUEUE];
    private final long[] replyTs = new long[NAK_QUEUE];
    private final int[] replyPath = new int[NAK_QUEUE];
    private int replyHead;
    private int replySize;

    // reusable views
    private final BaseHeader base = new BaseHeader();
    private final DataHeader data = new DataHeader();
    private final ReadRequestHeader readReq = new ReadRequestHeader();
    private final AckHeader ack = new AckHeader();
    private final NakHeader nak = new NakHeader();
    private final ProbeHeader probe = new ProbeHeader();

    QueuePair(Engine engine, int qpn, ProtectionDomain pd, CompletionQueue sendCq, CompletionQueue recvCq) {
        this.engine = engine;
        this.cfg = engine.config();
        this.qpn = qpn;
        this.pd = pd;
        this.sendCq = sendCq;
        this.recvCq = recvCq;
        this.paths = new Path[cfg.paths];
        for (int i = 0; i < cfg.paths; i++) {
            paths[i] = new Path(i, i % cfg.planes);
        }
        this.sq = new OutQueue(cfg.sqDepth);
        this.rsq = new OutQueue(cfg.sqDepth);
        this.inbound = new InboundMessages(cfg.sqDepth);
        this.rq = new RecvQueue(cfg.rqDepth);
        this.cc = new EcnAimd(cfg);
    }

    // =====================================================================================================
    // Getters
    // =====================================================================================================

    public int qpn() { return qpn; }
    public QpState state() { return state; }
    public int remoteQpn() { return remoteQpn; }
    public ProtectionDomain pd() { return pd; }
    /** This QP's own counters (the engine's counters add up every QP's). */
    public Counters counters() { return counters; }
    public int pathCount() { return paths.length; }
    public Path path(int i) { return paths[i]; }
    /** Work requests posted and not yet completed. */
    public int outstandingSends() { return sq.outstanding(); }
    /** Send work requests finished so far (completed, failed or flushed; signaled or not). */
    public long sendsRetired() { return sendsRetired; }
    /** Receives posted and not yet consumed. */
    public int postedReceives() { return rq.count; }
    /** The latest rate granted by the peer in bits/s (0 = none). */
    public long grantBps() { return grantBps; }

    // =====================================================================================================
    // State machine (spec VERBS-6)
    // =====================================================================================================

    /** RESET -> INIT. */
    public void modifyToInit() {
        requireState(QpState.RESET, "INIT");
        state = QpState.INIT;
    }

    /** INIT -> RTR: learn the peer (an opaque handle for the driver), its QP number and initial PSN. */
    public void modifyToRtr(int peerHandle, int remoteQpNumber, int remoteInitialPsn) {
        requireState(QpState.INIT, "RTR");
        this.peer = peerHandle;
        this.remoteQpn = remoteQpNumber;
        for (Path p : paths) {
            p.resetRx(remoteInitialPsn);
        }
        inbound.reset(0);
        state = QpState.RTR;
    }

    /** RTR -> RTS: start sending with {@code localInitialPsn} on every path. */
    public void modifyToRts(int localInitialPsn) {
        requireState(QpState.RTR, "RTS");
        for (Path p : paths) {
            p.resetTx(localInitialPsn, cfg.initialRtoNs);
            rackValid = false;
            rackTimerNs = Engine.NO_DEADLINE;
            cc.onStart(p);
        }
        allFailedSinceNs = Engine.NO_DEADLINE;
        nextSendNs = 0;
        state = QpState.RTS;
        engine.reschedule(this);
        engine.markReady(this);
    }

    /** RESET or INIT -> RTS in one call. */
    public void connect(int peerHandle, int remoteQpNumber, int localInitialPsn, int remoteInitialPsn) {
        if (state == QpState.RESET) {
            modifyToInit();
        }
        modifyToRtr(peerHandle, remoteQpNumber, remoteInitialPsn);
        modifyToRts(localInitialPsn);
    }

    /** Any state -> ERROR: outstanding work is flushed with WR_FLUSH_ERR (spec VERBS-8). */
    public void modifyToError() {
        enterError(null);
    }

    /** ERROR (or any) -> RESET: forget everything; completions already queued stay in the CQs. */
    public void modifyToReset() {
        if (state != QpState.ERROR && state != QpState.RESET) {
            enterError(null);
        }
        sq.clear();
        rsq.clear();
        retx.clear();
        held.clear();
        nakSize = 0;
        replySize = 0;
        nextMsn = 0;
        nextRsn = 0;
        grantBps = 0;
        // A reconnected QP starts its MSN, RSN and queue serials afresh (serials index by MSN).
        sq.reset();
        rsq.reset();
        rq.reset();
        state = QpState.RESET;
    }

    private void requireState(QpState expected, String target) {
        if (state != expected) {
            throw new IllegalStateException("QP " + qpn + ": cannot move from " + state + " to " + target
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
        if (state == QpState.RESET) {
            return EINVAL;
        }
        if (mr == null || !mr.isValid() || mr.pd() != pd || length < 0 || !mr.containsOffset(localOffset, length)
                || (mr.access() & Access.LOCAL_WRITE) == 0) {
            return EINVAL;
        }
        if (state == QpState.ERROR) {
            recvCq.push(wrId, WcStatus.WR_FLUSH_ERR, WcOpcode.RECV, 0, 0, false, qpn);
            count(Counter.ERROR_COMPLETIONS);
            return OK;
        }
        if (rq.full()) {
            return ENOMEM;
        }
        rq.push(wrId, mr, localOffset, length);
        // A receive may unblock SENDs held by RNR: let them go now.
        engine.markReady(this);
        return OK;
    }

    private int post(int op, long wrId, MemoryRegion mr, long localOffset, int length, long remoteVa, int rkey,
                     int imm, int flags) {
        if (state == QpState.RESET || state == QpState.INIT || state == QpState.RTR) {
            return EINVAL;
        }
        if (length < 0 || mr == null || !mr.isValid() || mr.pd() != pd || !mr.containsOffset(localOffset, length)) {
            return EINVAL;
        }
        if (op == Opcode.READ_REQ && (mr.access() & Access.LOCAL_WRITE) == 0) {
            return EINVAL;
        }
        if (state == QpState.ERROR) {
            sendCq.push(wrId, WcStatus.WR_FLUSH_ERR, SendWqe.wcOpcodeOf(op), 0, 0, false, qpn);
            count(Counter.ERROR_COMPLETIONS);
            sendsRetired++;
            return OK;
        }
        if (sq.full()) {
            return ENOMEM;
        }
        long serial = sq.tail++;
        int rsn = Opcode.consumesReceive(op) ? nextRsn++ : 0;
        long sinkVa = op == Opcode.READ_REQ ? mr.address() + localOffset : 0;
        sq.at(serial).init(serial, nextMsn++, op, wrId, (flags & SIGNALED) != 0, mr, localOffset, length,
                remoteVa, rkey, imm, rsn, sinkVa, cfg.mtu);
        engine.markReady(this);
        return OK;
    }

    // =====================================================================================================
    // Receive path
    // =====================================================================================================

    void count(Counter c) {
        counters.inc(c);
        engine.counters.inc(c);
    }

    void add(Counter c, long n) {
        counters.add(c, n);
        engine.counters.add(c, n);
    }

    /** Handles one datagram already checked by {@link Packet#check} and addressed to this QP. */
    void handle(long nowNs, MemorySegment seg, int length, int ecn) {
        base.wrap(seg, 0);
        // BAD-2: source QPN, path id, then QP state.
        if (base.srcQpn() != remoteQpn) {
            count(Counter.DROP_WRONG_PEER);
            return;
        }
        int pathId = base.pathId();
        if (pathId >= paths.length) {
            count(Counter.DROP_MALFORMED);
            return;
        }
        if (state != QpState.RTS && state != QpState.RTR) {
            count(Counter.DROP_QP_NOT_READY);
            return;
        }
        Path p = paths[pathId];
        int op = base.opcode();
        switch (op) {
            case Opcode.ACK -> onAck(nowNs, p, seg);
            case Opcode.NAK -> onNak(nowNs, p, seg);
            case Opcode.PROBE -> onProbe(p, seg);
            case Opcode.PROBE_REPLY -> onProbeReply(nowNs, p, seg);
            case Opcode.WRITE, Opcode.WRITE_IMM, Opcode.SEND, Opcode.SEND_IMM, Opcode.READ_RESP, Opcode.READ_REQ ->
                    onData(nowNs, p, seg, op, ecn);
            default -> count(Counter.DROP_MALFORMED); // CM packets are the driver's, never a QP's
        }
    }

    // ---- data (responder side, and READ responses on the requester) ----

    private static final int ACCEPT = 0;
    private static final int ACCEPT_DUP = 1;
    private static final int REJECT = 2;

    private void onData(long nowNs, Path p, MemorySegment seg, int op, int ecn) {
        int psn = base.psn();
        int floor = base.psnFloor();
        // SACK-10: a sender never has 256 PSNs outstanding on a path, so its floor is within 256 below the
        // packet's own PSN; and a floor never jumps further than a window's worth of PSNs the receiver could
        // have missed. Anything else is forged or corrupt and must not move the cumulative PSN.
        if (psn - floor < 0 || psn - floor >= Path.WINDOW || floor - 1 - p.rxCum > MAX_FLOOR_JUMP) {
            count(Counter.DROP_MALFORMED);
            return;
        }
        p.rxApplyFloor(floor);
        int cls = p.rxClassify(psn);
        if (cls == 1) {
            count(Counter.DROP_DUPLICATE);
            p.ackNow = cfg.mutation != Mutation.NO_DUPLICATE_ACK;
            ackWork = true;
            return;
        }
        if (cls == 2) {
            count(Counter.DROP_PSN_OUT_OF_WINDOW);
            return;
        }
        count(Counter.RX_DATA_PACKETS);
        p.rxPackets++;
        int verdict = op == Opcode.READ_REQ ? onReadRequest(nowNs, p, seg, psn) : onDataPacket(p, seg, op, psn);
        if (verdict == REJECT) {
            // SACK-4: a rejected packet is never marked accepted; the sender learns from the NAK or the gap.
            p.ackNow = true;
            ackWork = true;
            return;
        }
        if (ecn == EngineConfig.ECN_CE) {
            p.rxCe++;
            p.ackNow = true;
            ackWork = true;
            count(Counter.ECN_CE_RECEIVED);
        }
        boolean gap = p.rxAccept(psn);
        p.rxEchoTs = base.timestampNs();
        p.rxPending++;
        if ((base.flags() & BaseHeader.FLAG_ACK_REQ) != 0) {
            // ACK-10: the end of a message (or a resend): every path's held-back ACK goes now, so the sender
            // learns the message's fate at once instead of an ackDelay later on the other paths
            for (Path q : paths) {
                if (q.rxPending > 0) {
                    q.ackNow = true;
                }
            }
            p.ackNow = true;
            ackWork = true;
        } else if (gap || p.rxPending >= cfg.ackEvery) {
            p.ackNow = true;
            ackWork = true;
        } else if (p.ackDeadlineNs == Engine.NO_DEADLINE) {
            p.ackDeadlineNs = nowNs + cfg.ackDelayNs;
        }
        if (op != Opcode.READ_RESP) {
            engine.noteSenderActivity(this, nowNs, ecn == EngineConfig.ECN_CE);
        }
    }

    private int onDataPacket(Path p, MemorySegment seg, int op, int psn) {
        data.wrap(seg, BaseHeader.LENGTH);
        int msn = data.msn();
        int msgLen = data.messageLength();
        int offset = data.offset();
        int payloadLen = base.payloadLength();
        int mtu = cfg.mtu;
        // WIRE-2: framing must be self-consistent before anything is trusted.
        if (msgLen < 0 || offset < 0 || offset % mtu != 0 || (offset >= msgLen && !(msgLen == 0 && offset == 0))
                || payloadLen != Math.min(mtu, msgLen - offset)) {
            count(Counter.DROP_MALFORMED);
            return REJECT;
        }
        long payloadOff = BaseHeader.LENGTH + DataHeader.LENGTH;
        int segIdx = offset / mtu;
        if (op == Opcode.READ_RESP) {
            return onReadResponse(seg, msn, msgLen, offset, segIdx, payloadOff, payloadLen);
        }
        int rel = inbound.relative(msn);
        if (rel < 0) {
            count(Counter.DUPLICATE_DATA); // ORD-5: the message already retired
            return ACCEPT_DUP;
        }
        if (rel >= inbound.ring.length) {
            count(Counter.DROP_MSN_OUT_OF_WINDOW);
            return REJECT;
        }
        InboundMessages.Msg m = inbound.slot(msn);
        if (m.active) {
            if (m.op != op || m.length != msgLen) {
                count(Counter.DROP_MALFORMED);
                return REJECT;
            }
            if (SendWqe.bit(m.bits, segIdx)) {
                count(Counter.DUPLICATE_DATA);
                return ACCEPT_DUP;
            }
        }
        int rsn = data.rsn();
        if (op == Opcode.WRITE || op == Opcode.WRITE_IMM) {
            int code = checkRemote(data.rkey(), data.va(), payloadLen, Access.REMOTE_WRITE);
            if (code != 0) {
                queueNak(p.id, psn, msn, code, offset);
                return REJECT;
            }
        }
        int recvIdx = -1;
        if (Opcode.consumesReceive(op)) {
            recvIdx = rq.indexOf(rsn);
            if (recvIdx < 0) {
                if (rsn - rq.headRsn < 0) {
                    count(Counter.DROP_MALFORMED);
                    return REJECT;
                }
                count(Counter.DROP_RNR);
                queueNak(p.id, psn, msn, NakHeader.CODE_RNR, offset);
                return REJECT;
            }
            if ((op == Opcode.SEND || op == Opcode.SEND_IMM) && msgLen > rq.lengths[recvIdx]) {
                count(Counter.DROP_INVALID_REQUEST);
                queueNak(p.id, psn, msn, NakHeader.CODE_INVALID_REQUEST, offset);
                return REJECT;
            }
        }
        // Place straight into final memory (ORD-2), before the message's other packets if need be.
        if (op == Opcode.WRITE || op == Opcode.WRITE_IMM) {
            MemoryRegion mr = engine.regionByRkey(data.rkey());
            if (payloadLen > 0 && !cfg.elidePayload) {
                MemorySegment.copy(seg, payloadOff, mr.segment(), data.va() - mr.address(), payloadLen);
            }
        } else if (payloadLen > 0 && !cfg.elidePayload) {
            MemoryRegion mr = rq.mrs[recvIdx];
            MemorySegment.copy(seg, payloadOff, mr.segment(), rq.offsets[recvIdx] + offset, payloadLen);
        }
        add(Counter.RX_PAYLOAD_BYTES, payloadLen);
        if (!m.active) {
            m = inbound.open(msn, op, msgLen, cfg.mtu, rsn, data.immediate());
        }
        SendWqe.set(m.bits, segIdx);
        m.count++;
        if (m.count == m.segments) {
            retireInbound();
        }
        return ACCEPT;
    }

    /** Returns 0 if (rkey, va, len) may be accessed with {@code need}, else the NAK code (and counts it). */
    private int checkRemote(int rkey, long va, long len, int need) {
        MemoryRegion mr = engine.regionByRkey(rkey);
        if (mr == null || mr.pd() != pd) {
            count(Counter.DROP_BAD_RKEY);
            return NakHeader.CODE_BAD_RKEY;
        }
        if ((mr.access() & need) == 0) {
            count(Counter.DROP_NO_PERMISSION);
            return NakHeader.CODE_NO_PERMISSION;
        }
        if (!mr.contains(va, len) && cfg.mutation != Mutation.NO_RKEY_BOUNDS_CHECK) {
            count(Counter.DROP_OUT_OF_BOUNDS);
            return NakHeader.CODE_OUT_OF_BOUNDS;
        }
        return 0;
    }

    private void retireInbound() {
        while (true) {
            InboundMessages.Msg m = inbound.slot(inbound.retireMsn);
            if (!m.active || m.msn != inbound.retireMsn || m.count != m.segments) {
                return;
            }
            if (Opcode.consumesReceive(m.op)) {
                int idx = rq.headIndex();
                boolean imm = m.op != Opcode.SEND;
                WcOpcode wop = m.op == Opcode.WRITE_IMM ? WcOpcode.RECV_RDMA_WITH_IMM : WcOpcode.RECV;
                recvCq.push(rq.wrIds[idx], WcStatus.SUCCESS, wop, m.length, imm ? m.imm : 0, imm, qpn);
                count(Counter.COMPLETIONS);
                rq.pop();
            }
            m.active = false;
            inbound.retireMsn++;
        }
    }

    private int onReadRequest(long nowNs, Path p, MemorySegment seg, int psn) {
        readReq.wrap(seg, BaseHeader.LENGTH);
        int msn = readReq.msn();
        int len = readReq.readLength();
        if (base.payloadLength() != 0 || len < 0) {
            count(Counter.DROP_MALFORMED);
            return REJECT;
        }
        int rel = inbound.relative(msn);
        if (rel < 0) {
            count(Counter.DUPLICATE_DATA);
            return ACCEPT_DUP;
        }
        if (rel >= inbound.ring.length) {
            count(Counter.DROP_MSN_OUT_OF_WINDOW);
            return REJECT;
        }
        InboundMessages.Msg m = inbound.slot(msn);
        if (m.active) {
            count(Counter.DUPLICATE_DATA);
            return ACCEPT_DUP;
        }
        int code = checkRemote(readReq.rkey(), readReq.remoteVa(), len, Access.REMOTE_READ);
        if (code != 0) {
            queueNak(p.id, psn, msn, code, 0);
            return REJECT;
        }
        if (rsq.full()) {
            count(Counter.DROP_BUSY);
            queueNak(p.id, psn, msn, NakHeader.CODE_BUSY, 0);
            return REJECT;
        }
        MemoryRegion mr = engine.regionByRkey(readReq.rkey());
        long serial = rsq.tail++;
        rsq.at(serial).init(serial, msn, Opcode.READ_RESP, 0, false, mr, readReq.remoteVa() - mr.address(), len,
                0, 0, 0, 0, readReq.sinkVa(), cfg.mtu);
        m = inbound.open(msn, Opcode.READ_REQ, 0, cfg.mtu, 0, 0);
        m.count = m.segments;
        retireInbound();
        return ACCEPT;
    }

    private int onReadResponse(MemorySegment seg, int msn, int msgLen, int offset, int segIdx, long payloadOff,
                               int payloadLen) {
        int relHead = msn - sq.at(sq.head).msn;
        if (sq.head == sq.tail || relHead < 0) {
            count(Counter.DUPLICATE_DATA); // the READ already completed
            return ACCEPT_DUP;
        }
        SendWqe w = sq.entry(msn);
        if (w.serial < sq.head || w.serial >= sq.tail || w.msn != msn || w.op != Opcode.READ_REQ
                || msgLen != w.length || data.va() != w.sinkVa + offset) {
            count(Counter.DROP_MALFORMED);
            return REJECT;
        }
        if (w.done || SendWqe.bit(w.recv, segIdx)) {
            count(Counter.DUPLICATE_DATA);
            return ACCEPT_DUP;
        }
        if (payloadLen > 0 && !cfg.elidePayload) {
            MemorySegment.copy(seg, payloadOff, w.local.segment(), w.localOffset + offset, payloadLen);
        }
        add(Counter.RX_PAYLOAD_BYTES, payloadLen);
        SendWqe.set(w.recv, segIdx);
        w.recvCount++;
        if (w.recvCount == w.recvSegments) {
            finish(w, WcStatus.SUCCESS);
            retireSends();
        }
        return ACCEPT;
    }

    private void queueNak(int pathId, int psn, int msn, int code, int offset) {
        if (nakSize == NAK_QUEUE) {
            count(Counter.NAK_QUEUE_OVERFLOW); // the packet is already counted; the sender will resend it
            return;
        }
        int i = (nakHead + nakSize++) & (NAK_QUEUE - 1);
        nakPath[i] = pathId;
        nakPsnQ[i] = psn;
        nakMsn[i] = msn;
        nakCode[i] = code;
        nakOffset[i] = offset;
    }

    // ---- ACK, NAK and probes (sender side) ----

    private void onAck(long nowNs, Path p, MemorySegment seg) {
        count(Counter.RX_ACKS);
        ack.wrap(seg, BaseHeader.LENGTH);
        if (base.payloadLength() != 0) {
            count(Counter.DROP_MALFORMED);
            return;
        }
        int cum = ack.cumPsn();
        if (cum - (p.nextPsn - 1) > 0) {
            count(Counter.DROP_MALFORMED); // acknowledges PSNs never sent
            return;
        }
        long echoTs = ack.echoTimestampNs();
        if (p.rtoUndoArmed) {
            if (echoTs - p.rtoAtNs >= 0 || nowNs - p.rtoAtNs > 4 * Math.max(p.srttNs, cfg.minRtoNs)) {
                p.rtoUndoArmed = false; // the receiver has heard from us since the RTO: nothing to undo
            } else if (cum - p.rtoLowPsn >= 0) {
                // RTO-7 (Eifel): this ACK echoes a packet sent before the timeout and covers the PSNs the
                // timeout declared lost: the originals arrived, the timeout was spurious. Undo its damage.
                undoRto(p);
            }
        }
        int grantMbps = ack.grantMbps();
        grantBps = grantMbps == 0 ? 0 : (grantMbps & 0xFFFFFFFFL) * 1_000_000L;
        long w0 = ack.sackWord(0);
        long w1 = ack.sackWord(1);
        long w2 = ack.sackWord(2);
        long w3 = ack.sackWord(3);
        int newlyPackets = 0;
        long newlyBytes = 0;
        long newestAckedSentNs = rackSentNs;
        boolean ackedAny = false;
        for (int psn = p.floor; psn != p.nextPsn; psn++) {
            int i = psn & Path.MASK;
            byte st = p.recState[i];
            if (st != Path.INFLIGHT && st != Path.LOST) {
                continue;
            }
            int d = psn - cum;
            boolean acked;
            if (d <= 0) {
                acked = true;
            } else if (d <= Path.WINDOW) {
                int b = d - 1;
                long w = b < 64 ? w0 : b < 128 ? w1 : b < 192 ? w2 : w3;
                acked = (w >>> (b & 63) & 1L) != 0;
            } else {
                acked = false;
            }
            if (!acked) {
                continue;
            }
            if (!ackedAny && !rackValid || p.recSentNs[i] - newestAckedSentNs > 0) {
                newestAckedSentNs = p.recSentNs[i];
            }
            ackedAny = true;
            if (st == Path.LOST && rackScale < 64) {
                rackScale *= 2; // REL-14: the original arrived after all; a wider reordering window from now on
            }
            if (st == Path.INFLIGHT) {
                p.inflightBytes -= p.recBytes[i];
                p.inflightPackets--;
                newlyPackets++;
                newlyBytes += p.recBytes[i];
                if (!p.anyAcked || psn - p.highestAcked > 0) {
                    p.highestAcked = psn;
                    p.anyAcked = true;
                }
            }
            p.recState[i] = Path.ACKED;
            onSegmentAcked(p.recQueue[i], p.recSlot[i], p.recSerial[i], p.recSeg[i]);
        }
        int ce = ack.ceCount();
        if (ce > 0) {
            add(Counter.ECN_ECHOES, ce);
            p.ecnEchoes += ce;
            p.lastCeNs = nowNs;
        }
        if (newlyPackets > 0) {
            p.onRttSample(nowNs - echoTs, cfg.minRtoNs, cfg.maxRtoNs);
            p.lastProgressNs = nowNs;
            p.backoff = 0;
            p.consecutiveTimeouts = 0;
            p.tlpSent = false;
            p.rackStreak = 0;
            if (p.state == PathState.SUSPECT) {
                p.state = PathState.ACTIVE;
            }
        }
        if (p.tlpCheck && echoTs - p.tlpAtNs >= 0) {
            // RTO-8: this ACK left the receiver after a packet sent since the tail-loss probe was due; a path
            // delivers in order, so what was sent before the probe and is still unacknowledged was lost.
            p.tlpCheck = false;
            boolean lost = false;
            for (int psn = p.floor; psn != p.nextPsn; psn++) {
                int i = psn & Path.MASK;
                if (p.recState[i] == Path.INFLIGHT && p.recSentNs[i] - p.tlpAtNs < 0) {
                    declareLost(p, i, nowNs, 0);
                    count(Counter.TAIL_LOSSES);
                    lost = true;
                }
            }
            if (lost) {
                cc.onLoss(p, nowNs);
                p.tlpSent = false; // what is sent next (the resends, maybe here) may need a probe of its own
                p.lastProgressNs = nowNs;
            }
        }
        // REL-3: a PSN still unacknowledged reorderThreshold below the highest acknowledged one is lost.
        if (p.anyAcked) {
            for (int psn = p.floor; p.highestAcked - psn >= cfg.reorderThreshold
                    || cfg.mutation == Mutation.GO_BACK_N && p.sackGaps > 0 && psn != p.nextPsn; psn++) {
                int i = psn & Path.MASK;
                if (p.recState[i] == Path.INFLIGHT) {
                    declareLost(p, i, nowNs, 0);
                    p.sackGaps++;
                    count(Counter.SACK_GAPS);
                    cc.onLoss(p, nowNs);
                }
            }
        }
        advanceFloor(p);
        if (newlyPackets > 0) {
            cc.onAck(p, newlyPackets, newlyBytes, ce, nowNs);
        }
        if (ackedAny && (!rackValid || newestAckedSentNs - rackSentNs > 0)) {
            rackSentNs = newestAckedSentNs;
            rackValid = true;
            // examined at the next timer pass, not here: the driver hands over every datagram it has (ACKs of
            // other paths arrive on other sockets, in another order) before it runs the timers
            rackTimerNs = nowNs;
        }
        retireSends();
        retireResponses();
    }

    /**
     * REL-14 (after RACK): a packet still in flight on any path that was sent more than the reordering window
     * before the newest packet acknowledged so far (on any path) is lost. Per path, PSN order is send order, so
     * each path is walked from its floor only while its packets are old enough.
     */
    private void rackDetect(long nowNs) {
        rackTimerNs = Engine.NO_DEADLINE;
        long minRtt = Long.MAX_VALUE;
        long srttHi = 0;
        for (Path q : paths) {
            if (q.minRttNs > 0) {
                minRtt = Math.min(minRtt, q.minRttNs);
                srttHi = Math.max(srttHi, q.srttNs);
            }
        }
        if (minRtt == Long.MAX_VALUE) {
            return; // no RTT sample yet: no notion of "too old"
        }
        // a delayed ACK on one path and different queues on different paths reorder ACKs legitimately
        // the window covers the largest queueing delay seen on any path (slowest smoothed RTT over the fastest
        // unloaded one): packets sprayed over paths with different queues are legitimately reordered by that much
        long window = cfg.ackDelayNs + Math.max(minRtt / 4, srttHi - minRtt) * rackScale;
        long limit = rackSentNs - window;
        for (Path q : paths) {
            if (q.state != PathState.ACTIVE || q.rackStreak >= RACK_STREAK_LIMIT) {
                continue; // a path that keeps losing without progress is left to its RTO: that is how it fails
            }
            boolean lost = false;
            // and not before its ACK is overdue: its path's smoothed RTT plus the reordering window or the RTT's
            // variation or a quarter of minRto (the platform's timing noise), whichever is largest (RFC 8985 waits an
            // RTT plus the window; the others guard hosts whose scheduling stalls dwarf the network's RTT)
            long wait = q.srttNs + Math.max(Math.max(window, 4 * q.rttvarNs), cfg.minRtoNs / 4);
            long overdue = nowNs - wait;
            for (int psn = q.floor; psn != q.nextPsn; psn++) {
                int i = psn & Path.MASK;
                if (q.recSentNs[i] - limit >= 0) {
                    break;
                }
                if (q.recSentNs[i] - overdue >= 0) {
                    if (q.recState[i] == Path.INFLIGHT) {
                        // reordered past the window but not yet overdue: look again when it is
                        long at = q.recSentNs[i] + wait + 1;
                        if (rackTimerNs == Engine.NO_DEADLINE || at - rackTimerNs < 0) {
                            rackTimerNs = at;
                        }
                    }
                    break;
                }
                if (q.recState[i] == Path.INFLIGHT) {
                    declareLost(q, i, nowNs, 0);
                    count(Counter.RACK_LOSSES);
                    lost = true;
                    q.rackStreak++;
                }
            }
            if (lost) {
                cc.onLoss(q, nowNs);
                advanceFloor(q);
            }
        }
    }

    private void advanceFloor(Path p) {
        while (p.floor != p.nextPsn) {
            int i = p.floor & Path.MASK;
            byte st = p.recState[i];
            if (st == Path.INFLIGHT) {
                return;
            }
            p.recState[i] = Path.FREE;
            p.floor++;
        }
    }

    /** Marks record {@code i} of path {@code p} lost and queues its segment again (after {@code holdNs}). */
    private void declareLost(Path p, int i, long nowNs, long holdNs) {
        p.recState[i] = Path.LOST;
        p.inflightBytes -= p.recBytes[i];
        p.inflightPackets--;
        int q = p.recQueue[i];
        OutQueue oq = q == Q_SEND ? sq : rsq;
        SendWqe w = oq.live(p.recSlot[i], p.recSerial[i]);
        if (w == null || w.done || SendWqe.bit(w.acked, p.recSeg[i])) {
            return;
        }
        if (holdNs > 0) {
            // An RNR/BUSY resend is not a transport retry: it does not count against retryLimit.
            held.push(q, p.recSlot[i], p.recSerial[i], p.recSeg[i], p.recAttempt[i] - 1, nowNs + holdNs);
        } else {
            retx.push(q, p.recSlot[i], p.recSerial[i], p.recSeg[i], p.recAttempt[i], 0);
        }
    }

    private void onSegmentAcked(int q, int slot, long serial, int seg) {
        OutQueue oq = q == Q_SEND ? sq : rsq;
        SendWqe w = oq.live(slot, serial);
        if (w == null || w.done || SendWqe.bit(w.acked, seg)) {
            return;
        }
        SendWqe.set(w.acked, seg);
        w.ackedCount++;
        if (w.ackedCount == w.segments && w.op != Opcode.READ_REQ) {
            finish(w, WcStatus.SUCCESS); // REL-1: every byte acknowledged means every byte placed
            if (cfg.mutation == Mutation.COMPLETION_OUT_OF_ORDER && w.signaled) { // test-only defect
                sendCq.push(w.wrId, w.status, w.wcOpcode(), w.length, 0, false, qpn);
                w.signaled = false;
            }
        }
    }

    private void finish(SendWqe w, WcStatus status) {
        if (!w.done) {
            w.done = true;
            w.status = status;
        }
    }

    /** Completes finished work requests in posting order (ORD-1). */
    private void retireSends() {
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
            if (sq.nextToSend < sq.head) {
                sq.nextToSend = sq.head;
            }
        }
    }

    private void retireResponses() {
        while (rsq.head != rsq.tail && rsq.at(rsq.head).done) {
            rsq.at(rsq.head).local = null;
            rsq.head++;
            if (rsq.nextToSend < rsq.head) {
                rsq.nextToSend = rsq.head;
            }
        }
    }

    private void onNak(long nowNs, Path p, MemorySegment seg) {
        count(Counter.RX_NAKS);
        nak.wrap(seg, BaseHeader.LENGTH);
        int psn = nak.nakPsn();
        int i = psn & Path.MASK;
        if (base.payloadLength() != 0 || psn - p.floor < 0 || psn - p.nextPsn >= 0
                || p.recState[i] != Path.INFLIGHT) {
            count(Counter.DROP_STALE_NAK);
            return;
        }
        OutQueue oq = p.recQueue[i] == Q_SEND ? sq : rsq;
        SendWqe w = oq.live(p.recSlot[i], p.recSerial[i]);
        if (w == null || w.msn != nak.msn()) {
            count(Counter.DROP_STALE_NAK);
            return;
        }
        int code = nak.code();
        switch (code) {
            case NakHeader.CODE_RNR, NakHeader.CODE_BUSY -> {
                count(Counter.RNR_NAKS_RECEIVED);
                // NAK-7: one retry per wait, however many of the message's packets were NAKed in it.
                if (!w.rnrWaiting || nowNs - w.rnrWaitUntilNs >= 0) {
                    w.rnrWaiting = true;
                    w.rnrRetries++;
                    w.rnrWaitUntilNs = nowNs + Math.max(1, cfg.rnrDelayNs);
                }
                if (w.rnrRetries > cfg.rnrRetryLimit) {
                    declareLost(p, i, nowNs, 0);
                    failRequest(w, WcStatus.RNR_RETRY_EXC_ERR);
                } else {
                    declareLost(p, i, nowNs, Math.max(1, cfg.rnrDelayNs));
                }
            }
            case NakHeader.CODE_BAD_RKEY, NakHeader.CODE_OUT_OF_BOUNDS, NakHeader.CODE_NO_PERMISSION -> {
                declareLost(p, i, nowNs, 0);
                failRequest(w, WcStatus.REM_ACCESS_ERR);
            }
            case NakHeader.CODE_INVALID_REQUEST -> {
                declareLost(p, i, nowNs, 0);
                failRequest(w, WcStatus.REM_INV_REQ_ERR);
            }
            default -> {
                declareLost(p, i, nowNs, 0);
                failRequest(w, WcStatus.REM_OP_ERR);
            }
        }
        advanceFloor(p);
    }

    /** A work request failed: the QP enters ERROR with that status on it (VERBS-8). */
    private void failRequest(SendWqe w, WcStatus status) {
        if (w.op == Opcode.READ_RESP) {
            // A responder's READ response failing does not fail the responder: drop the response.
            finish(w, status);
            retireResponses();
            return;
        }
        finish(w, status);
        enterError(w);
    }

    private void enterError(SendWqe cause) {
        if (state == QpState.ERROR) {
            return;
        }
        state = QpState.ERROR;
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
        nakSize = 0;
        replySize = 0;
        for (Path p : paths) {
            p.clearRecords();
            p.floor = p.nextPsn;
            p.inflightBytes = 0;
            p.inflightPackets = 0;
            p.ackNow = false;
            p.rxPending = 0;
            p.ackDeadlineNs = Engine.NO_DEADLINE;
            p.probeDeadlineNs = Engine.NO_DEADLINE;
            p.probeDue = false;
        }
    }

    private void onProbe(Path p, MemorySegment seg) {
        count(Counter.RX_PROBES);
        probe.wrap(seg, BaseHeader.LENGTH);
        if (base.payloadLength() != 0) {
            count(Counter.DROP_MALFORMED);
            return;
        }
        if (replySize == NAK_QUEUE) {
            count(Counter.PROBE_REPLY_OVERFLOW); // replies are best effort; the prober tries again
            return;
        }
        // RTO-6: a probe also asks for the path's current ACK state (it may be a tail-loss probe); RTO-8: that
        // ACK echoes the probe's timestamp, telling the sender that everything sent before it has arrived or is lost.
        p.rxEchoTs = base.timestampNs();
        p.ackNow = true;
        ackWork = true;
        int i = (replyHead + replySize++) & (NAK_QUEUE - 1);
        replyPath[i] = p.id;
        replyProbeId[i] = probe.probeId();
        replyTs[i] = base.timestampNs();
    }

    private void onProbeReply(long nowNs, Path p, MemorySegment seg) {
        count(Counter.RX_PROBE_REPLIES);
        probe.wrap(seg, BaseHeader.LENGTH);
        if (base.payloadLength() != 0) {
            count(Counter.DROP_MALFORMED);
            return;
        }
        if (p.state != PathState.FAILED && p.state != PathState.PROBING) {
            return; // a reply to a tail-loss probe: nothing to do
        }
        if (probe.probeId() != p.probeId) {
            count(Counter.DROP_MALFORMED); // PATH-10: a stale or duplicate reply
            return;
        }
        p.probeId++; // each probe is answered once
        p.onRttSample(nowNs - probe.echoTimestampNs(), cfg.minRtoNs, cfg.maxRtoNs);
        p.probeSuccesses++;
        p.state = PathState.PROBING;
        if (p.probeSuccesses >= cfg.readmitAfterProbes) {
            // PATH-6: re-admitted with a fresh window.
            p.state = PathState.ACTIVE;
            p.readmissions++;
            count(Counter.PATH_READMISSIONS);
            p.backoff = 0;
            p.consecutiveTimeouts = 0;
            p.probeDeadlineNs = Engine.NO_DEADLINE;
            p.probeDue = false;
            p.nextSendNs = nowNs;
            cc.onStart(p);
            allFailedSinceNs = Engine.NO_DEADLINE;
        } else {
            p.probeDue = true; // the next probe goes at once, with a fresh deadline for its reply
            probeWork = true;
            p.probeDeadlineNs = nowNs + probeTimeoutNs(p);
        }
    }

    // =====================================================================================================
    // Timers
    // =====================================================================================================

    /** Earliest deadline of this QP, or {@link Engine#NO_DEADLINE}. */
    long nextDeadline() {
        if (state != QpState.RTS && state != QpState.RTR) {
            return Engine.NO_DEADLINE;
        }
        long d = Engine.NO_DEADLINE;
        boolean dataWaiting = state == QpState.RTS && hasDataToSend();
        for (Path p : paths) {
            if (p.rxPending > 0 && p.ackDeadlineNs < d) {
                d = p.ackDeadlineNs;
            }
            if (p.inflightPackets > 0) {
                long rto = p.lastProgressNs + p.currentRtoNs(cfg.maxRtoNs);
                if (rto < d) {
                    d = rto;
                }
                long tlp = p.tailProbeDelayNs(cfg.ackDelayNs);
                if (tlp >= 0 && p.lastProgressNs + tlp < d) {
                    d = p.lastProgressNs + tlp;
                }
            }
            if (p.probeDeadlineNs < d) {
                d = p.probeDeadlineNs;
            }
            // An eligible path may send at its own pacing time, but not before the QP-wide grant allows (HINT-3):
            // a deadline at which nothing can be sent would have the driver call us in a loop.
            long ready = grantBps > 0 ? Math.max(p.nextSendNs, nextSendNs) : p.nextSendNs;
            if (dataWaiting && sendable(p) && windowOpen(p) && ready < d) {
                d = ready;
            }
        }
        if (rackTimerNs < d) {
            d = rackTimerNs;
        }
        if (probeThrottled && engine.nextProbeTokenNs() < d) {
            d = engine.nextProbeTokenNs();
        }
        if (!held.isEmpty() && held.headNotBefore() < d) {
            d = held.headNotBefore();
        }
        if (allFailedSinceNs != Engine.NO_DEADLINE) {
            long t = allFailedSinceNs + cfg.connectionTimeoutNs;
            if (t < d) {
                d = t;
            }
        }
        return d;
    }

    /** Fires every expired timer; a call with nothing expired changes nothing (spurious timeouts are no-ops). */
    void onTimeout(long nowNs) {
        if (state != QpState.RTS && state != QpState.RTR) {
            return;
        }
        for (Path p : paths) {
            if (p.rxPending > 0 && p.ackDeadlineNs - nowNs <= 0) {
                p.ackNow = true;
                ackWork = true;
            }
            if (p.inflightPackets > 0 && p.lastProgressNs + p.currentRtoNs(cfg.maxRtoNs) - nowNs <= 0) {
                onRto(p, nowNs);
            } else {
                long tlp = p.tailProbeDelayNs(cfg.ackDelayNs);
                if (tlp >= 0 && p.lastProgressNs + tlp - nowNs <= 0) {
                    // RTO-6: the last ACK of a window may be lost; a probe makes the receiver ACK again.
                    p.tlpSent = true;
                    p.tlpAtNs = nowNs;
                    p.tlpCheck = true;
                    p.probeDue = true;
                    probeWork = true;
                }
            }
            if (p.probeDeadlineNs - nowNs <= 0) {
                p.probeDue = true;
                probeWork = true;
                p.probeDeadlineNs = nowNs + probeTimeoutNs(p);
                if (p.state == PathState.PROBING) {
                    // A probe went unanswered for a whole interval: back to failed.
                    p.state = PathState.FAILED;
                    p.probeSuccesses = 0;
                }
            }
        }
        if (rackTimerNs != Engine.NO_DEADLINE && rackTimerNs - nowNs <= 0) {
            rackDetect(nowNs); // re-arms itself if something is still pending
        }
        while (!held.isEmpty() && held.headNotBefore() - nowNs <= 0) {
            retx.push(held.headQueue(), held.headSlot(), held.headSerial(), held.headSeg(), held.headAttempt(), 0);
            held.pop();
        }
        if (allFailedSinceNs != Engine.NO_DEADLINE && allFailedSinceNs + cfg.connectionTimeoutNs - nowNs <= 0) {
            SendWqe w = sq.head != sq.tail ? sq.at(sq.head) : null;
            if (w != null) {
                finish(w, WcStatus.RETRY_EXC_ERR);
            }
            enterError(w);
        }
    }

    /** PATH-5: how long a probe waits for its reply: the probe interval, or three RTTs if that is longer. */
    private long probeTimeoutNs(Path p) {
        // An RTT inflated by an overload must not stretch probing without bound: at most 50 intervals.
        return Math.max(cfg.probeIntervalNs, Math.min(3 * p.srttNs, 50 * cfg.probeIntervalNs));
    }

    /** RTO-1..RTO-4 and PATH-2..PATH-4. */
    private void undoRto(Path p) {
        p.rtoUndoArmed = false;
        p.cwndBytes = Math.max(p.cwndBytes, p.cwndBeforeRto);
        p.ssthreshBytes = Math.max(p.ssthreshBytes, p.ssthreshBeforeRto);
        p.backoff = 0;
        p.consecutiveTimeouts = 0;
        if (p.state != PathState.ACTIVE) {
            // The path delivered all along: whatever the timeouts made of it (SUSPECT, FAILED, PROBING) is undone.
            p.state = PathState.ACTIVE;
            p.probeDeadlineNs = Engine.NO_DEADLINE;
            p.probeDue = false;
            p.probeSuccesses = 0;
            allFailedSinceNs = Engine.NO_DEADLINE;
        }
        p.spuriousTimeouts++;
        count(Counter.SPURIOUS_TIMEOUTS);
    }

    private void onRto(Path p, long nowNs) {
        p.timeouts++;
        count(Counter.TIMEOUTS);
        if (!p.rtoUndoArmed) {
            p.rtoUndoArmed = true;
            p.rtoAtNs = nowNs;
            p.rtoLowPsn = p.floor;
            p.cwndBeforeRto = p.cwndBytes;
            p.ssthreshBeforeRto = p.ssthreshBytes;
            p.stateBeforeRto = p.state;
        }
        for (int psn = p.floor; psn != p.nextPsn; psn++) {
            int i = psn & Path.MASK;
            if (p.recState[i] == Path.INFLIGHT) {
                declareLost(p, i, nowNs, 0);
            }
        }
        advanceFloor(p);
        p.backoff++;
        p.lastProgressNs = nowNs;
        cc.onTimeout(p, nowNs);
        boolean congested = p.lastCeNs != Long.MIN_VALUE
                && nowNs - p.lastCeNs <= 4 * Math.max(p.srttNs, cfg.minRtoNs);
        if (congested) {
            return; // PATH-3: ECN says congestion, not failure
        }
        p.consecutiveTimeouts++;
        if (p.consecutiveTimeouts >= cfg.failAfterTimeouts) {
            if (p.state != PathState.FAILED) {
                p.state = PathState.FAILED;
                p.failures++;
                p.failedSinceNs = nowNs;
                count(Counter.PATH_FAILOVERS);
                p.probeSuccesses = 0;
                p.probeDue = true;
                probeWork = true;
                p.probeDeadlineNs = nowNs + cfg.probeIntervalNs;
                if (allPathsFailed() && allFailedSinceNs == Engine.NO_DEADLINE) {
                    allFailedSinceNs = nowNs;
                }
            }
        } else if (p.state == PathState.ACTIVE) {
            p.state = PathState.SUSPECT;
        }
    }

    private boolean allPathsFailed() {
        for (Path p : paths) {
            if (p.state == PathState.ACTIVE || p.state == PathState.SUSPECT) {
                return false;
            }
        }
        return true;
    }

    // =====================================================================================================
    // Transmit
    // =====================================================================================================

    private static boolean sendable(Path p) {
        return p.state == PathState.ACTIVE || p.state == PathState.SUSPECT;
    }

    private boolean windowOpen(Path p) {
        if (!p.psnWindowOpen()) {
            return false;
        }
        if (p.inflightPackets == 0) {
            return true;
        }
        if (p.state == PathState.SUSPECT) {
            return false;
        }
        return p.inflightBytes + cfg.mtu <= p.cwndBytes;
    }

    private boolean hasDataToSend() {
        return !retx.isEmpty() || sq.nextToSend < sq.tail || rsq.nextToSend < rsq.tail;
    }

    /**
     * Writes the next datagram of this QP into {@code out}; returns its length, or 0 when nothing may be sent
     * now. Control packets (NAKs, probe replies, ACKs, probes) go before data.
     */
    int poll(long nowNs, MemorySegment out, Transmit tx) {
        if (state != QpState.RTS && state != QpState.RTR) {
            return 0;
        }
        if (nakSize > 0) {
            return emitNak(nowNs, out, tx);
        }
        if (replySize > 0) {
            return emitProbeReply(nowNs, out, tx);
        }
        if (ackWork) {
            int n = paths.length;
            for (int k = 0; k < n; k++) {
                int id = ackCursor + k;
                Path p = paths[id >= n ? id - n : id];
                if (p.ackNow || (p.rxPending > 0 && p.ackDeadlineNs - nowNs <= 0)) {
                    ackCursor = p.id + 1 == n ? 0 : p.id + 1;
                    return emitAck(nowNs, p, out, tx);
                }
            }
            ackWork = false;
        }
        if (probeWork) {
            for (Path p : paths) {
                if (p.probeDue) {
                    if (!engine.takeProbeToken(nowNs)) {
                        probeThrottled = true; // PATH-13: wait for the engine's next probe token
                        break;
                    }
                    p.probeDue = false;
                    probeThrottled = false;
                    return emitProbe(nowNs, p, out, tx);
                }
            }
            if (!probeThrottled) {
                probeWork = false;
            }
        }
        if (state != QpState.RTS) {
            return 0;
        }
        return pollData(nowNs, out, tx);
    }

    private void header(MemorySegment out, int op, int flags, Path p, int psn, int payloadLen, long nowNs) {
        base.wrap(out, 0).version(Packet.VERSION).opcode(op).flags(flags).destQpn(remoteQpn).pathId(p.id)
                .payloadLength(payloadLen).psn(psn).psnFloor(p.floor).srcQpn(qpn).timestampNs(nowNs);
    }

    private int finishPacket(MemorySegment out, int len, Path p, int op, Transmit tx) {
        int total = cfg.elidePayload ? engine.packet.sealElided(out, len, base.wrap(out, 0).payloadLength())
                : engine.packet.seal(out, len);
        tx.peer = peer;
        tx.plane = p.plane;
        tx.pathId = p.id;
        tx.length = total;
        tx.opcode = op;
        tx.ecn = ECT0;
        count(Counter.TX_PACKETS);
        add(Counter.TX_BYTES, total);
        return total;
    }

    private int emitAck(long nowNs, Path p, MemorySegment out, Transmit tx) {
        header(out, Opcode.ACK, 0, p, 0, 0, nowNs);
        ack.wrap(out, BaseHeader.LENGTH).cumPsn(p.rxCum)
                .ceCount(cfg.mutation == Mutation.NO_ECN_ECHO ? 0 : p.rxCe).reserved(0)
                .echoTimestampNs(p.rxEchoTs).grantMbps(engine.grantMbps(this, nowNs)).rxMsn(inbound.retireMsn);
        for (int w = 0; w < 4; w++) {
            ack.sackWord(w, p.rxSackWord(w));
        }
        if (cfg.mutation == Mutation.SACK_OFF_BY_ONE) {
            ack.sackWord(0, ack.sackWord(0) << 1); // test-only defect
        }
        p.rxCe = 0;
        p.rxPending = 0;
        p.ackNow = false;
        p.ackDeadlineNs = Engine.NO_DEADLINE;
        count(Counter.TX_ACKS);
        return finishPacket(out, BaseHeader.LENGTH + AckHeader.LENGTH, p, Opcode.ACK, tx);
    }

    private int emitNak(long nowNs, MemorySegment out, Transmit tx) {
        int i = nakHead;
        nakHead = (nakHead + 1) & (NAK_QUEUE - 1);
        nakSize--;
        Path p = paths[nakPath[i]];
        header(out, Opcode.NAK, 0, p, 0, 0, nowNs);
        nak.wrap(out, BaseHeader.LENGTH).msn(nakMsn[i]).code(nakCode[i]).reserved(0).nakPsn(nakPsnQ[i])
                .offset(nakOffset[i]);
        count(Counter.TX_NAKS);
        return finishPacket(out, BaseHeader.LENGTH + NakHeader.LENGTH, p, Opcode.NAK, tx);
    }

    private int emitProbeReply(long nowNs, MemorySegment out, Transmit tx) {
        int i = replyHead;
        replyHead = (replyHead + 1) & (NAK_QUEUE - 1);
        replySize--;
        Path p = paths[replyPath[i]];
        header(out, Opcode.PROBE_REPLY, 0, p, 0, 0, nowNs);
        probe.wrap(out, BaseHeader.LENGTH).probeId(replyProbeId[i]).echoTimestampNs(replyTs[i]);
        count(Counter.TX_PROBE_REPLIES);
        return finishPacket(out, BaseHeader.LENGTH + ProbeHeader.LENGTH, p, Opcode.PROBE_REPLY, tx);
    }

    private int emitProbe(long nowNs, Path p, MemorySegment out, Transmit tx) {
        header(out, Opcode.PROBE, 0, p, 0, 0, nowNs);
        probe.wrap(out, BaseHeader.LENGTH).probeId(p.probeId).echoTimestampNs(0);
        count(Counter.TX_PROBES);
        return finishPacket(out, BaseHeader.LENGTH + ProbeHeader.LENGTH, p, Opcode.PROBE, tx);
    }

    private int pollData(long nowNs, MemorySegment out, Transmit tx) {
        if (grantBps > 0 && nextSendNs - nowNs > 0) {
            return 0; // HINT-3: the receiver's grant paces the whole QP
        }
        // Choose what to send: retransmissions first (REL-4), then new segments, alternating between the
        // application's queue and READ responses.
        int q;
        SendWqe w;
        int seg;
        int attempt;
        boolean retransmit;
        while (true) {
            if (!retx.isEmpty()) {
                q = retx.headQueue();
                w = (q == Q_SEND ? sq : rsq).live(retx.headSlot(), retx.headSerial());
                seg = retx.headSeg();
                if (w == null || w.done || SendWqe.bit(w.acked, seg)) {
                    retx.pop();
                    continue;
                }
                attempt = retx.headAttempt() + 1;
                retransmit = true;
                break;
            }
            OutQueue first = preferResponses ? rsq : sq;
            OutQueue second = preferResponses ? sq : rsq;
            OutQueue oq = first.nextToSend < first.tail ? first : second.nextToSend < second.tail ? second : null;
            if (oq == null) {
                return 0;
            }
            w = oq.at(oq.nextToSend);
            q = oq == sq ? Q_SEND : Q_RESP;
            seg = w.nextSeg;
            attempt = 0;
            retransmit = false;
            break;
        }
        Path p = choosePath(nowNs);
        if (p == null) {
            return 0;
        }
        if (retransmit) {
            retx.pop();
            if (attempt > cfg.retryLimit) {
                failRequest(w, WcStatus.RETRY_EXC_ERR);
                return 0;
            }
        } else {
            OutQueue oq = q == Q_SEND ? sq : rsq;
            if (++w.nextSeg >= w.segments) {
                oq.nextToSend++;
                preferResponses = !preferResponses;
            }
        }
        int len = emitData(nowNs, p, w, seg, retransmit, out);
        int i = p.nextPsn & Path.MASK;
        int payload = w.segmentBytes(seg, cfg.mtu);
        p.ensureRecords();
        p.recState[i] = Path.INFLIGHT;
        p.recQueue[i] = (byte) q;
        p.recSlot[i] = (int) (w.serial & sq.mask);
        p.recSerial[i] = w.serial;
        p.recSeg[i] = seg;
        p.recBytes[i] = len;
        p.recAttempt[i] = attempt;
        p.recSentNs[i] = nowNs;
        if (p.inflightPackets == 0 && p.rackStreak == 0) {
            // (a path emptied by REL-14 losses without progress keeps its RTO clock: that is how it fails)
            p.lastProgressNs = nowNs;
        }
        p.inflightBytes += len;
        p.inflightPackets++;
        p.nextPsn++;
        p.txPackets++;
        p.txBytes += len;
        if (retransmit) {
            p.retransmits++;
            count(Counter.RETRANSMITS);
        }
        count(Counter.TX_DATA_PACKETS);
        add(Counter.TX_PAYLOAD_BYTES, payload);
        // Pacing: per path at pacingGain * cwnd / srtt (CC-5), per QP at the receiver's grant (HINT-3).
        if (cfg.pacingGain > 0 && p.srttNs > 0) {
            double bytesPerNs = cfg.pacingGain * p.cwndBytes / p.srttNs;
            p.nextSendNs = Math.max(p.nextSendNs, nowNs) + (long) (len / bytesPerNs);
        }
        if (grantBps > 0) {
            // HINT-3: the next send time moves one interval on; a QP that has been sending under the grant and was
            // woken late keeps its schedule (catching up by at most two intervals: a host's timers are not exact,
            // and without this every late wake-up is throughput lost for good); after a pause it starts from now
            long gap = len * 8_000_000_000L / grantBps;
            boolean onSchedule = grantPacedNs != Long.MIN_VALUE && nowNs - nextSendNs <= 2 * gap
                    && nowNs - grantPacedNs <= 3 * gap;
            nextSendNs = (onSchedule ? Math.max(nextSendNs, nowNs - 2 * gap) : Math.max(nextSendNs, nowNs)) + gap;
            grantPacedNs = nowNs;
        } else {
            grantPacedNs = Long.MIN_VALUE;
        }
        return finishPacket(out, len - Packet.CRC_LENGTH, p, w.op, tx);
    }

    /** PATH-1: the sendable path with the largest open window, round-robin among equals. */
    private Path choosePath(long nowNs) {
        int n = paths.length;
        Path best = null;
        double bestOpen = Double.NEGATIVE_INFINITY;
        for (int k = 0; k < n; k++) {
            Path p = paths[(pathCursor + k) % n];
            if (!sendable(p) || !windowOpen(p) || p.nextSendNs - nowNs > 0) {
                continue;
            }
            double open = p.cwndBytes - p.inflightBytes;
            if (open > bestOpen) {
                best = p;
                bestOpen = open;
            }
        }
        if (best != null) {
            pathCursor = (best.id + 1) % n;
        }
        return best;
    }

    /** Writes one data packet (without CRC) and returns its length including the CRC. */
    private int emitData(long nowNs, Path p, SendWqe w, int seg, boolean retransmit, MemorySegment out) {
        int flags = retransmit ? BaseHeader.FLAG_RETRANSMIT | BaseHeader.FLAG_ACK_REQ : 0;
        if (seg == 0) {
            flags |= BaseHeader.FLAG_FIRST;
        }
        if (seg == w.segments - 1) {
            flags |= BaseHeader.FLAG_LAST | BaseHeader.FLAG_ACK_REQ;
        }
        if (w.op == Opcode.READ_REQ) {
            header(out, Opcode.READ_REQ, flags, p, p.nextPsn, 0, nowNs);
            readReq.wrap(out, BaseHeader.LENGTH).msn(w.msn).readLength(w.length).rkey(w.rkey).reserved(0)
                    .remoteVa(w.remoteVa).sinkVa(w.sinkVa);
            return BaseHeader.LENGTH + ReadRequestHeader.LENGTH + Packet.CRC_LENGTH;
        }
        int offset = seg * cfg.mtu;
        int payload = w.segmentBytes(seg, cfg.mtu);
        header(out, w.op, flags, p, p.nextPsn, payload, nowNs);
        long va = w.op == Opcode.READ_RESP ? w.sinkVa + offset
                : (w.op == Opcode.WRITE || w.op == Opcode.WRITE_IMM) ? w.remoteVa + offset : 0;
        data.wrap(out, BaseHeader.LENGTH).msn(w.msn).messageLength(w.length).offset(offset).rkey(w.rkey).va(va)
                .rsn(w.rsn).immediate(w.imm);
        if (payload > 0 && !cfg.elidePayload) {
            MemorySegment.copy(w.local.segment(), w.localOffset + offset, out,
                    BaseHeader.LENGTH + DataHeader.LENGTH, payload);
        }
        return BaseHeader.LENGTH + DataHeader.LENGTH + payload + Packet.CRC_LENGTH;
    }

    @Override
    public String toString() {
        return "QP " + qpn + " " + state + " -> " + remoteQpn + " sq=" + sq.outstanding() + " rq=" + rq.count;
    }
}
