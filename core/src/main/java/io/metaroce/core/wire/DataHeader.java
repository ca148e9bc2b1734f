package io.metaroce.core.wire;

import java.lang.foreign.MemorySegment;

/**
 * The 32-byte data extension header of WRITE, WRITE_IMM, SEND, SEND_IMM and READ_RESP packets (spec WIRE-2).
 * Every data packet is self-describing: it names its message (MSN), its place in it (offset, message
 * length) and where its bytes go (va + rkey for WRITE, requester sink va for READ_RESP, receive sequence
 * number for SEND), so it can be placed on arrival in any order.
 *
 * <pre>
 *  0               4               8               12              16
 *  +---------------+---------------+---------------+---------------+
 *  |      MSN      |  message len  |    offset     |     rkey      |
 *  +---------------+---------------+---------------+---------------+
 *  |        virtual address (va)   |      RSN      |   immediate   |
 *  +-------------------------------+---------------+---------------+ 32
 * </pre>
 */
public final class DataHeader {
    /** An unbound view; call wrap before use. */
    public DataHeader() {
    }

    public static final int LENGTH = 32;
    public static final int MSN = 0;
    public static final int MESSAGE_LENGTH = 4;
    public static final int OFFSET = 8;
    public static final int RKEY = 12;
    public static final int VA = 16;
    public static final int RSN = 24;
    public static final int IMMEDIATE = 28;

    private MemorySegment seg;
    private long base;

    public DataHeader wrap(MemorySegment seg, long offset) {
        this.seg = seg;
        this.base = offset;
        return this;
    }

    public int msn() { return Bytes.i32(seg, base + MSN); }
    public DataHeader msn(int v) { Bytes.i32(seg, base + MSN, v); return this; }
    /** Message length in bytes, unsigned 32-bit (at most 2^31 - 1 is valid). */
    public int messageLength() { return Bytes.i32(seg, base + MESSAGE_LENGTH); }
    public DataHeader messageLength(int v) { Bytes.i32(seg, base + MESSAGE_LENGTH, v); return this; }
    public int offset() { return Bytes.i32(seg, base + OFFSET); }
    public DataHeader offset(int v) { Bytes.i32(seg, base + OFFSET, v); return this; }
    public int rkey() { return Bytes.i32(seg, base + RKEY); }
    public DataHeader rkey(int v) { Bytes.i32(seg, base + RKEY, v); return this; }
    public long va() { return Bytes.i64(seg, base + VA); }
    public DataHeader va(long v) { Bytes.i64(seg, base + VA, v); return this; }
    public int rsn() { return Bytes.i32(seg, base + RSN); }
    public DataHeader rsn(int v) { Bytes.i32(seg, base + RSN, v); return this; }
    public int immediate() { return Bytes.i32(seg, base + IMMEDIATE); }
    public DataHeader immediate(int v) { Bytes.i32(seg, base + IMMEDIATE, v); return this; }
}
