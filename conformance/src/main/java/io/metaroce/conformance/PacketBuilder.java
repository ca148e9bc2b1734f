package io.metaroce.conformance;

import io.metaroce.conformance.script.Arg;
import io.metaroce.conformance.script.Step;
import io.metaroce.conformance.script.Values;
import io.metaroce.conformance.target.TesterConstants;
import io.metaroce.core.wire.AckBundleHeader;
import io.metaroce.core.wire.AckHeader;
import io.metaroce.core.wire.BaseHeader;
import io.metaroce.core.wire.CmMessage;
import io.metaroce.core.wire.DataHeader;
import io.metaroce.core.wire.NakHeader;
import io.metaroce.core.wire.Opcode;
import io.metaroce.core.wire.Packet;
import io.metaroce.core.wire.ParityHeader;
import io.metaroce.core.wire.ProbeHeader;
import io.metaroce.core.wire.ReadRequestHeader;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Set;

/**
 * Builds the datagram of a {@code send} line: the tester's packet with every field the line sets and sensible
 * defaults for the rest (the tester's next PSN on the path, the IUT's latest PSN, timestamp and probe to echo),
 * then the line's deliberate damage ({@code setb=}, {@code crc=bad}, {@code cut=}, {@code dglen=}).
 */
final class PacketBuilder {
    /** Bytes of the CM message's fixed part, which sits where other opcodes have their extension header. */
    private static final int CM_FIXED = 32;

    /**
     * A datagram to inject.
     *
     * @param bytes    the datagram ({@code length} bytes)
     * @param length   bytes to inject
     * @param ecn      the IP ECN codepoint to deliver it with
     * @param repeat   how many copies to inject back to back
     * @param stranger from an address the IUT has no connection with
     * @param trimmed  delivered as trimmed by a switch (REL-17; {@code trimmed=1} cuts it to 64 bytes unless {@code cut})
     */
    record Outgoing(byte[] bytes, int length, int ecn, int repeat, boolean stranger, boolean trimmed) {
    }

    private PacketBuilder() {
    }

    /** The datagram {@code st} describes; advances the tester's PSN state in {@code ctx}. */
    static Outgoing build(CaseState ctx, Step st) {
        int op = Values.opcode(ctx.s.file(), st.line(), st.word(0, ""));
        int path = (int) ctx.num(st, "path", 0);
        boolean seq = Opcode.isData(op) || op == Opcode.READ_REQ;
        int ext = Math.max(0, Opcode.extensionLength(op));
        byte[] payload = new byte[0];
        int off = 0;
        CmMessage cm = null;
        int msgLen = 0;
        if (Opcode.isData(op)) {
            msgLen = (int) ctx.num(st, "len", 64);
            off = (int) ctx.num(st, "off", ctx.num(st, "seg", 0) * ctx.mtu);
            int plen = (int) ctx.num(st, "plen", Math.max(0, Math.min(ctx.mtu, (long) msgLen - off)));
            payload = Payloads.content(ctx, st, off, plen);
        } else if (Opcode.isParity(op)) {
            // REL-18, REL-20, REL-21: a group of segments of message "len" from "off" (or "seg"); payload their XOR
            // (PARITY) or their weighted sum in GF(2^8) (PARITY_Q; PARITY_R of repair "repair", default 2) (pat=/fill=)
            msgLen = (int) ctx.num(st, "len", 64);
            off = (int) ctx.num(st, "off", ctx.num(st, "seg", 0) * ctx.mtu);
            int plen = (int) ctx.num(st, "plen", Math.max(0, Math.min(ctx.mtu, (long) msgLen - off)));
            long count = parityCount(ctx, st, msgLen, off);
            payload = op == Opcode.PARITY ? Payloads.parity(ctx, st, msgLen, off, count, plen)
                    : op == Opcode.PARITY_Q ? Payloads.parityQ(ctx, st, msgLen, off, count, plen)
                    : Payloads.parityR((int) ctx.num(st, "repair", 2), ctx, st, msgLen, off, count, plen);
        } else if (Opcode.isCm(op)) {
            cm = cmMessage(ctx, st, op);
            payload = new byte[cm.encodedLength() - CM_FIXED];
            ext = CM_FIXED;
            if (op == Opcode.CM_REQ) {
                ctx.reqCid = cm.connectionId();
                ctx.reqIpsn = cm.initialPsn();
            }
        } else if (op == Opcode.ACK_BUNDLE) {
            // ACK-11: one entry per set bit of "epaths" (default: just "path"), payload length 48 each
            long epaths = ctx.num(st, "epaths", 1L << path);
            payload = new byte[(int) ctx.num(st, "plen", Long.bitCount(epaths) * AckBundleHeader.ENTRY_LENGTH)];
        } else if (st.arg("plen") != null) {
            payload = new byte[(int) ctx.num(st, "plen", 0)];
        }
        int natural = BaseHeader.LENGTH + ext + payload.length + Packet.CRC_LENGTH;
        int dglen = (int) ctx.num(st, "dglen", natural);
        byte[] buf = new byte[Math.max(dglen, natural) + 8 + AuthTester.TRAILER];
        MemorySegment seg = MemorySegment.ofArray(buf);
        baseHeader(ctx, st, seg, op, path, seq, off, msgLen, payload.length, cm);
        extension(ctx, st, seg, op, path, off, msgLen, payload.length, cm);
        if (Opcode.isData(op) || Opcode.isParity(op)) {
            System.arraycopy(payload, 0, buf, BaseHeader.LENGTH + ext, payload.length);
        }
        return damage(ctx, st, buf, seg, dglen, op, path, BaseHeader.LENGTH + ext, payload.length);
    }

    /** A PARITY's {@code count}: by default every segment from {@code off} to the end of the message. */
    private static long parityCount(CaseState ctx, Step st, int msgLen, int off) {
        return ctx.num(st, "count", Math.max(0, ((long) msgLen - off + ctx.mtu - 1) / ctx.mtu));
    }

    private static CmMessage cmMessage(CaseState ctx, Step st, int op) {
        int planes = (int) ctx.num(st, "planes", op == Opcode.CM_REQ || op == Opcode.CM_REP ? 1 : 0);
        List<byte[]> addrs = new ArrayList<>();
        for (int i = 0; i < planes; i++) {
            addrs.add(new byte[] {127, 0, 0, (byte) (i + 1)});
        }
        return new CmMessage(op, ctx.num(st, "cid", 1), (int) ctx.num(st, "sqpn", TesterConstants.TESTER_QPN),
                (int) ctx.num(st, "pqpn", 0), (int) ctx.num(st, "ipsn", 0), (int) ctx.num(st, "mtu", ctx.mtu),
                (int) ctx.num(st, "paths", 1), (int) ctx.num(st, "caps", 0),
                (int) ctx.num(st, "port", Packet.DEFAULT_UDP_PORT), (int) ctx.num(st, "reason", 0), addrs);
    }

    private static void baseHeader(CaseState ctx, Step st, MemorySegment seg, int op, int path, boolean seq,
                                   int off, int msgLen, int payloadLength, CmMessage cm) {
        long tb = ctx.s.testerPsn();
        int psnRel = 0;
        if (seq) {
            psnRel = (int) ctx.num(st, "psn", ctx.txNext.getOrDefault(path, 0));
            ctx.txNext.merge(path, psnRel + 1, (x, y) -> y - x > 0 ? y : x);
            if (st.arg("floor") != null) {
                ctx.txFloor.put(path, (int) ctx.num(st, "floor", 0));
            }
        }
        int flags = 0;
        if (Opcode.isData(op)) {
            boolean last = off + ctx.mtu >= msgLen;
            flags = (off == 0 ? BaseHeader.FLAG_FIRST : 0) | (last ? BaseHeader.FLAG_LAST | BaseHeader.FLAG_ACK_REQ : 0);
        } else if (op == Opcode.READ_REQ) {
            flags = BaseHeader.FLAG_FIRST | BaseHeader.FLAG_LAST | BaseHeader.FLAG_ACK_REQ;
        }
        int dqpn = (int) ctx.num(st, "dqpn", cm != null ? cm.peerQpn() : ctx.setup.qpn());
        new BaseHeader().wrap(seg, 0).version((int) ctx.num(st, "ver", Packet.VERSION)).opcode(op)
                .flags((int) ctx.num(st, "flags", flags))
                .destQpn(dqpn).pathId(cm != null ? 0 : path)
                .payloadLength(payloadLength)
                .psn(seq ? (int) tb + psnRel : (int) ctx.num(st, "psn", 0))
                .psnFloor(seq ? (int) tb + ctx.txFloor.getOrDefault(path, 0) : (int) ctx.num(st, "floor", 0))
                .srcQpn(cm != null ? cm.senderQpn() : (int) ctx.num(st, "sqpn", TesterConstants.TESTER_QPN))
                .timestampNs(ctx.num(st, "ts", ctx.now));
    }

    private static void extension(CaseState ctx, Step st, MemorySegment seg, int op, int path, int off, int msgLen,
                                  int payloadLength, CmMessage cm) {
        int x = BaseHeader.LENGTH;
        long ib = ctx.iutPsn;
        if (Opcode.isData(op)) {
            long base = ctx.num(st, "va", 0);
            new DataHeader().wrap(seg, x).msn((int) ctx.num(st, "msn", 0)).messageLength(msgLen).offset(off)
                    .rkey((int) ctx.num(st, "rkey", 0)).va(base == 0 ? 0 : base + off)
                    .rsn((int) ctx.num(st, "rsn", 0)).immediate((int) ctx.num(st, "imm", 0));
        } else if (Opcode.isParity(op)) {
            // WIRE-22: the data header's fields for the group's first segment, then the message's opcode and count
            long base = ctx.num(st, "va", 0);
            new ParityHeader().wrap(seg, x).msn((int) ctx.num(st, "msn", 0)).messageLength(msgLen).offset(off)
                    .rkey((int) ctx.num(st, "rkey", 0)).va(base == 0 ? 0 : base + off)
                    .rsn((int) ctx.num(st, "rsn", 0)).immediate((int) ctx.num(st, "imm", 0))
                    .op((int) ctx.num(st, "mop", Opcode.WRITE)).count((int) parityCount(ctx, st, msgLen, off))
                    .reserved((int) ctx.num(st, "resv", 0));
            if (op == Opcode.PARITY_R) { // REL-21: the repair index in the first reserved byte, resv the second
                new ParityHeader().wrap(seg, x).reserved((int) ctx.num(st, "resv", 0) & 0xff)
                        .repair((int) ctx.num(st, "repair", 2));
            }
        } else if (op == Opcode.READ_REQ) {
            new ReadRequestHeader().wrap(seg, x).msn((int) ctx.num(st, "msn", 0)).readLength((int) ctx.num(st, "len", 0))
                    .rkey((int) ctx.num(st, "rkey", 0)).reserved((int) ctx.num(st, "resv", 0))
                    .remoteVa(ctx.num(st, "va", 0)).sinkVa(ctx.num(st, "sink", 0));
        } else if (op == Opcode.ACK) {
            AckHeader a = new AckHeader().wrap(seg, x);
            int cum = (int) ctx.num(st, "cum", ctx.iutHigh.getOrDefault(path, -1));
            a.cumPsn((int) ib + cum).ceCount((int) ctx.num(st, "ce", 0)).reserved((int) ctx.num(st, "resv", 0))
                    .echoTimestampNs(ctx.num(st, "echo", ctx.iutTs.getOrDefault(path, 0L)))
                    .grantMbps((int) ctx.num(st, "grant", 0)).rxMsn((int) ctx.num(st, "rxmsn", 0));
            Arg sack = st.arg("sack");
            if (sack != null) {
                long[] w = new long[4];
                for (int bit : Payloads.sackBits(ctx, sack.value())) {
                    w[bit >> 6] |= 1L << (bit & 63);
                }
                for (int i = 0; i < 4; i++) {
                    a.sackWord(i, w[i]);
                }
            }
        } else if (op == Opcode.ACK_BUNDLE) {
            // each entry acknowledges everything the IUT sent on its path (or "cum"), echoing its latest timestamp
            AckBundleHeader a = new AckBundleHeader().wrap(seg, x).grantMbps((int) ctx.num(st, "grant", 0))
                    .rxMsn((int) ctx.num(st, "rxmsn", 0));
            long epaths = ctx.num(st, "epaths", 1L << path);
            int e = 0;
            for (int p = 0; p < 64 && (e + 1) * AckBundleHeader.ENTRY_LENGTH <= payloadLength; p++) {
                if ((epaths >>> p & 1) != 0) {
                    a.pathId(e, p).ceCount(e, (int) ctx.num(st, "ce", 0))
                            .cumPsn(e, (int) ib + (int) ctx.num(st, "cum", ctx.iutHigh.getOrDefault(p, -1)))
                            .echoTimestampNs(e, ctx.num(st, "echo", ctx.iutTs.getOrDefault(p, 0L)));
                    e++;
                }
            }
        } else if (op == Opcode.NAK) {
            int code = (int) ctx.num(st, "code", 0);
            long nakBase = code == NakHeader.CODE_MISSING ? 0 : ib; // REL-16: a MISSING NAK names no PSN
            new NakHeader().wrap(seg, x).msn((int) ctx.num(st, "msn", 0)).code(code)
                    .reserved((int) ctx.num(st, "resv", 0)).nakPsn((int) nakBase + (int) ctx.num(st, "nakpsn", 0))
                    .offset((int) ctx.num(st, "off", 0));
        } else if (op == Opcode.PROBE || op == Opcode.PROBE_REPLY) {
            long[] probe = ctx.iutProbe.getOrDefault(path, new long[2]);
            new ProbeHeader().wrap(seg, x).probeId(ctx.num(st, "id", op == Opcode.PROBE ? 1 : probe[0]))
                    .echoTimestampNs(ctx.num(st, "echo", op == Opcode.PROBE ? 0 : probe[1]));
        } else if (cm != null) {
            cm.emit(seg, x);
            if (st.arg("family") != null) {
                seg.set(ValueLayout.JAVA_BYTE, x + CM_FIXED, (byte) ctx.num(st, "family", 4));
            }
        }
    }

    /**
     * Byte overrides, the AUTH seal on an authenticated connection, the CRC (then spoiled with {@code crc=bad}),
     * truncation; and how to deliver it.
     */
    private static Outgoing damage(CaseState ctx, Step st, byte[] buf, MemorySegment seg, int dglen, int op,
                                   int path, int headers, int payloadLength) {
        Arg setb = st.arg("setb");
        if (setb != null) {
            for (String pair : setb.value().split(",")) {
                String[] kv = pair.split(":");
                if (kv.length != 2) {
                    throw ctx.err("setb wants OFFSET:VALUE[,OFFSET:VALUE]");
                }
                int at = (int) ctx.eval(kv[0], "setb");
                if (at < 0 || at >= dglen - Packet.CRC_LENGTH) {
                    throw ctx.err("setb offset " + at + " outside the datagram before its CRC (" + dglen + " bytes)");
                }
                buf[at] = (byte) ctx.eval(kv[1], "setb");
            }
        }
        String how = st.value("auth", Opcode.isCm(op) && !ctx.cmSeals() ? "none" : "on");
        if (!Set.of("on", "none", "badtag", "wrongkey", "flipphase").contains(how)) {
            throw ctx.err("auth= takes on, none, badtag, wrongkey or flipphase, not " + how);
        }
        long generation = ctx.num(st, "kgen", 0);
        if (generation < 0 || generation > 1000) {
            throw ctx.err("kgen= is a key generation in 0..1000, not " + generation);
        }
        if (Opcode.isCm(op) && !how.equals("none")) { // AUTH-12: sealed with the CM key like a peer with the PSK
            int sealed = AuthTester.sealCm(buf, headers + payloadLength, how, ctx.num(st, "aseq", ctx.cmCounter++));
            if (st.arg("dglen") == null) {
                dglen = sealed + Packet.CRC_LENGTH;
            }
        } else if (ctx.auth != null && !Opcode.isCm(op) && !how.equals("none")) { // AUTH-2: sealed like a peer
            int sealed = ctx.auth.seal(buf, headers, headers + payloadLength, path, how, ctx.num(st, "aseq", -1),
                    (int) generation);
            if (st.arg("dglen") == null) {
                dglen = sealed + Packet.CRC_LENGTH;
            }
        }
        if (dglen >= Packet.CRC_LENGTH) {
            new Packet().seal(seg, dglen - Packet.CRC_LENGTH);
        }
        int length = Math.max(0, dglen);
        if ("bad".equals(st.value("crc", null)) && length > 0) {
            buf[length - 1] ^= 0x5A;
        }
        boolean trimmed = ctx.num(st, "trimmed", 0) != 0;
        length = (int) Math.min(length, ctx.num(st, "cut", trimmed ? Packet.TRIMMED_LENGTH : length));
        return new Outgoing(Arrays.copyOf(buf, length), length, (int) ctx.num(st, "ecn", 2),
                (int) ctx.num(st, "repeat", 1), "stranger".equals(st.value("from", null)), trimmed);
    }
}
