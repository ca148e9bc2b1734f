package io.metaroce.core.wire;

import java.lang.foreign.MemorySegment;

/**
 * The 16-byte extension of a NAK packet (spec WIRE-5, NAK-*). A NAK names one rejected packet by path id (base
 * header) and PSN, the message it belonged to and a code. A NAKed PSN is never marked accepted in a SACK.
 *
 * <pre>
 *  0               4       5       6       8               12              16
 *  +---------------+-------+-------+-------+---------------+---------------+
 *  |      MSN      | code  | rsvd  | rsvd  |   NAKed PSN   |    offset     |
 *  +---------------+-------+-------+-------+---------------+---------------+
 * </pre>
 */
public final class NakHeader {
    /** An unbound view; call wrap before use. */
    public NakHeader() {
    }

    public static final int LENGTH = 16;
    public static final int MSN = 0;
    public static final int CODE = 4;
    public static final int RESERVED = 5;
    public static final int NAK_PSN = 8;
    public static final int OFFSET = 12;

    /** Receiver not ready: no receive posted for the SEND's RSN. Retried after the RNR delay. */
    public static final int CODE_RNR = 1;
    /** The rkey names no region of the QP's protection domain. */
    public static final int CODE_BAD_RKEY = 2;
    /** The access falls outside the region. */
    public static final int CODE_OUT_OF_BOUNDS = 3;
    /** The region does not grant the access (remote write or remote read). */
    public static final int CODE_NO_PERMISSION = 4;
    /** The request is invalid (e.g. a SEND longer than the posted receive). */
    public static final int CODE_INVALID_REQUEST = 5;
    /** The responder QP cannot take the request now (read-response resources exhausted); retried. */
    public static final int CODE_BUSY = 6;
    /**
     * REL-16: the segment at {@code offset} of message {@code MSN} has not arrived while a later one of the message
     * has; resend it. Names no PSN (the receiver cannot know which path carried it): the NAKed PSN field carries the
     * low 32 bits of the later segment's timestamp, and only a transmission sent no later than that is resent.
     */
    public static final int CODE_MISSING = 7;
    /**
     * REL-17: the packet named by (path id, NAKed PSN) reached the receiver trimmed to its headers by a switch whose
     * buffer could not take it (packet trimming, as UET switches do): it was lost; resend its segment.
     */
    public static final int CODE_TRIMMED = 8;

    private MemorySegment seg;
    private long base;

    public NakHeader wrap(MemorySegment seg, long offset) {
        this.seg = seg;
        this.base = offset;
        return this;
    }

    public int msn() { return Bytes.i32(seg, base + MSN); }
    public NakHeader msn(int v) { Bytes.i32(seg, base + MSN, v); return this; }
    public int code() { return Bytes.u8(seg, base + CODE); }
    public NakHeader code(int v) { Bytes.u8(seg, base + CODE, v); return this; }
    public int reserved() { return Bytes.u8(seg, base + RESERVED) << 16 | Bytes.u16(seg, base + RESERVED + 1); }
    public NakHeader reserved(int v) {
        Bytes.u8(seg, base + RESERVED, v >>> 16);
        Bytes.u16(seg, base + RESERVED + 1, v);
        return this;
    }
    public int nakPsn() { return Bytes.i32(seg, base + NAK_PSN); }
    public NakHeader nakPsn(int v) { Bytes.i32(seg, base + NAK_PSN, v); return this; }
    public int offset() { return Bytes.i32(seg, base + OFFSET); }
    public NakHeader offset(int v) { Bytes.i32(seg, base + OFFSET, v); return this; }

    /** Name of a NAK code, for logs and reports. */
    public static String codeName(int code) {
        return switch (code) {
            case CODE_RNR -> "RNR";
            case CODE_BAD_RKEY -> "BAD_RKEY";
            case CODE_OUT_OF_BOUNDS -> "OUT_OF_BOUNDS";
            case CODE_NO_PERMISSION -> "NO_PERMISSION";
            case CODE_INVALID_REQUEST -> "INVALID_REQUEST";
            case CODE_BUSY -> "BUSY";
            case CODE_MISSING -> "MISSING";
            case CODE_TRIMMED -> "TRIMMED";
            default -> "UNKNOWN(" + code + ")";
        };
    }
}
