package io.metaroce.core;

import io.metaroce.core.wire.BaseHeader;
import io.metaroce.core.wire.DataHeader;
import io.metaroce.core.wire.NakHeader;
import io.metaroce.core.wire.Opcode;
import io.metaroce.core.wire.ParityHeader;
import io.metaroce.core.wire.ReadRequestHeader;

import java.lang.foreign.MemorySegment;

/**
 * The receiving side of one QP: per-path acceptance and ACK scheduling (SACK-*, ACK-*), placement of WRITE, SEND
 * and READ-response data straight into final memory in any order (ORD-2), READ requests turned into responses,
 * NAKs for what cannot be accepted (NAK-*), and receive completions in order (ORD-1).
 */
final class Responder {
    private static final int ACCEPT = 0;
    private static final int ACCEPT_DUP = 1;
    private static final int REJECT = 2;
    /** The furthest a data packet's PSN floor may move the receiver's cumulative PSN at once. */
    private static final int MAX_FLOOR_JUMP = 1 << 16;

    private final QpCore c;
    private final BaseHeader base = new BaseHeader();
    private final DataHeader data = new DataHeader();
    private final ReadRequestHeader readReq = new ReadRequestHeader();
    private final ParityHeader parity = new ParityHeader();

    Responder(QpCore c) {
        this.c = c;
    }

    /** A data packet (or READ request) arrived on path {@code p} with IP ECN field {@code ecn}. */
    void onData(long nowNs, Path p, MemorySegment seg, int op, int ecn) {
        base.wrap(seg, 0);
        int psn = base.psn();
        int floor = base.psnFloor();
        // SACK-10: a sender never has 256 PSNs outstanding on a path, so its floor is within 256 below the
        // packet's own PSN; and a floor never jumps further than a window's worth of PSNs the receiver could
        // have missed. Anything else is forged or corrupt and must not move the cumulative PSN.
        if (psn - floor < 0 || psn - floor >= Path.WINDOW || floor - 1 - p.rxCum > MAX_FLOOR_JUMP) {
            c.count(Counter.DROP_MALFORMED);
            return;
        }
        ReceivedPsns.applyFloor(p, floor);
        int cls = ReceivedPsns.classify(p, psn);
        if (cls == 1) {
            c.count(Counter.DROP_DUPLICATE);
            p.ackNow = c.cfg.seam.ackDuplicates();
            c.ackWork = true;
            return;
        }
        if (cls == 2) {
            c.count(Counter.DROP_PSN_OUT_OF_WINDOW);
            return;
        }
        c.count(Counter.RX_DATA_PACKETS);
        p.rx().packets++;
        int verdict = op == Opcode.READ_REQ ? onReadRequest(p, seg, psn) : onDataPacket(nowNs, p, seg, op, psn, ecn);
        if (verdict == REJECT) {
            // SACK-4: a rejected packet is never marked accepted; the sender learns from the NAK or the gap.
            p.ackNow = true;
            c.ackWork = true;
            return;
        }
        if (ecn == EngineConfig.ECN_CE) {
            p.rx().ce++;
            p.ackNow = true;
            c.ackWork = true;
            c.count(Counter.ECN_CE_RECEIVED);
        }
        boolean gap = ReceivedPsns.accept(p, psn);
        p.rx().echoTs = base.timestampNs();
        p.rxHeld(c.engine.heldAtNs(nowNs), true);
        p.rxPending++;
        p.arm();
        if ((base.flags() & BaseHeader.FLAG_ACK_REQ) != 0) {
            // ACK-10: the end of a message (or a resend): every path's held-back ACK goes now, so the sender
            // learns the message's fate at once instead of an ackDelay later on the other paths
            for (Path q : c.paths) {
                if (q != null && q.rxPending > 0) {
                    q.ackNow = true;
                }
            }
            p.ackNow = true;
            c.ackWork = true;
        } else if (gap || p.rxPending >= c.cfg.ackEvery) {
            p.ackNow = true;
            c.ackWork = true;
        } else if (p.ackDeadlineNs == Engine.NO_DEADLINE) {
            p.ackDeadlineNs = nowNs + c.cfg.ackDelayNs;
        }
        if (op != Opcode.READ_RESP) {
            c.engine.grants.noteSenderActivity(p.peer, nowNs, ecn == EngineConfig.ECN_CE);
        }
    }

    /**
     * REL-17: a sequenced packet arrived trimmed to its headers. Unless its PSN was accepted already (a copy came
     * through) or lies beyond the window, it is NAKed TRIMMED at once, naming its path, PSN, MSN and offset; its PSN
     * stays a hole (NAK-2) and nothing else of the packet (floor, ECN, timestamp) is taken in.
     */
    void onTrimmed(Path p, MemorySegment seg) {
        base.wrap(seg, 0);
        int psn = base.psn();
        int cls = ReceivedPsns.classify(p, psn);
        if (cls != 0) {
            c.count(cls == 1 ? Counter.DROP_DUPLICATE : Counter.DROP_PSN_OUT_OF_WINDOW);
            return;
        }
        c.count(Counter.RX_TRIMMED);
        if (base.opcode() == Opcode.READ_REQ) {
            queueNak(p.id, psn, readReq.wrap(seg, BaseHeader.LENGTH).msn(), NakHeader.CODE_TRIMMED, 0);
        } else {
            data.wrap(seg, BaseHeader.LENGTH);
            queueNak(p.id, psn, data.msn(), NakHeader.CODE_TRIMMED, data.offset());
            if (base.opcode() != Opcode.READ_RESP) { // a READ response's MSN is one of this side's own requests
                c.missing.onTrimmed(data.msn(), data.offset() / c.cfg.mtu); // REL-16: reported once, as TRIMMED
            }
        }
    }

    /** Whether the packet in {@code base} is flagged RETRANSMIT: a resend or a tail copy, not a first transmission. */
    private boolean retransmitted() {
        return (base.flags() & BaseHeader.FLAG_RETRANSMIT) != 0;
    }

    private int onDataPacket(long nowNs, Path p, MemorySegment seg, int op, int psn, int ecn) {
        data.wrap(seg, BaseHeader.LENGTH);
        int msn = data.msn();
        int msgLen = data.messageLength();
        int offset = data.offset();
        int payloadLen = base.payloadLength();
        int mtu = c.cfg.mtu;
        // WIRE-2: framing must be self-consistent before anything is trusted.
        if (msgLen < 0 || offset < 0 || offset % mtu != 0 || (offset >= msgLen && !(msgLen == 0 && offset == 0))
                || payloadLen != Math.min(mtu, msgLen - offset)) {
            c.count(Counter.DROP_MALFORMED);
            return REJECT;
        }
        long payloadOff = BaseHeader.LENGTH + DataHeader.LENGTH;
        int segIdx = offset / mtu;
        if (op == Opcode.READ_RESP) {
            return onReadResponse(seg, msn, msgLen, offset, segIdx, payloadOff, payloadLen);
        }
        int rel = c.inbound.relative(msn);
        if (rel < 0) {
            c.count(Counter.DUPLICATE_DATA); // ORD-5: the message already retired
            return ACCEPT_DUP;
        }
        if (rel >= c.inbound.window) {
            c.count(Counter.DROP_MSN_OUT_OF_WINDOW);
            return REJECT;
        }
        InboundMessages.Msg m = c.inbound.slot(msn);
        if (m.active) {
            if (m.op != op || m.length != msgLen) {
                c.count(Counter.DROP_MALFORMED);
                return REJECT;
            }
            if (SendWqe.bit(m.bits, segIdx)) {
                c.missing.onArrival(m, segIdx, nowNs, retransmitted(), p); // REL-19: a late first copy after its resend
                c.count(Counter.DUPLICATE_DATA);
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
        RecvQueue rq = c.rq;
        int recvIdx = -1;
        if (Opcode.consumesReceive(op)) {
            recvIdx = rq.indexOf(rsn);
            if (recvIdx < 0) {
                if (rsn - rq.headRsn < 0) {
                    c.count(Counter.DROP_MALFORMED);
                    return REJECT;
                }
                c.count(Counter.DROP_RNR);
                queueNak(p.id, psn, msn, NakHeader.CODE_RNR, offset);
                return REJECT;
            }
            if ((op == Opcode.SEND || op == Opcode.SEND_IMM) && msgLen > rq.lengths[recvIdx]) {
                c.count(Counter.DROP_INVALID_REQUEST);
                queueNak(p.id, psn, msn, NakHeader.CODE_INVALID_REQUEST, offset);
                return REJECT;
            }
        }
        // Place straight into final memory (ORD-2), before the message's other packets if need be.
        if (op == Opcode.WRITE || op == Opcode.WRITE_IMM) {
            MemoryRegion mr = c.engine.regionByRkey(data.rkey());
            if (payloadLen > 0 && !c.cfg.elidePayload) {
                MemorySegment.copy(seg, payloadOff, mr.segment(), data.va() - mr.address(), payloadLen);
            }
        } else if (payloadLen > 0 && !c.cfg.elidePayload) {
            MemoryRegion mr = rq.mrs[recvIdx];
            MemorySegment.copy(seg, payloadOff, mr.segment(), rq.offsets[recvIdx] + offset, payloadLen);
        }
        c.add(Counter.RX_PAYLOAD_BYTES, payloadLen);
        if (!m.active) {
            m = c.inbound.open(msn, op, msgLen, mtu, rsn, data.immediate());
        }
        c.missing.onArrival(m, segIdx, nowNs, retransmitted(), p); // REL-19
        SendWqe.set(m.bits, segIdx);
        m.count++;
        c.missing.onSegment(m, segIdx, nowNs, base.timestampNs(), p, ecn == EngineConfig.ECN_CE); // REL-16
        if (c.parityIn.onSegment(m, segIdx) && m.count == m.segments) {
            p.ackNow = true; // REL-18: a held parity rebuilt the message's last missing segment
            c.ackWork = true;
        }
        if (m.count == m.segments) {
            retireInbound();
        }
        return ACCEPT;
    }

    /**
     * REL-18, REL-20, REL-21: a PARITY, PARITY_Q or PARITY_R ({@code opcode}; unsequenced: no PSN, nothing
     * acknowledged). Checked as a data packet of its group's first segment would be (WIRE-22, BAD-*), a PARITY_R's
     * repair index too; then it rebuilds what the parities of its group at hand can (as many missing segments as
     * parities, REL-21), is held until they can, or is counted unused. A rebuilt segment counts as received: its
     * message may complete (ORD-1).
     */
    void onParity(Path p, MemorySegment seg, int opcode) {
        base.wrap(seg, 0);
        parity.wrap(seg, BaseHeader.LENGTH);
        int op = parity.op();
        int msn = parity.msn();
        int msgLen = parity.messageLength();
        int offset = parity.offset();
        int n = parity.count();
        int payloadLen = base.payloadLength();
        int mtu = c.cfg.mtu;
        int repair = opcode == Opcode.PARITY ? 0 : opcode == Opcode.PARITY_Q ? 1 : parity.repair();
        boolean write = op == Opcode.WRITE || op == Opcode.WRITE_IMM;
        if (!write && op != Opcode.SEND && op != Opcode.SEND_IMM || msgLen < 0 || offset < 0 || offset % mtu != 0
                || offset >= msgLen || n < 2 || n > SendWqe.segmentsOf(msgLen, mtu) - offset / mtu
                || payloadLen != Math.min(mtu, msgLen - offset)
                || opcode == Opcode.PARITY_R && (repair < 2 || repair > ParityHeader.MAX_REPAIR)) {
            c.count(Counter.DROP_MALFORMED);
            return;
        }
        c.count(Counter.RX_PARITY);
        int rel = c.inbound.relative(msn);
        if (rel < 0) {
            c.count(Counter.PARITY_UNUSED); // ORD-5: the message already retired
            return;
        }
        if (rel >= c.inbound.window) {
            c.count(Counter.DROP_MSN_OUT_OF_WINDOW);
            return;
        }
        if (write && checkRemote(parity.rkey(), parity.va(), Math.min((long) msgLen - offset, (long) n * mtu),
                Access.REMOTE_WRITE) != 0) {
            return; // counted by its reason; nothing to NAK (it has no PSN)
        }
        InboundMessages.Msg m = c.inbound.openEntry(msn);
        if (m != null && (m.op != op || m.length != msgLen)) {
            c.count(Counter.DROP_MALFORMED);
            return;
        }
        if (c.parityIn.onParity(repair, m, msn, op, msgLen, offset / mtu, n, parity.rkey(), parity.va(), seg,
                BaseHeader.LENGTH + ParityHeader.LENGTH, payloadLen) && m.count == m.segments) {
            retireInbound();
            p.ackNow = true; // its rx MSN tells the sender the message is whole (the rebuilt PSN is never acknowledged)
            c.ackWork = true;
        }
    }

    /** Returns 0 if (rkey, va, len) may be accessed with {@code need}, else the NAK code (and counts it). */
    private int checkRemote(int rkey, long va, long len, int need) {
        MemoryRegion mr = c.engine.regionByRkey(rkey);
        if (mr == null || mr.pd() != c.pd) {
            c.count(Counter.DROP_BAD_RKEY);
            return NakHeader.CODE_BAD_RKEY;
        }
        if ((mr.access() & need) == 0) {
            c.count(Counter.DROP_NO_PERMISSION);
            return NakHeader.CODE_NO_PERMISSION;
        }
        if (!mr.contains(va, len) && c.cfg.seam.checkWriteBounds()) {
            c.count(Counter.DROP_OUT_OF_BOUNDS);
            return NakHeader.CODE_OUT_OF_BOUNDS;
        }
        return 0;
    }

    /** Completes inbound messages in MSN order (ORD-1), consuming their receives. */
    private void retireInbound() {
        InboundMessages inbound = c.inbound;
        RecvQueue rq = c.rq;
        while (true) {
            InboundMessages.Msg m = inbound.slot(inbound.retireMsn);
            if (!m.active || m.msn != inbound.retireMsn || m.count != m.segments) {
                return;
            }
            if (Opcode.consumesReceive(m.op)) {
                int idx = rq.headIndex();
                boolean imm = m.op != Opcode.SEND;
                WcOpcode wop = m.op == Opcode.WRITE_IMM ? WcOpcode.RECV_RDMA_WITH_IMM : WcOpcode.RECV;
                c.recvCq.push(rq.wrIds[idx], WcStatus.SUCCESS, wop, m.length, imm ? m.imm : 0, imm, c.qpn);
                c.count(Counter.COMPLETIONS);
                rq.pop();
            }
            m.active = false;
            inbound.retireMsn++;
        }
    }

    private int onReadRequest(Path p, MemorySegment seg, int psn) {
        readReq.wrap(seg, BaseHeader.LENGTH);
        int msn = readReq.msn();
        int len = readReq.readLength();
        if (base.payloadLength() != 0 || len < 0) {
            c.count(Counter.DROP_MALFORMED);
            return REJECT;
        }
        int rel = c.inbound.relative(msn);
        if (rel < 0) {
            c.count(Counter.DUPLICATE_DATA);
            return ACCEPT_DUP;
        }
        if (rel >= c.inbound.window) {
            c.count(Counter.DROP_MSN_OUT_OF_WINDOW);
            return REJECT;
        }
        InboundMessages.Msg m = c.inbound.slot(msn);
        if (m.active) {
            c.count(Counter.DUPLICATE_DATA);
            return ACCEPT_DUP;
        }
        int code = checkRemote(readReq.rkey(), readReq.remoteVa(), len, Access.REMOTE_READ);
        if (code != 0) {
            queueNak(p.id, psn, msn, code, 0);
            return REJECT;
        }
        OutQueue rsq = c.rsq;
        if (rsq.full()) {
            c.count(Counter.DROP_BUSY);
            queueNak(p.id, psn, msn, NakHeader.CODE_BUSY, 0);
            return REJECT;
        }
        MemoryRegion mr = c.engine.regionByRkey(readReq.rkey());
        long serial = rsq.tail++;
        rsq.at(serial).init(serial, msn, Opcode.READ_RESP, 0, false, mr, readReq.remoteVa() - mr.address(), len,
                0, 0, 0, 0, readReq.sinkVa(), c.cfg.mtu);
        m = c.inbound.open(msn, Opcode.READ_REQ, 0, c.cfg.mtu, 0, 0);
        m.count = m.segments;
        retireInbound();
        return ACCEPT;
    }

    /** A READ response's data for the requester's own READ: placed into the READ's local buffer. */
    private int onReadResponse(MemorySegment seg, int msn, int msgLen, int offset, int segIdx, long payloadOff,
                               int payloadLen) {
        OutQueue sq = c.sq;
        int relHead = msn - sq.at(sq.head).msn;
        if (sq.head == sq.tail || relHead < 0) {
            c.count(Counter.DUPLICATE_DATA); // the READ already completed
            return ACCEPT_DUP;
        }
        SendWqe w = sq.slotOfMsn(msn);
        if (w == null || w.serial < sq.head || w.serial >= sq.tail || w.msn != msn || w.op != Opcode.READ_REQ
                || msgLen != w.length || data.va() != w.sinkVa + offset) {
            c.count(Counter.DROP_MALFORMED);
            return REJECT;
        }
        if (w.done || SendWqe.bit(w.recv, segIdx)) {
            c.count(Counter.DUPLICATE_DATA);
            return ACCEPT_DUP;
        }
        if (payloadLen > 0 && !c.cfg.elidePayload) {
            MemorySegment.copy(seg, payloadOff, w.local.segment(), w.localOffset + offset, payloadLen);
        }
        c.add(Counter.RX_PAYLOAD_BYTES, payloadLen);
        SendWqe.set(w.recv, segIdx);
        w.recvCount++;
        if (w.recvCount == w.recvSegments) {
            QpCore.finish(w, WcStatus.SUCCESS);
            c.retireSends();
        }
        return ACCEPT;
    }

    private void queueNak(int pathId, int psn, int msn, int code, int offset) {
        if (!c.naks.pushNak(pathId, psn, msn, code, offset)) {
            c.count(Counter.NAK_QUEUE_OVERFLOW); // the packet is already counted; the sender will resend it
        }
    }
}
