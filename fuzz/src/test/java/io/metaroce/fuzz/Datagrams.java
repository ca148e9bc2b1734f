package io.metaroce.fuzz;

import io.metaroce.core.wire.BaseHeader;
import io.metaroce.core.wire.Opcode;
import io.metaroce.core.wire.Packet;
import io.metaroce.core.wire.ParityHeader;

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
        return plausible(raw, minLength, OPCODES[Math.floorMod(raw.length > 1 ? raw[1] : 0, OPCODES.length)]);
    }

    /**
     * {@code raw} made plausible as {@link #plausible(byte[], int)} does, with opcode {@code opcode}. A PARITY_R
     * (REL-21) gets a repair index in 2..15 seven times in eight (derived from the fuzzer's byte there); else the
     * fuzzer's byte stays, mostly outside (0, 1, 16 and up: malformed).
     */
    static byte[] plausible(byte[] raw, int minLength, int opcode) {
        int fixed = BaseHeader.LENGTH + Opcode.extensionLength(opcode) + Packet.CRC_LENGTH;
        byte[] d = java.util.Arrays.copyOf(raw, Math.max(Math.max(raw.length, fixed), minLength));
        MemorySegment seg = MemorySegment.ofArray(d);
        BaseHeader b = new BaseHeader().wrap(seg, 0);
        b.version(Packet.VERSION).opcode(opcode);
        if (opcode == Opcode.PARITY_R) {
            int at = BaseHeader.LENGTH + ParityHeader.REPAIR;
            int v = d[at] & 0xff;
            d[at] = (byte) (v % 8 != 0 ? 2 + v % (ParityHeader.MAX_REPAIR - 1) : v);
        }
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

    /**
     * A forgery of {@code valid} as a mutation fuzzer that knows the CRC would make it: a new length, one to eight
     * bytes changed by xor at chosen offsets, the CRC sealed again; null when that gives back {@code valid} itself.
     */
    static byte[] mutated(byte[] valid, com.code_intelligence.jazzer.api.FuzzedDataProvider fdp) {
        byte[] d = java.util.Arrays.copyOf(valid, fdp.consumeInt(20, valid.length + 32));
        int changes = fdp.consumeInt(1, 8);
        for (int i = 0; i < changes && fdp.remainingBytes() > 0; i++) {
            int at = fdp.consumeInt(0, Math.max(0, d.length - 5));
            d[at] ^= fdp.consumeByte();
        }
        d = sealed(d);
        return java.util.Arrays.equals(d, valid) ? null : d;
    }
}
