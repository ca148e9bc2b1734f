package io.metaroce.core.wire;

import java.lang.foreign.MemorySegment;

/**
 * The 56-byte extension of an ACK packet (spec WIRE-4, SACK-*). The base header's path id names the path
 * acknowledged; its PSN field is 0. Bit {@code b} of SACK word {@code w} (bit 0 = least significant) set means
 * PSN {@code cumPsn + 1 + 64*w + b} was accepted.
 *
 * <pre>
 *  0               4       6       8                               16
 *  +---------------+-------+-------+-------------------------------+
 *  |   cum PSN     |CE cnt | rsvd  |    echoed timestamp (ns)      |
 *  +---------------+-------+-------+-------------------------------+
 *  | grant (Mb/s)  |  rx MSN       |  SACK word 0 (PSN cum+1..+64) |
 *  +---------------+---------------+-------------------------------+
 *  |  SACK word 1                  |  SACK word 2                  |
 *  +-------------------------------+-------------------------------+
 *  |  SACK word 3                  | 56
 *  +-------------------------------+
 * </pre>
 */
public final class AckHeader {
    /** An unbound view; call wrap before use. */
    public AckHeader() {
    }

    public static final int LENGTH = 56;
    public static final int CUM_PSN = 0;
    public static final int CE_COUNT = 4;
    public static final int RESERVED = 6;
    public static final int ECHO_TIMESTAMP = 8;
    public static final int GRANT_MBPS = 16;
    public static final int RX_MSN = 20;
    public static final int SACK = 24;
    /** Number of PSNs the bitmap covers beyond the cumulative PSN. */
    public static final int SACK_BITS = 256;

    private MemorySegment seg;
    private long base;

    public AckHeader wrap(MemorySegment seg, long offset) {
        this.seg = seg;
        this.base = offset;
        return this;
    }

    public int cumPsn() { return Bytes.i32(seg, base + CUM_PSN); }
    public AckHeader cumPsn(int v) { Bytes.i32(seg, base + CUM_PSN, v); return this; }
    public int ceCount() { return Bytes.u16(seg, base + CE_COUNT); }
    public AckHeader ceCount(int v) { Bytes.u16(seg, base + CE_COUNT, Math.min(v, 0xFFFF)); return this; }
    public int reserved() { return Bytes.u16(seg, base + RESERVED); }
    public AckHeader reserved(int v) { Bytes.u16(seg, base + RESERVED, v); return this; }
    public long echoTimestampNs() { return Bytes.i64(seg, base + ECHO_TIMESTAMP); }
    public AckHeader echoTimestampNs(long v) { Bytes.i64(seg, base + ECHO_TIMESTAMP, v); return this; }
    /** Rate granted to this sender by the receiver, in Mb/s of datagram bytes; 0 means no cap. */
    public int grantMbps() { return Bytes.i32(seg, base + GRANT_MBPS); }
    public AckHeader grantMbps(int v) { Bytes.i32(seg, base + GRANT_MBPS, v); return this; }
    /** The lowest MSN the receiver has not yet fully received and retired (message-level progress). */
    public int rxMsn() { return Bytes.i32(seg, base + RX_MSN); }
    public AckHeader rxMsn(int v) { Bytes.i32(seg, base + RX_MSN, v); return this; }
    /** SACK word {@code w} (0..3). */
    public long sackWord(int w) { return Bytes.i64(seg, base + SACK + 8L * w); }
    public AckHeader sackWord(int w, long v) { Bytes.i64(seg, base + SACK + 8L * w, v); return this; }

    /** True when PSN {@code cumPsn + 1 + i} is marked accepted, {@code 0 <= i < 256}. */
    public boolean sacked(int i) {
        return (sackWord(i >>> 6) >>> (i & 63) & 1L) != 0;
    }
}
