package io.metaroce.core.wire;

import java.lang.foreign.MemorySegment;

/**
 * The 32-byte extension header of a READ_REQ packet (spec WIRE-3): what to read at the responder
 * (remote va, rkey, length) and where the requester wants the response placed (sink va), which every
 * READ_RESP packet then carries back.
 *
 * <pre>
 *  0               4               8               12              16
 *  +---------------+---------------+---------------+---------------+
 *  |      MSN      |    length     |     rkey      |   reserved    |
 *  +---------------+---------------+---------------+---------------+
 *  |        remote va              |        sink va                |
 *  +-------------------------------+-------------------------------+ 32
 * </pre>
 */
public final class ReadRequestHeader {
    /** An unbound view; call wrap before use. */
    public ReadRequestHeader() {
    }

    public static final int LENGTH = 32;
    public static final int MSN = 0;
    public static final int READ_LENGTH = 4;
    public static final int RKEY = 8;
    public static final int RESERVED = 12;
    public static final int REMOTE_VA = 16;
    public static final int SINK_VA = 24;

    private MemorySegment seg;
    private long base;

    public ReadRequestHeader wrap(MemorySegment seg, long offset) {
        this.seg = seg;
        this.base = offset;
        return this;
    }

    public int msn() { return Bytes.i32(seg, base + MSN); }
    public ReadRequestHeader msn(int v) { Bytes.i32(seg, base + MSN, v); return this; }
    public int readLength() { return Bytes.i32(seg, base + READ_LENGTH); }
    public ReadRequestHeader readLength(int v) { Bytes.i32(seg, base + READ_LENGTH, v); return this; }
    public int rkey() { return Bytes.i32(seg, base + RKEY); }
    public ReadRequestHeader rkey(int v) { Bytes.i32(seg, base + RKEY, v); return this; }
    public int reserved() { return Bytes.i32(seg, base + RESERVED); }
    public ReadRequestHeader reserved(int v) { Bytes.i32(seg, base + RESERVED, v); return this; }
    public long remoteVa() { return Bytes.i64(seg, base + REMOTE_VA); }
    public ReadRequestHeader remoteVa(long v) { Bytes.i64(seg, base + REMOTE_VA, v); return this; }
    public long sinkVa() { return Bytes.i64(seg, base + SINK_VA); }
    public ReadRequestHeader sinkVa(long v) { Bytes.i64(seg, base + SINK_VA, v); return this; }
}
