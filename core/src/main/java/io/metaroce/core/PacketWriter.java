package io.metaroce.core;

import io.metaroce.core.auth.PacketAuth;
import io.metaroce.core.wire.AckHeader;
import io.metaroce.core.wire.BaseHeader;
import io.metaroce.core.wire.DataHeader;
import io.metaroce.core.wire.Ecn;
import io.metaroce.core.wire.NakHeader;
import io.metaroce.core.wire.Opcode;
import io.metaroce.core.wire.Packet;
import io.metaroce.core.wire.ProbeHeader;
import io.metaroce.core.wire.ReadRequestHeader;

import java.lang.foreign.MemorySegment;

/**
 * Writes one QP's packets (wire format of spec section 01): data, READ requests, ACKs, NAKs, probes and probe
 * replies, each sealed with its CRC and described in the {@link Transmit}. It decides nothing: what to send is
 * the {@link TransmitScheduler}'s choice.
 */
final class PacketWriter {
    private final QpCore c;
    private final BaseHeader base = new BaseHeader();
    private final DataHeader data = new DataHeader();
    private final ReadRequestHeader readReq = new ReadRequestHeader();
    private final AckHeader ack = new AckHeader();
    private final NakHeader nak = new NakHeader();
    private final ProbeHeader probe = new ProbeHeader();
    /** AUTH-*: the connection's authenticator (set by the QP), or null. */
    PacketAuth auth;

    PacketWriter(QpCore c) {
        this.c = c;
    }

    private void header(MemorySegment out, int op, int flags, Path p, int psn, int payloadLen, long nowNs) {
        base.wrap(out, 0).version(Packet.VERSION).opcode(op).flags(flags).destQpn(c.remoteQpn).pathId(p.id)
                .payloadLength(payloadLen).psn(psn).psnFloor(p.floor).srcQpn(c.qpn).timestampNs(nowNs);
    }

    /** Seals {@code out[0, len)} with its CRC, fills {@code tx} and returns the datagram's length. */
    int finish(MemorySegment out, int len, Path p, int op, Transmit tx) {
        Packet packet = c.engine.packet;
        if (auth != null) {
            len = auth.seal(out, len, p.id); // AUTH-2: tag and sequence number before the CRC
        }
        int total = c.cfg.elidePayload ? packet.sealElided(out, len, base.wrap(out, 0).payloadLength())
                : packet.seal(out, len);
        tx.peer = c.peer;
        tx.plane = p.plane;
        tx.pathId = p.id;
        tx.length = total;
        tx.opcode = op;
        tx.ecn = Ecn.ECT0; // every datagram is ECN-capable so that switches mark instead of dropping (CC-8)
        c.count(Counter.TX_PACKETS);
        c.add(Counter.TX_BYTES, total);
        return total;
    }

    /** The path's ACK (ACK-*): cumulative PSN, SACK bitmap, CE count, echoed timestamp, grant. */
    int ack(long nowNs, Path p, MemorySegment out, Transmit tx) {
        header(out, Opcode.ACK, 0, p, 0, 0, nowNs);
        ack.wrap(out, BaseHeader.LENGTH).cumPsn(p.rxCum)
                .ceCount(c.cfg.mutation == Mutation.NO_ECN_ECHO ? 0 : p.rxCe).reserved(0)
                .echoTimestampNs(p.rxEchoTs).grantMbps(c.engine.grants.grantMbps(c, nowNs))
                .rxMsn(c.inbound.retireMsn);
        for (int w = 0; w < 4; w++) {
            ack.sackWord(w, p.rxSackWord(w));
        }
        if (c.cfg.mutation == Mutation.SACK_OFF_BY_ONE) {
            ack.sackWord(0, ack.sackWord(0) << 1); // test-only defect
        }
        p.rxCe = 0;
        p.rxPending = 0;
        p.ackNow = false;
        p.ackDeadlineNs = Engine.NO_DEADLINE;
        c.count(Counter.TX_ACKS);
        return finish(out, BaseHeader.LENGTH + AckHeader.LENGTH, p, Opcode.ACK, tx);
    }

    /** The oldest queued NAK. */
    int nak(long nowNs, MemorySegment out, Transmit tx) {
        ControlRing r = c.naks;
        r.take();
        Path p = c.paths[r.path()];
        header(out, Opcode.NAK, 0, p, 0, 0, nowNs);
        nak.wrap(out, BaseHeader.LENGTH).msn(r.msn()).code(r.code()).reserved(0).nakPsn(r.psn())
                .offset(r.offset());
        c.count(Counter.TX_NAKS);
        return finish(out, BaseHeader.LENGTH + NakHeader.LENGTH, p, Opcode.NAK, tx);
    }

    /** The oldest queued probe reply. */
    int probeReply(long nowNs, MemorySegment out, Transmit tx) {
        ControlRing r = c.replies;
        r.take();
        Path p = c.paths[r.path()];
        header(out, Opcode.PROBE_REPLY, 0, p, 0, 0, nowNs);
        probe.wrap(out, BaseHeader.LENGTH).probeId(r.id()).echoTimestampNs(r.ts());
        c.count(Counter.TX_PROBE_REPLIES);
        return finish(out, BaseHeader.LENGTH + ProbeHeader.LENGTH, p, Opcode.PROBE_REPLY, tx);
    }

    int probe(long nowNs, Path p, MemorySegment out, Transmit tx) {
        header(out, Opcode.PROBE, 0, p, 0, 0, nowNs);
        probe.wrap(out, BaseHeader.LENGTH).probeId(p.probeId).echoTimestampNs(0);
        c.count(Counter.TX_PROBES);
        return finish(out, BaseHeader.LENGTH + ProbeHeader.LENGTH, p, Opcode.PROBE, tx);
    }

    /** Writes one data packet (without CRC) at the path's next PSN and returns its length including the CRC. */
    int data(long nowNs, Path p, SendWqe w, int seg, boolean retransmit, MemorySegment out) {
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
        int mtu = c.cfg.mtu;
        int offset = seg * mtu;
        int payload = w.segmentBytes(seg, mtu);
        header(out, w.op, flags, p, p.nextPsn, payload, nowNs);
        long va = w.op == Opcode.READ_RESP ? w.sinkVa + offset
                : (w.op == Opcode.WRITE || w.op == Opcode.WRITE_IMM) ? w.remoteVa + offset : 0;
        data.wrap(out, BaseHeader.LENGTH).msn(w.msn).messageLength(w.length).offset(offset).rkey(w.rkey).va(va)
                .rsn(w.rsn).immediate(w.imm);
        if (payload > 0 && !c.cfg.elidePayload) {
            MemorySegment.copy(w.local.segment(), w.localOffset + offset, out,
                    BaseHeader.LENGTH + DataHeader.LENGTH, payload);
        }
        return BaseHeader.LENGTH + DataHeader.LENGTH + payload + Packet.CRC_LENGTH;
    }
}
