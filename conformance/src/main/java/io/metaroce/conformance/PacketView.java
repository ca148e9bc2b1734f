package io.metaroce.conformance;

import io.metaroce.core.wire.AckBundleHeader;
import io.metaroce.core.wire.AckHeader;
import io.metaroce.core.wire.BaseHeader;
import io.metaroce.core.wire.CmHeader;
import io.metaroce.core.wire.DataHeader;
import io.metaroce.core.wire.NakHeader;
import io.metaroce.core.wire.Opcode;
import io.metaroce.core.wire.Packet;
import io.metaroce.core.wire.ParityHeader;
import io.metaroce.core.wire.ProbeHeader;
import io.metaroce.core.wire.ReadRequestHeader;

import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A datagram decoded field by field, for matching and for reports. PSN fields are relative to the initial PSN
 * of the direction they describe: data PSN and floor to the sender's (in unsequenced packets they are raw), an ACK's cum PSN and a NAK's PSN to the
 * data sender's (the ACK's receiver).
 */
public final class PacketView {
    private final Map<String, Long> fields = new LinkedHashMap<>();
    private final List<Integer> sackBits = new ArrayList<>();
    private final byte[] payload;
    private final int opcode;
    private final String check;

    /**
     * Decodes {@code bytes}; {@code senderBase} is the initial PSN of the packet sender's data direction and
     * {@code receiverBase} that of the other direction.
     */
    public PacketView(byte[] bytes, long senderBase, long receiverBase) {
        MemorySegment seg = MemorySegment.ofArray(bytes);
        int r = new Packet().check(seg, bytes.length);
        check = Packet.checkName(r);
        fields.put("dglen", (long) bytes.length);
        if (bytes.length < BaseHeader.LENGTH) {
            opcode = -1;
            payload = new byte[0];
            return;
        }
        BaseHeader b = new BaseHeader().wrap(seg, 0);
        opcode = b.opcode();
        fields.put("ver", (long) b.version());
        fields.put("op", (long) opcode);
        fields.put("flags", (long) b.flags());
        fields.put("dqpn", b.destQpn() & 0xFFFF_FFFFL);
        fields.put("path", (long) b.pathId());
        fields.put("plen", (long) b.payloadLength());
        boolean seq = Opcode.isData(opcode) || opcode == Opcode.READ_REQ;
        // PSN fields of unsequenced packets are shown as they are (WIRE-16: PSN 0, floor ignored)
        fields.put("psn", seq ? (long) (b.psn() - (int) senderBase) : b.psn() & 0xFFFF_FFFFL);
        fields.put("floor", seq ? (long) (b.psnFloor() - (int) senderBase) : b.psnFloor() & 0xFFFF_FFFFL);
        if ((opcode == Opcode.ACK || opcode == Opcode.ACK_BUNDLE) && (b.flags() & BaseHeader.FLAG_ACK_HOLD) != 0) {
            fields.put("hold", (long) (b.psnFloor() >>> 16)); // WIRE-21: newest hold, us
            fields.put("holdmax", (long) (b.psnFloor() & 0xFFFF)); // longest hold, us
        }
        fields.put("sqpn", b.srcQpn() & 0xFFFF_FFFFL);
        fields.put("ts", b.timestampNs());
        int ext = Opcode.extensionLength(opcode);
        if (r != Packet.OK || ext < 0) {
            payload = new byte[0];
            return;
        }
        int off = BaseHeader.LENGTH;
        if (Opcode.isData(opcode)) {
            DataHeader d = new DataHeader().wrap(seg, off);
            fields.put("msn", d.msn() & 0xFFFF_FFFFL);
            fields.put("len", d.messageLength() & 0xFFFF_FFFFL);
            fields.put("off", d.offset() & 0xFFFF_FFFFL);
            fields.put("rkey", d.rkey() & 0xFFFF_FFFFL);
            fields.put("va", d.va());
            fields.put("rsn", d.rsn() & 0xFFFF_FFFFL);
            fields.put("imm", d.immediate() & 0xFFFF_FFFFL);
        } else if (Opcode.isParity(opcode)) {
            // REL-18, REL-20, WIRE-22: the data header's fields of the group's first segment, the message's opcode, count
            ParityHeader q = new ParityHeader().wrap(seg, off);
            fields.put("msn", q.msn() & 0xFFFF_FFFFL);
            fields.put("len", q.messageLength() & 0xFFFF_FFFFL);
            fields.put("off", q.offset() & 0xFFFF_FFFFL);
            fields.put("rkey", q.rkey() & 0xFFFF_FFFFL);
            fields.put("va", q.va());
            fields.put("rsn", q.rsn() & 0xFFFF_FFFFL);
            fields.put("imm", q.immediate() & 0xFFFF_FFFFL);
            fields.put("mop", (long) q.op());
            fields.put("count", (long) q.count());
            if (opcode == Opcode.PARITY_R) { // REL-21: the repair index, then one reserved byte
                fields.put("repair", (long) q.repair());
                fields.put("resv", (long) (q.reserved() & 0xff));
            } else {
                fields.put("resv", (long) q.reserved());
            }
        } else if (opcode == Opcode.READ_REQ) {
            ReadRequestHeader q = new ReadRequestHeader().wrap(seg, off);
            fields.put("msn", q.msn() & 0xFFFF_FFFFL);
            fields.put("len", q.readLength() & 0xFFFF_FFFFL);
            fields.put("rkey", q.rkey() & 0xFFFF_FFFFL);
            fields.put("resv", q.reserved() & 0xFFFF_FFFFL);
            fields.put("va", q.remoteVa());
            fields.put("sink", q.sinkVa());
        } else if (opcode == Opcode.ACK) {
            AckHeader a = new AckHeader().wrap(seg, off);
            fields.put("cum", (long) (a.cumPsn() - (int) receiverBase));
            fields.put("ce", (long) a.ceCount());
            fields.put("resv", (long) a.reserved());
            fields.put("echo", a.echoTimestampNs());
            fields.put("grant", a.grantMbps() & 0xFFFF_FFFFL);
            fields.put("rxmsn", a.rxMsn() & 0xFFFF_FFFFL);
            for (int i = 0; i < AckHeader.SACK_BITS; i++) {
                if ((a.sackWord(i >> 6) >>> (i & 63) & 1) != 0) {
                    sackBits.add(i);
                }
            }
        } else if (opcode == Opcode.ACK_BUNDLE) {
            // ACK-11: the bundle's own fields, its entry count and path set, and its first entry's ACK fields
            AckBundleHeader a = new AckBundleHeader().wrap(seg, off);
            int n = Math.max(0, AckBundleHeader.entries(b.payloadLength()));
            fields.put("grant", a.grantMbps() & 0xFFFF_FFFFL);
            fields.put("rxmsn", a.rxMsn() & 0xFFFF_FFFFL);
            fields.put("entries", (long) n);
            long epaths = 0;
            for (int i = 0; i < n; i++) {
                epaths |= a.pathId(i) < 64 ? 1L << a.pathId(i) : 0;
            }
            fields.put("epaths", epaths);
            if (n > 0) {
                fields.put("cum", (long) (a.cumPsn(0) - (int) receiverBase));
                fields.put("ce", (long) a.ceCount(0));
                fields.put("echo", a.echoTimestampNs(0));
                for (int i = 0; i < AckHeader.SACK_BITS; i++) {
                    if ((a.sackWord(0, i >> 6) >>> (i & 63) & 1) != 0) {
                        sackBits.add(i);
                    }
                }
            }
        } else if (opcode == Opcode.NAK) {
            NakHeader n = new NakHeader().wrap(seg, off);
            fields.put("msn", n.msn() & 0xFFFF_FFFFL);
            fields.put("code", (long) n.code());
            fields.put("resv", (long) n.reserved());
            // REL-16: a MISSING NAK names no PSN; its field is shown raw (0 when correct)
            fields.put("nakpsn", (long) (n.code() == NakHeader.CODE_MISSING ? n.nakPsn() : n.nakPsn() - (int) receiverBase));
            fields.put("off", n.offset() & 0xFFFF_FFFFL);
        } else if (opcode == Opcode.PROBE || opcode == Opcode.PROBE_REPLY) {
            ProbeHeader p = new ProbeHeader().wrap(seg, off);
            fields.put("id", p.probeId());
            fields.put("echo", p.echoTimestampNs());
        } else if (Opcode.isCm(opcode)) {
            java.nio.ByteBuffer bb = java.nio.ByteBuffer.wrap(bytes);
            fields.put("cid", bb.getLong(off + CmHeader.CONNECTION_ID));
            fields.put("cqpn", bb.getInt(off + CmHeader.SENDER_QPN) & 0xFFFF_FFFFL);
            fields.put("pqpn", bb.getInt(off + CmHeader.PEER_QPN) & 0xFFFF_FFFFL);
            fields.put("ipsn", bb.getInt(off + CmHeader.INITIAL_PSN) & 0xFFFF_FFFFL);
            fields.put("mtu", (long) (bb.getShort(off + CmHeader.MTU) & 0xFFFF));
            fields.put("paths", (long) (bb.getShort(off + CmHeader.PATHS) & 0xFFFF));
            fields.put("caps", bb.getInt(off + CmHeader.CAPABILITIES) & 0xFFFF_FFFFL);
            fields.put("port", (long) (bb.getShort(off + CmHeader.UDP_PORT) & 0xFFFF));
            fields.put("planes", (long) (bb.get(off + CmHeader.PLANE_COUNT) & 0xFF));
            fields.put("reason", (long) (bb.get(off + CmHeader.REASON) & 0xFF));
        }
        int pl = b.payloadLength();
        payload = new byte[Opcode.isCm(opcode) ? 0 : pl];
        MemorySegment.copy(seg, off + ext, MemorySegment.ofArray(payload), 0, payload.length);
    }

    /** The opcode, or -1 for a datagram shorter than a base header. */
    public int opcode() {
        return opcode;
    }

    /** The WIRE-8 check result name (OK, BAD_CRC, ...). */
    public String check() {
        return check;
    }

    /** Decoded fields in wire order (absent fields are not in the map). */
    public Map<String, Long> fields() {
        return fields;
    }

    /** The set SACK bits of an ACK (bit b means PSN cum + 1 + b). */
    public List<Integer> sackBits() {
        return sackBits;
    }

    /** The payload bytes. */
    public byte[] payload() {
        return payload;
    }

    /** Whether the opcode takes a PSN (data opcodes and READ_REQ). */
    public boolean sequenced() {
        return Opcode.isData(opcode) || opcode == Opcode.READ_REQ;
    }

    /** A field's value rendered for people: opcode and flag names, hex keys. */
    public static String render(String key, long v) {
        return switch (key) {
            case "op", "mop" -> Opcode.name((int) v);
            case "flags" -> flagNames((int) v);
            case "code" -> NakHeader.codeName((int) v);
            case "dqpn", "sqpn", "rkey", "va", "sink" -> "0x" + Long.toHexString(v);
            default -> Long.toString(v);
        };
    }

    /** Flag names joined by '|', or 0. */
    public static String flagNames(int f) {
        StringBuilder sb = new StringBuilder();
        String[] names = {"LAST", "FIRST", "RETRANSMIT", "ACK_REQ", "AUTH", "ENCRYPTED", "KEY_PHASE", "ACK_HOLD"};
        for (int i = 0; i < 16; i++) {
            if ((f >> i & 1) != 0) {
                if (!sb.isEmpty()) {
                    sb.append('|');
                }
                sb.append(i < names.length ? names[i] : "0x" + Integer.toHexString(1 << i));
            }
        }
        return sb.isEmpty() ? "0" : sb.toString();
    }

    /** One line: opcode then every field. */
    public String summary() {
        StringBuilder sb = new StringBuilder(opcode < 0 ? "RUNT" : Opcode.name(opcode));
        if (!check.equals("OK")) {
            sb.append(" [").append(check).append(']');
        }
        for (Map.Entry<String, Long> e : fields.entrySet()) {
            if (e.getKey().equals("op") || e.getKey().equals("ver") && e.getValue() == 1) {
                continue;
            }
            sb.append(' ').append(e.getKey()).append('=').append(render(e.getKey(), e.getValue()));
        }
        if (opcode == Opcode.ACK || opcode == Opcode.ACK_BUNDLE) {
            sb.append(" sack=").append(sackBits.isEmpty() ? "none" : sackBits.toString().replace(" ", ""));
        }
        return sb.toString();
    }
}
