package io.metaroce.core.wire;

import java.lang.foreign.MemorySegment;

/**
 * The 36-byte extension header of a PARITY packet (spec WIRE-22, REL-18): the first 32 bytes say what a data packet
 * of the group's first segment would say (its message, offset and placement), then the message's opcode and how many
 * consecutive segments the parity covers. The payload is the XOR of those segments, each padded with zeros to the
 * payload's length (that of the group's first segment). A PARITY_R (REL-21) says in its first reserved byte which
 * repair of the group it is (2 to {@link #MAX_REPAIR}).
 *
 * <pre>
 *  0               4               8               12              16
 *  +---------------+---------------+---------------+---------------+
 *  |      MSN      |  message len  | first offset  |     rkey      |
 *  +---------------+---------------+---------------+---------------+
 *  |  virtual address of the first |      RSN      |   immediate   |
 *  +---------------+-------+-------+---------------+---------------+ 32
 *  | op  | count |rep| rsv |    (rep: PARITY_R's repair index; 0 in PARITY and PARITY_Q)
 *  +-----+-------+---+-----+ 36
 * </pre>
 */
public final class ParityHeader {
    public static final int LENGTH = 36;
    public static final int MSN = 0;
    public static final int MESSAGE_LENGTH = 4;
    public static final int OFFSET = 8;
    public static final int RKEY = 12;
    public static final int VA = 16;
    public static final int RSN = 24;
    public static final int IMMEDIATE = 28;
    public static final int OP = 32;
    public static final int COUNT = 33;
    public static final int RESERVED = 34;
    /** PARITY_R: the repair index (the first reserved byte). */
    public static final int REPAIR = 34;
    /** The highest repair index a PARITY_R may carry (REL-21): a group has at most 16 parities. */
    public static final int MAX_REPAIR = 15;
    /** The most segments one parity covers (the count is one byte). */
    public static final int MAX_COUNT = 255;

    private MemorySegment seg;
    private long base;

    /** An unbound view; call wrap before use. */
    public ParityHeader() {
    }

    public ParityHeader wrap(MemorySegment seg, long offset) {
        this.seg = seg;
        this.base = offset;
        return this;
    }

    public int msn() { return Bytes.i32(seg, base + MSN); }
    public ParityHeader msn(int v) { Bytes.i32(seg, base + MSN, v); return this; }
    /** Length of the whole message in bytes, unsigned 32-bit (at most 2^31 - 1 is valid). */
    public int messageLength() { return Bytes.i32(seg, base + MESSAGE_LENGTH); }
    public ParityHeader messageLength(int v) { Bytes.i32(seg, base + MESSAGE_LENGTH, v); return this; }
    /** Offset in the message of the group's first segment. */
    public int offset() { return Bytes.i32(seg, base + OFFSET); }
    public ParityHeader offset(int v) { Bytes.i32(seg, base + OFFSET, v); return this; }
    public int rkey() { return Bytes.i32(seg, base + RKEY); }
    public ParityHeader rkey(int v) { Bytes.i32(seg, base + RKEY, v); return this; }
    /** WRITE, WRITE_IMM: remote address of the group's first byte; SEND, SEND_IMM: 0. */
    public long va() { return Bytes.i64(seg, base + VA); }
    public ParityHeader va(long v) { Bytes.i64(seg, base + VA, v); return this; }
    public int rsn() { return Bytes.i32(seg, base + RSN); }
    public ParityHeader rsn(int v) { Bytes.i32(seg, base + RSN, v); return this; }
    public int immediate() { return Bytes.i32(seg, base + IMMEDIATE); }
    public ParityHeader immediate(int v) { Bytes.i32(seg, base + IMMEDIATE, v); return this; }
    /** The message's opcode: WRITE, WRITE_IMM, SEND or SEND_IMM. */
    public int op() { return Bytes.u8(seg, base + OP); }
    public ParityHeader op(int v) { Bytes.u8(seg, base + OP, v); return this; }
    /** Segments the parity covers, from the one at {@link #offset}: 2 to {@link #MAX_COUNT}. */
    public int count() { return Bytes.u8(seg, base + COUNT); }
    public ParityHeader count(int v) { Bytes.u8(seg, base + COUNT, v); return this; }
    /** PARITY_R (REL-21): which repair of its group it is, 2 to {@link #MAX_REPAIR}. */
    public int repair() { return Bytes.u8(seg, base + REPAIR); }
    public ParityHeader repair(int v) { Bytes.u8(seg, base + REPAIR, v); return this; }
    /** Sent as 0, ignored on receipt (PARITY, PARITY_Q; in a PARITY_R its first byte is {@link #repair}). */
    public int reserved() { return Bytes.u16(seg, base + RESERVED); }
    public ParityHeader reserved(int v) { Bytes.u16(seg, base + RESERVED, v); return this; }
}
