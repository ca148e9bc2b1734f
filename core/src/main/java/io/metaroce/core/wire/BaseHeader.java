package io.metaroce.core.wire;

import java.lang.foreign.MemorySegment;

/**
 * The 32-byte base header that starts every packet (spec WIRE-1). Network byte order.
 *
 * <pre>
 *  0      1      2             4                           8
 *  +------+------+-------------+---------------------------+
 *  | ver  |opcode|    flags    |        dest QPN           |
 *  +------+------+-------------+---------------------------+
 *  |   path id   | payload len |           PSN             |
 *  +-------------+-------------+---------------------------+
 *  |         PSN floor         |        source QPN         |
 *  +---------------------------+---------------------------+
 *  |                 sender timestamp (ns)                 |
 *  +-------------------------------------------------------+ 32
 * </pre>
 *
 * A view: {@link #wrap} it over a segment whose length was checked with {@link Packet#check}; after that no
 * accessor can fail.
 */
public final class BaseHeader {
    /** An unbound view; call wrap before use. */
    public BaseHeader() {
    }

    public static final int LENGTH = 32;
    public static final int VERSION = 0;
    public static final int OPCODE = 1;
    public static final int FLAGS = 2;
    public static final int DEST_QPN = 4;
    public static final int PATH_ID = 8;
    public static final int PAYLOAD_LENGTH = 10;
    public static final int PSN = 12;
    public static final int PSN_FLOOR = 16;
    public static final int SRC_QPN = 20;
    public static final int TIMESTAMP = 24;

    /** Flag: the last packet of its message. */
    public static final int FLAG_LAST = 0x0001;
    /** Flag: the first packet of its message. */
    public static final int FLAG_FIRST = 0x0002;
    /** Flag: a retransmission of data sent before under another PSN. */
    public static final int FLAG_RETRANSMIT = 0x0004;
    /** Flag: the sender asks for an immediate ACK (tail of a burst). */
    public static final int FLAG_ACK_REQ = 0x0008;
    /** Flag: the packet carries the 24-byte AUTH trailer before its CRC (spec AUTH-2). */
    public static final int FLAG_AUTH = 0x0010;
    /** Flag, with {@link #FLAG_AUTH}: the payload is encrypted (spec AUTH-5). */
    public static final int FLAG_ENCRYPTED = 0x0020;
    /** Flag, with {@link #FLAG_AUTH}: the packet is sealed under an odd generation of its sender's key (AUTH-17). */
    public static final int FLAG_KEY_PHASE = 0x0040;
    /**
     * Flag, on an ACK or ACK_BUNDLE: its PSN-floor field carries the receiver's ACK hold times ({@link AckHold},
     * spec WIRE-21).
     */
    public static final int FLAG_ACK_HOLD = 0x0080;
    /** Length of the AUTH trailer (16-byte tag, 8-byte sequence number) of a packet with {@link #FLAG_AUTH}. */
    public static final int AUTH_TRAILER_LENGTH = 24;

    private MemorySegment seg;
    private long base;

    /** Points this view at {@code seg} starting at {@code offset}. */
    public BaseHeader wrap(MemorySegment seg, long offset) {
        this.seg = seg;
        this.base = offset;
        return this;
    }

    public int version() { return Bytes.u8(seg, base + VERSION); }
    public BaseHeader version(int v) { Bytes.u8(seg, base + VERSION, v); return this; }
    public int opcode() { return Bytes.u8(seg, base + OPCODE); }
    public BaseHeader opcode(int v) { Bytes.u8(seg, base + OPCODE, v); return this; }
    public int flags() { return Bytes.u16(seg, base + FLAGS); }
    public BaseHeader flags(int v) { Bytes.u16(seg, base + FLAGS, v); return this; }
    public int destQpn() { return Bytes.i32(seg, base + DEST_QPN); }
    public BaseHeader destQpn(int v) { Bytes.i32(seg, base + DEST_QPN, v); return this; }
    public int pathId() { return Bytes.u16(seg, base + PATH_ID); }
    public BaseHeader pathId(int v) { Bytes.u16(seg, base + PATH_ID, v); return this; }
    public int payloadLength() { return Bytes.u16(seg, base + PAYLOAD_LENGTH); }
    public BaseHeader payloadLength(int v) { Bytes.u16(seg, base + PAYLOAD_LENGTH, v); return this; }
    public int psn() { return Bytes.i32(seg, base + PSN); }
    public BaseHeader psn(int v) { Bytes.i32(seg, base + PSN, v); return this; }
    public int psnFloor() { return Bytes.i32(seg, base + PSN_FLOOR); }
    public BaseHeader psnFloor(int v) { Bytes.i32(seg, base + PSN_FLOOR, v); return this; }
    public int srcQpn() { return Bytes.i32(seg, base + SRC_QPN); }
    public BaseHeader srcQpn(int v) { Bytes.i32(seg, base + SRC_QPN, v); return this; }
    public long timestampNs() { return Bytes.i64(seg, base + TIMESTAMP); }
    public BaseHeader timestampNs(long v) { Bytes.i64(seg, base + TIMESTAMP, v); return this; }
}
