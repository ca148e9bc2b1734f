package io.metaroce.core;

import io.metaroce.core.auth.PacketAuth;
import io.metaroce.core.wire.AckBundleHeader;
import io.metaroce.core.wire.AckHold;
import io.metaroce.core.wire.AckHeader;
import io.metaroce.core.wire.BaseHeader;
import io.metaroce.core.wire.DataHeader;
import io.metaroce.core.wire.Ecn;
import io.metaroce.core.wire.NakHeader;
import io.metaroce.core.wire.Opcode;
import io.metaroce.core.wire.Packet;
import io.metaroce.core.wire.ParityHeader;
import io.metaroce.core.wire.ProbeHeader;
import io.metaroce.core.wire.ReadRequestHeader;

import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;

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
    private final AckBundleHeader bundle = new AckBundleHeader();
    private final NakHeader nak = new NakHeader();
    private final ProbeHeader probe = new ProbeHeader();
    private final ParityHeader parity = new ParityHeader();
    /** AUTH-*: the connection's authenticator (set by the QP), or null. */
    PacketAuth auth;
    /** AUTH-18: when {@link #auth} moves to its next key (set with it). */
    KeyUpdates keyUpdates;
    // the data packet being written, when its payload stays in its region (Engine.gatherTransmit; never with AUTH,
    // which seals the payload in the buffer)
    private MemorySegment gatherSegment;
    private ByteBuffer gatherView;
    private long gatherOffset;
    private int gatherLength;

    PacketWriter(QpCore c) {
        this.c = c;
    }

    private void header(MemorySegment out, int op, int flags, Path p, int psn, int payloadLen, long nowNs) {
        base.wrap(out, 0).version(Packet.VERSION).opcode(op).flags(flags).destQpn(c.remoteQpn).pathId(p.id)
                .payloadLength(payloadLen).psn(psn).psnFloor(p.floor).srcQpn(c.qpn).timestampNs(nowNs);
    }

    /**
     * Seals {@code out[0, len)} with its CRC (for a gathered data packet: the headers in {@code out} and the payload
     * left in its region, {@link Transmit}), fills {@code tx} and returns the datagram's length.
     */
    int finish(MemorySegment out, int len, Path p, int op, Transmit tx) {
        Packet packet = c.engine.packet;
        int total;
        if (gatherLength > 0 && Opcode.isData(op)) {
            int headers = len - gatherLength;
            total = packet.sealGathered(out, headers, gatherView, gatherOffset, gatherLength);
            tx.headerLength = headers;
            tx.payloadSegment = gatherSegment;
            tx.payloadOffset = gatherOffset;
            tx.payloadLength = gatherLength;
            tx.writtenLength = headers + Packet.CRC_LENGTH;
        } else {
            if (auth != null) {
                keyUpdates.beforeSeal(p);
                len = auth.seal(out, len, p.id); // AUTH-2: tag and sequence number before the CRC
            }
            if (c.cfg.elidePayload && Opcode.hasUserPayload(op)) {
                int payload = base.wrap(out, 0).payloadLength();
                total = packet.sealElided(out, len, payload);
                tx.writtenLength = total - payload;
            } else {
                total = packet.seal(out, len);
                tx.writtenLength = total;
            }
            tx.headerLength = total - Packet.CRC_LENGTH;
            tx.payloadSegment = null;
            tx.payloadLength = 0;
        }
        gatherSegment = null;
        gatherView = null;
        gatherLength = 0;
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

    /**
     * The path's ACK (ACK-*): cumulative PSN, SACK bitmap, CE count, echoed timestamp, grant. With
     * {@link EngineConfig#ackBundle}, when other paths also have accepted packets not yet acknowledged, one ACK
     * bundle (ACK-11) carries {@code p}'s acknowledgement first and theirs after it, in path order from {@code p}.
     */
    int ack(long nowNs, Path p, MemorySegment out, Transmit tx) {
        int others = c.cfg.ackBundle ? bundleMates(p) : 0;
        c.count(Counter.TX_ACK_DATAGRAMS);
        if (others == 0) {
            header(out, Opcode.ACK, BaseHeader.FLAG_ACK_HOLD, p, 0, 0, nowNs);
            base.psnFloor(AckHold.encode(newestHoldNs(nowNs, p), longestHoldNs(nowNs, p)));
            ack.wrap(out, BaseHeader.LENGTH).cumPsn(p.rxCum).ceCount(ceEcho(p)).reserved(0)
                    .echoTimestampNs(p.rxEchoTs()).grantMbps(c.engine.grants.grantMbps(nowNs))
                    .rxMsn(c.inbound.retireMsn);
            for (int w = 0; w < 4; w++) {
                ack.sackWord(w, ReceivedPsns.sackWord(p, w));
            }
            ack.sackWord(0, c.cfg.seam.firstSackWord(ack.sackWord(0)));
            acknowledged(p);
            return finish(out, BaseHeader.LENGTH + AckHeader.LENGTH, p, Opcode.ACK, tx);
        }
        int entries = 1 + others;
        header(out, Opcode.ACK_BUNDLE, BaseHeader.FLAG_ACK_HOLD, p, 0, entries * AckBundleHeader.ENTRY_LENGTH,
                nowNs);
        long newest = Long.MAX_VALUE;
        long longest = 0;
        bundle.wrap(out, BaseHeader.LENGTH).grantMbps(c.engine.grants.grantMbps(nowNs))
                .rxMsn(c.inbound.retireMsn);
        Path[] paths = c.paths;
        int n = paths.length;
        int e = 0;
        for (int k = 0; k < n && e < entries; k++) {
            int id = p.id + k;
            Path q = paths[id >= n ? id - n : id];
            if (k == 0 || q != null && (q.ackNow || q.rxPending > 0)) {
                newest = Math.min(newest, newestHoldNs(nowNs, q));
                longest = Math.max(longest, longestHoldNs(nowNs, q));
                bundleEntry(e++, q);
            }
        }
        base.wrap(out, 0).psnFloor(AckHold.encode(newest, longest)); // ACK-12: one pair for the whole bundle
        return finish(out, BaseHeader.LENGTH + AckBundleHeader.LENGTH + entries * AckBundleHeader.ENTRY_LENGTH, p,
                Opcode.ACK_BUNDLE, tx);
    }

    /** Paths other than {@code p} that an ACK bundle sent now would also acknowledge (at most what fits). */
    private int bundleMates(Path p) {
        int room = Math.min(c.paths.length, AckBundleHeader.maxEntries(c.engine.maxDataDatagramLength())) - 1;
        int mates = 0;
        for (Path q : c.paths) {
            if (q != null && q != p && (q.ackNow || q.rxPending > 0) && mates < room) {
                mates++;
            }
        }
        return mates;
    }

    private void bundleEntry(int e, Path q) {
        bundle.pathId(e, q.id).ceCount(e, ceEcho(q)).cumPsn(e, q.rxCum).echoTimestampNs(e, q.rxEchoTs());
        for (int w = 0; w < 4; w++) {
            bundle.sackWord(e, w, ReceivedPsns.sackWord(q, w));
        }
        bundle.sackWord(e, 0, c.cfg.seam.firstSackWord(bundle.sackWord(e, 0)));
        acknowledged(q);
    }

    /** ACK-12: how long {@code p}'s echoed packet has been held, in ns (0 when none was received). */
    private static long newestHoldNs(long nowNs, Path p) {
        long echoAtNs = p.rxEchoAtNs();
        return echoAtNs == Engine.NO_DEADLINE ? 0 : nowNs - echoAtNs;
    }

    /** ACK-12: how long the earliest packet {@code p}'s ACK is the first to acknowledge has been held, in ns. */
    private static long longestHoldNs(long nowNs, Path p) {
        long heldSinceNs = p.rxHeldSinceNs();
        return heldSinceNs == Engine.NO_DEADLINE ? 0 : nowNs - heldSinceNs;
    }

    private int ceEcho(Path p) {
        return c.cfg.seam.ceEcho(p.rxCe());
    }

    /** The path's receive state has just been acknowledged: nothing is held back any more. */
    private void acknowledged(Path p) {
        p.rxAcknowledged();
        p.rxPending = 0;
        p.ackNow = false;
        p.ackDeadlineNs = Engine.NO_DEADLINE;
        c.count(Counter.TX_ACKS);
    }

    /** The oldest queued NAK. */
    int nak(long nowNs, MemorySegment out, Transmit tx) {
        ControlRing r = c.naks;
        r.take();
        Path p = c.path(r.path());
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
        Path p = c.path(r.path());
        header(out, Opcode.PROBE_REPLY, 0, p, 0, 0, nowNs);
        probe.wrap(out, BaseHeader.LENGTH).probeId(r.id()).echoTimestampNs(r.ts());
        c.count(Counter.TX_PROBE_REPLIES);
        return finish(out, BaseHeader.LENGTH + ProbeHeader.LENGTH, p, Opcode.PROBE_REPLY, tx);
    }

    int probe(long nowNs, Path p, MemorySegment out, Transmit tx) {
        header(out, Opcode.PROBE, 0, p, 0, 0, nowNs);
        probe.wrap(out, BaseHeader.LENGTH).probeId(p.probeId()).echoTimestampNs(0);
        c.count(Counter.TX_PROBES);
        return finish(out, BaseHeader.LENGTH + ProbeHeader.LENGTH, p, Opcode.PROBE, tx);
    }

    /**
     * REL-18, REL-20, REL-21: repair {@code j} of segments {@code [first, first + count)} of {@code w} on path
     * {@code p} (0: the PARITY, 1: the PARITY_Q, 2 and up: a PARITY_R): unsequenced, its header naming the group as a
     * data packet of segment {@code first} would, its payload the sum of the group's segments with segment
     * {@code first + i} weighted by 2^(j*i) in GF(2^8) (the PARITY's is their XOR; each padded with zeros to the first
     * one's length), read from the message's local buffer.
     */
    int parity(long nowNs, Path p, SendWqe w, int first, int count, int j, MemorySegment out, Transmit tx) {
        int mtu = c.cfg.mtu;
        int offset = first * mtu;
        int payload = w.segmentBytes(first, mtu);
        int op = j == 0 ? Opcode.PARITY : j == 1 ? Opcode.PARITY_Q : Opcode.PARITY_R;
        header(out, op, 0, p, 0, payload, nowNs);
        long va = (w.op == Opcode.WRITE || w.op == Opcode.WRITE_IMM) ? w.remoteVa + offset : 0;
        parity.wrap(out, BaseHeader.LENGTH).msn(w.msn).messageLength(w.length).offset(offset).rkey(w.rkey).va(va)
                .rsn(w.rsn).immediate(w.imm).op(w.op).count(count).reserved(0);
        if (j >= 2) {
            parity.repair(j);
        }
        long at = BaseHeader.LENGTH + ParityHeader.LENGTH;
        if (payload > 0 && !c.cfg.elidePayload) {
            Xor xor = c.engine.xor();
            MemorySegment region = w.local.segment();
            if (j >= 1) { // Horner's rule from the last segment down: (..(D[n-1] * 2^j + D[n-2]) * 2^j ..) * 2^j + D[0]
                int last = first + count - 1;
                xor.start(region, w.localOffset + (long) last * mtu, w.segmentBytes(last, mtu));
                for (int k = last - 1; k >= first; k--) {
                    xor.timesPow2Add(j, region, w.localOffset + (long) k * mtu, w.segmentBytes(k, mtu));
                }
            } else {
                xor.start(region, w.localOffset + offset, payload);
                for (int k = 1; k < count; k++) {
                    xor.add(region, w.localOffset + (long) (first + k) * mtu, w.segmentBytes(first + k, mtu));
                }
            }
            xor.writeTo(out, at, payload);
        }
        c.count(j == 0 ? Counter.PARITY_SENT : j == 1 ? Counter.PARITY_Q_SENT : Counter.PARITY_R_SENT);
        return finish(out, (int) at + payload, p, op, tx);
    }

    /** Writes one data packet (without CRC) at the path's next PSN and returns its length including the CRC. */
    int data(long nowNs, Path p, SendWqe w, int seg, boolean retransmit, MemorySegment out) {
        int flags = retransmit ? BaseHeader.FLAG_RETRANSMIT | BaseHeader.FLAG_ACK_REQ : 0;
        p.peer.lossRate.onSent(); // REL-21
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
        gatherLength = 0;
        if (payload > 0 && !c.cfg.elidePayload) {
            MemorySegment region = w.local.segment();
            if (c.engine.gather && auth == null && region.isNative() && region.byteSize() <= Integer.MAX_VALUE) {
                // scatter-gather: the payload leaves from the region itself (finish CRCs it there)
                gatherSegment = region;
                gatherView = w.local.crcView();
                gatherOffset = w.localOffset + offset;
                gatherLength = payload;
            } else {
                MemorySegment.copy(region, w.localOffset + offset, out, BaseHeader.LENGTH + DataHeader.LENGTH,
                        payload);
            }
        }
        return BaseHeader.LENGTH + DataHeader.LENGTH + payload + Packet.CRC_LENGTH;
    }
}
