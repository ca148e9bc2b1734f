package io.metaroce.net.cm;

import io.metaroce.core.auth.CmAuth;
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
    /** The longest CM datagram: header, extension, 16 plane entries, AUTH trailer (AUTH-12), CRC. */
    public static final int MAX_LENGTH = BaseHeader.LENGTH + CmHeader.FIXED_LENGTH
            + CmHeader.MAX_PLANES * CmHeader.PLANE_ENTRY_LENGTH + CmAuth.TRAILER_LENGTH + Packet.CRC_LENGTH;

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

    /**
     * WIRE-8 for a CM datagram: true when {@code datagram[0, length)} may be read further; otherwise counts why it
     * was dropped (a datagram with the AUTH trailer passes: AUTH-12).
     */
    boolean wellFormed(MemorySegment datagram, int length) {
        int rc = packet.check(datagram, length);
        if (rc != Packet.OK) {
            count(switch (rc) {
                case Packet.TRUNCATED -> CmCounter.CM_DROP_TRUNCATED;
                case Packet.BAD_CRC -> CmCounter.CM_DROP_BAD_CRC;
                case Packet.BAD_VERSION -> CmCounter.CM_DROP_BAD_VERSION;
                case Packet.BAD_OPCODE -> CmCounter.CM_DROP_BAD_OPCODE;
                default -> CmCounter.CM_DROP_BAD_LENGTH;
            });
            return false;
        }
        if (!Opcode.isCm(base.wrap(datagram, 0).opcode())) {
            count(CmCounter.CM_DROP_BAD_OPCODE);
            return false;
        }
        return true;
    }

    /**
     * The message of a datagram that passed {@link #wellFormed} (an AUTH trailer is not part of it), or null
     * after counting it {@code CM_DROP_MALFORMED} (CM-11); {@code count} false: null without counting.
     */
    CmMessage parse(MemorySegment datagram, boolean count) {
        base.wrap(datagram, 0);
        CmMessage m;
        try {
            m = CmMessage.parse(base.opcode(), datagram, BaseHeader.LENGTH, base.payloadLength());
        } catch (MalformedPacketException | IllegalArgumentException e) {
            m = null;
        }
        if (m != null && (m.opcode() == Opcode.CM_REQ || m.opcode() == Opcode.CM_REP)
                && (m.mtu() < MIN_MTU || m.mtu() > MAX_MTU)) {
            m = null;
        }
        if (m == null && count) {
            count(CmCounter.CM_DROP_MALFORMED);
        }
        return m;
    }

    /**
     * Writes {@code m} as a datagram with its CRC into {@code out} (CM-2: unsequenced, path 0, PSN 0, floor 0,
     * flags 0, source QPN = sender QPN, destination QPN = peer QPN, payload length = 18 x planes), sealed by
     * {@code auth} with CM message counter {@code counter} unless {@code auth} is null (AUTH-12); returns its
     * length.
     */
    int encode(CmMessage m, long nowNs, MemorySegment out, CmAuth auth, long counter) {
        int ext = m.encodedLength();
        base.wrap(out, 0).version(Packet.VERSION).opcode(m.opcode()).flags(0).destQpn(m.peerQpn()).pathId(0)
                .payloadLength(ext - CmHeader.FIXED_LENGTH).psn(0).psnFloor(0).srcQpn(m.senderQpn())
                .timestampNs(nowNs);
        m.emit(out, BaseHeader.LENGTH);
        int len = BaseHeader.LENGTH + ext;
        if (auth != null) {
            len = auth.seal(out, len, counter);
        }
        return packet.seal(out, len);
    }

    private void count(CmCounter c) {
        counters[c.ordinal()]++;
    }
}
