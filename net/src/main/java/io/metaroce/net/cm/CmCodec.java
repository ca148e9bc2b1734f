package io.metaroce.net.cm;

import io.metaroce.core.wire.BaseHeader;
import io.metaroce.core.wire.CmHeader;
import io.metaroce.core.wire.CmMessage;
import io.metaroce.core.wire.MalformedPacketException;
import io.metaroce.core.wire.Opcode;
import io.metaroce.core.wire.Packet;

import java.lang.foreign.MemorySegment;

/**
 * CM datagrams to and from {@link CmMessage}s: WIRE-8 first (CRC before any field is trusted), then the CM
 * extension (WIRE-7, CM-11); every drop is counted under exactly one {@link CmCounter}. Not thread safe.
 */
public final class CmCodec {
    /** CM-11: the MTU range a CM_REQ or CM_REP must carry. */
    public static final int MIN_MTU = 64;
    public static final int MAX_MTU = 65_000;
    /** The longest CM datagram: header, extension, 16 plane entries, trailer. */
    public static final int MAX_LENGTH = BaseHeader.LENGTH + CmHeader.FIXED_LENGTH
            + CmHeader.MAX_PLANES * CmHeader.PLANE_ENTRY_LENGTH + Packet.CRC_LENGTH;

    private final Packet packet = new Packet();
    private final BaseHeader base = new BaseHeader();
    private final long[] counters;

    CmCodec(long[] counters) {
        this.counters = counters;
    }

    /** Whether {@code datagram} carries a CM opcode: it then belongs to the CM, not the engine (CM-15). */
    public static boolean isCm(MemorySegment datagram, int length) {
        return length > BaseHeader.OPCODE
                && Opcode.isCm(datagram.get(java.lang.foreign.ValueLayout.JAVA_BYTE, BaseHeader.OPCODE) & 0xFF);
    }

    /** The message in {@code datagram}, or null after counting why it was dropped. */
    CmMessage decode(MemorySegment datagram, int length) {
        int rc = packet.check(datagram, length);
        if (rc != Packet.OK) {
            count(switch (rc) {
                case Packet.TRUNCATED -> CmCounter.CM_DROP_TRUNCATED;
                case Packet.BAD_CRC -> CmCounter.CM_DROP_BAD_CRC;
                case Packet.BAD_VERSION -> CmCounter.CM_DROP_BAD_VERSION;
                case Packet.BAD_OPCODE -> CmCounter.CM_DROP_BAD_OPCODE;
                default -> CmCounter.CM_DROP_BAD_LENGTH;
            });
            return null;
        }
        base.wrap(datagram, 0);
        if (!Opcode.isCm(base.opcode())) {
            count(CmCounter.CM_DROP_BAD_OPCODE);
            return null;
        }
        CmMessage m;
        try {
            m = CmMessage.parse(base.opcode(), datagram, BaseHeader.LENGTH, base.payloadLength());
        } catch (MalformedPacketException | IllegalArgumentException e) {
            count(CmCounter.CM_DROP_MALFORMED);
            return null;
        }
        if ((m.opcode() == Opcode.CM_REQ || m.opcode() == Opcode.CM_REP) && (m.mtu() < MIN_MTU || m.mtu() > MAX_MTU)) {
            count(CmCounter.CM_DROP_MALFORMED);
            return null;
        }
        return m;
    }

    /**
     * Writes {@code m} as a sealed datagram into {@code out} (CM-2: unsequenced, path 0, PSN 0, floor 0, flags 0,
     * source QPN = sender QPN, destination QPN = peer QPN, payload length = 18 x planes); returns its length.
     */
    int encode(CmMessage m, long nowNs, MemorySegment out) {
        int ext = m.encodedLength();
        base.wrap(out, 0).version(Packet.VERSION).opcode(m.opcode()).flags(0).destQpn(m.peerQpn()).pathId(0)
                .payloadLength(ext - CmHeader.FIXED_LENGTH).psn(0).psnFloor(0).srcQpn(m.senderQpn())
                .timestampNs(nowNs);
        m.emit(out, BaseHeader.LENGTH);
        return packet.seal(out, BaseHeader.LENGTH + ext);
    }

    private void count(CmCounter c) {
        counters[c.ordinal()]++;
    }
}
