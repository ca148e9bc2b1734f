package io.metaroce.fuzz;

import io.metaroce.core.wire.BaseHeader;
import io.metaroce.core.wire.Opcode;
import io.metaroce.core.wire.Packet;

import java.lang.foreign.MemorySegment;

/** Helpers that turn fuzzer bytes into datagrams that get past the CRC, so that the fuzzer explores what follows. */
final class Datagrams {
    private static final int[] OPCODES = {Opcode.WRITE, Opcode.WRITE_IMM, Opcode.SEND, Opcode.SEND_IMM,
            Opcode.READ_REQ, Opcode.READ_RESP, Opcode.ACK, Opcode.NAK, Opcode.PROBE, Opcode.PROBE_REPLY,
            Opcode.CM_REQ, Opcode.CM_REP, Opcode.CM_RTU, Opcode.CM_DREQ, Opcode.CM_REJ};

    private Datagrams() {
    }

    /**
     * {@code raw} made plausible: version 1, a defined opcode picked by byte 1, the payload length that makes the
     * length consistent (when it fits in 16 bits), then sealed with a valid CRC. Returns a new array.
     */
    static byte[] plausible(byte[] raw, int minLength) {
        int opcode = OPCODES[Math.floorMod(raw.length > 1 ? raw[1] : 0, OPCODES.length)];
        int fixed = BaseHeader.LENGTH + Opcode.extensionLength(opcode) + Packet.CRC_LENGTH;
        byte[] d = java.util.Arrays.copyOf(raw, Math.max(Math.max(raw.length, fixed), minLength));
        MemorySegment seg = MemorySegment.ofArray(d);
        BaseHeader b = new BaseHeader().wrap(seg, 0);
        b.version(Packet.VERSION).opcode(opcode);
        int payload = d.length - fixed;
        if (payload <= 0xFFFF) {
            b.payloadLength(payload);
        }
        new Packet().seal(seg, d.length - Packet.CRC_LENGTH);
        return d;
    }

    /** {@code raw} with a valid CRC trailer only (every other field as the fuzzer chose). */
    static byte[] sealed(byte[] raw) {
        byte[] d = raw.clone();
        if (d.length >= Packet.MIN_LENGTH) {
            new Packet().seal(MemorySegment.ofArray(d), d.length - Packet.CRC_LENGTH);
        }
        return d;
    }
}
