package io.metaroce.core.wire;

import java.lang.foreign.MemorySegment;
import java.util.Arrays;
import java.util.List;

/**
 * A connection-manager message (CM_REQ, CM_REP, CM_RTU, CM_DREQ, CM_REJ): what two endpoints exchange to
 * set up a reliable connection (spec CM-*). {@link #parse} validates; {@link #emit} writes the extension and
 * the plane entries after a base header.
 *
 * @param connectionId initiator-chosen id that makes retried messages idempotent
 * @param senderQpn    the QP number of the sender of this message
 * @param peerQpn      the receiver's QP number (0 in a CM_REQ)
 * @param initialPsn   the first PSN the sender will use on every path
 * @param mtu          payload bytes per data packet the sender proposes (REQ) or accepts (REP)
 * @param paths        number of paths the sender proposes (REQ) or accepts (REP), 1..256
 * @param capabilities capability bits ({@link #CAP_AUTH}, {@link #CAP_ENCRYPT}: spec AUTH-9; {@link #CAP_MISSING_NAK}:
 *                     CM-13)
 * @param udpPort      the UDP port the sender receives on
 * @param reason       reject reason (CM_REJ) or 0
 * @param planes       the sender's address per plane: 4 bytes (IPv4) or 16 bytes (IPv6) each
 */
public record CmMessage(int opcode, long connectionId, int senderQpn, int peerQpn, int initialPsn, int mtu,
                        int paths, int capabilities, int udpPort, int reason, List<byte[]> planes) {

    /** Capability bit: per-packet authentication (reserved for a later version of the wire format). */
    public static final int CAP_AUTH = 1;
    /** Capability bit 1: payloads encrypted, only with {@link #CAP_AUTH} (spec AUTH-9). */
    public static final int CAP_ENCRYPT = 2;
    /**
     * Capability bit 2: the sender understands NAK code MISSING (spec REL-16, CM-13), so its peer may send them; a
     * version before REL-16 leaves it 0 and would take code 7 for an unknown NAK.
     */
    public static final int CAP_MISSING_NAK = 4;

    public CmMessage {
        if (!Opcode.isCm(opcode)) {
            throw new IllegalArgumentException("not a CM opcode: " + opcode);
        }
        if (planes.size() > CmHeader.MAX_PLANES) {
            throw new IllegalArgumentException("at most " + CmHeader.MAX_PLANES + " planes, got " + planes.size());
        }
        for (byte[] a : planes) {
            if (a.length != 4 && a.length != 16) {
                throw new IllegalArgumentException("plane address must be 4 or 16 bytes, got " + a.length);
            }
        }
        planes = planes.stream().map(byte[]::clone).toList();
    }

    /** Bytes of the extension and plane entries (what the base header's payload length does not count is 32). */
    public int encodedLength() {
        return CmHeader.FIXED_LENGTH + planes.size() * CmHeader.PLANE_ENTRY_LENGTH;
    }

    /** Writes the CM extension at {@code off}; returns the number of bytes written. */
    public int emit(MemorySegment seg, long off) {
        Bytes.i64(seg, off + CmHeader.CONNECTION_ID, connectionId);
        Bytes.i32(seg, off + CmHeader.SENDER_QPN, senderQpn);
        Bytes.i32(seg, off + CmHeader.PEER_QPN, peerQpn);
        Bytes.i32(seg, off + CmHeader.INITIAL_PSN, initialPsn);
        Bytes.u16(seg, off + CmHeader.MTU, mtu);
        Bytes.u16(seg, off + CmHeader.PATHS, paths);
        Bytes.i32(seg, off + CmHeader.CAPABILITIES, capabilities);
        Bytes.u16(seg, off + CmHeader.UDP_PORT, udpPort);
        Bytes.u8(seg, off + CmHeader.PLANE_COUNT, planes.size());
        Bytes.u8(seg, off + CmHeader.REASON, reason);
        long p = off + CmHeader.FIXED_LENGTH;
        for (byte[] a : planes) {
            Bytes.u8(seg, p, a.length == 4 ? 4 : 6);
            Bytes.u8(seg, p + 1, 0);
            MemorySegment.copy(MemorySegment.ofArray(new byte[16]), 0, seg, p + 2, 16);
            MemorySegment.copy(MemorySegment.ofArray(a), 0, seg, p + 2, a.length);
            p += CmHeader.PLANE_ENTRY_LENGTH;
        }
        return encodedLength();
    }

    /**
     * Parses the extension at {@code off} of a packet already checked by {@link Packet#check}; {@code
     * entryBytes} is the base header's payload length. Throws {@link MalformedPacketException} on a bad field.
     */
    public static CmMessage parse(int opcode, MemorySegment seg, long off, int entryBytes) {
        int count = Bytes.u8(seg, off + CmHeader.PLANE_COUNT);
        if (count > CmHeader.MAX_PLANES || entryBytes != count * CmHeader.PLANE_ENTRY_LENGTH) {
            throw new MalformedPacketException("CM plane count " + count + " does not match " + entryBytes
                    + " entry bytes");
        }
        int paths = Bytes.u16(seg, off + CmHeader.PATHS);
        if (opcode == Opcode.CM_REQ || opcode == Opcode.CM_REP) {
            if (paths < 1 || paths > 256) {
                throw new MalformedPacketException("CM paths out of range 1..256: " + paths);
            }
            if (count < 1) {
                throw new MalformedPacketException("CM " + Opcode.name(opcode) + " lists no plane");
            }
        }
        byte[][] planes = new byte[count][];
        long p = off + CmHeader.FIXED_LENGTH;
        for (int i = 0; i < count; i++) {
            int family = Bytes.u8(seg, p);
            int n = switch (family) {
                case 4 -> 4;
                case 6 -> 16;
                default -> throw new MalformedPacketException("CM plane " + i + ": bad address family " + family);
            };
            byte[] a = new byte[n];
            MemorySegment.copy(seg, p + 2, MemorySegment.ofArray(a), 0, n);
            planes[i] = a;
            p += CmHeader.PLANE_ENTRY_LENGTH;
        }
        return new CmMessage(opcode, Bytes.i64(seg, off + CmHeader.CONNECTION_ID),
                Bytes.i32(seg, off + CmHeader.SENDER_QPN), Bytes.i32(seg, off + CmHeader.PEER_QPN),
                Bytes.i32(seg, off + CmHeader.INITIAL_PSN), Bytes.u16(seg, off + CmHeader.MTU), paths,
                Bytes.i32(seg, off + CmHeader.CAPABILITIES), Bytes.u16(seg, off + CmHeader.UDP_PORT),
                Bytes.u8(seg, off + CmHeader.REASON), Arrays.asList(planes));
    }

    @Override
    public boolean equals(Object o) {
        if (!(o instanceof CmMessage m)) {
            return false;
        }
        if (planes.size() != m.planes.size()) {
            return false;
        }
        for (int i = 0; i < planes.size(); i++) {
            if (!Arrays.equals(planes.get(i), m.planes.get(i))) {
                return false;
            }
        }
        return opcode == m.opcode && connectionId == m.connectionId && senderQpn == m.senderQpn
                && peerQpn == m.peerQpn && initialPsn == m.initialPsn && mtu == m.mtu && paths == m.paths
                && capabilities == m.capabilities && udpPort == m.udpPort && reason == m.reason;
    }

    @Override
    public int hashCode() {
        int h = Long.hashCode(connectionId) * 31 + senderQpn;
        for (byte[] a : planes) {
            h = h * 31 + Arrays.hashCode(a);
        }
        return h;
    }
}
