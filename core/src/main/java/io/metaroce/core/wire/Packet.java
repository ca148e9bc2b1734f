package io.metaroce.core.wire;

import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.util.zip.CRC32C;

/**
 * Whole-datagram rules (spec WIRE-1, WIRE-8): a packet is base header + extension + payload + a 4-byte CRC32C
 * trailer over everything before it. {@link #check} validates a received datagram before any field is
 * trusted; {@link #seal} writes the trailer of an outgoing one. One instance per engine (not thread-safe): it
 * keeps a reusable CRC state and caches the last segment's byte-buffer view so that steady-state traffic
 * through the same buffers allocates nothing.
 */
public final class Packet {
    /** A checker with its own CRC state. */
    public Packet() {
    }

    /** The wire format version this implementation speaks. */
    public static final int VERSION = 1;
    /** Length of the CRC32C trailer. */
    public static final int CRC_LENGTH = 4;
    /** The smallest valid datagram: base header and trailer. */
    public static final int MIN_LENGTH = BaseHeader.LENGTH + CRC_LENGTH;
    /**
     * What a trimming switch keeps of a sequenced packet (REL-17): the base header and the data or READ_REQ
     * extension, 64 bytes.
     */
    public static final int TRIMMED_LENGTH = BaseHeader.LENGTH + Math.max(DataHeader.LENGTH, ReadRequestHeader.LENGTH);
    /** Default UDP destination port of the protocol (not 4791, which belongs to RoCEv2). */
    public static final int DEFAULT_UDP_PORT = 4793;

    /** Result of {@link #check}: the datagram is valid. */
    public static final int OK = 0;
    /** Result: shorter than {@link #MIN_LENGTH}, or than its opcode's fixed part. */
    public static final int TRUNCATED = 1;
    /** Result: the CRC32C trailer does not match. */
    public static final int BAD_CRC = 2;
    /** Result: the version is not {@link #VERSION}. */
    public static final int BAD_VERSION = 3;
    /** Result: the opcode is not defined. */
    public static final int BAD_OPCODE = 4;
    /** Result: the datagram's length disagrees with base + extension + payload length + trailer. */
    public static final int BAD_LENGTH = 5;

    private final CRC32C crc = new CRC32C();
    private final BaseHeader base = new BaseHeader();
    // Byte-buffer views for the CRC, cached by segment identity (a small direct-mapped table): a driver that
    // reuses its receive and transmit slots then allocates nothing per packet.
    private static final int CACHE = 128;
    private final MemorySegment[] cachedSegments = new MemorySegment[CACHE];
    private final ByteBuffer[] cachedBuffers = new ByteBuffer[CACHE];

    /**
     * Validates the datagram in {@code seg[0, length)} in the order of spec WIRE-8: length, CRC, version,
     * opcode, exact length. Returns {@link #OK} or the reason it must be dropped.
     */
    public int check(MemorySegment seg, int length) {
        if (length < MIN_LENGTH || length > seg.byteSize()) {
            return TRUNCATED;
        }
        int carried = Bytes.i32(seg, length - CRC_LENGTH);
        if (carried != crc32c(seg, length - CRC_LENGTH)) {
            return BAD_CRC;
        }
        base.wrap(seg, 0);
        if (base.version() != VERSION) {
            return BAD_VERSION;
        }
        int ext = Opcode.extensionLength(base.opcode());
        if (ext < 0) {
            return BAD_OPCODE;
        }
        if (length < BaseHeader.LENGTH + ext + CRC_LENGTH) {
            return TRUNCATED;
        }
        int natural = BaseHeader.LENGTH + ext + base.payloadLength() + CRC_LENGTH;
        if (length != natural && !(length == natural + BaseHeader.AUTH_TRAILER_LENGTH
                && (base.flags() & BaseHeader.FLAG_AUTH) != 0)) { // AUTH-2: the trailer is counted by its flag
            return BAD_LENGTH;
        }
        return OK;
    }

    /**
     * Validates the headers of a sequenced packet a switch trimmed (REL-17): {@code seg[0, length)} is what is left of
     * the datagram, at least its base header and its opcode's extension; there is no trailer to check. Returns
     * {@link #OK}, {@link #TRUNCATED}, {@link #BAD_VERSION} or {@link #BAD_OPCODE} (also for an opcode that carries no
     * PSN: only sequenced packets are trimmed).
     */
    public int checkTrimmed(MemorySegment seg, int length) {
        if (length < BaseHeader.LENGTH || length > seg.byteSize()) {
            return TRUNCATED;
        }
        base.wrap(seg, 0);
        if (base.version() != VERSION) {
            return BAD_VERSION;
        }
        int op = base.opcode();
        if (!Opcode.isData(op) && op != Opcode.READ_REQ) {
            return BAD_OPCODE;
        }
        return length < BaseHeader.LENGTH + Opcode.extensionLength(op) ? TRUNCATED : OK;
    }

    /** Writes the CRC32C trailer at {@code length} and returns the datagram's total length. */
    public int seal(MemorySegment seg, int length) {
        Bytes.i32(seg, length, crc32c(seg, length));
        return length + CRC_LENGTH;
    }

    /**
     * Seals a gathered datagram: headers in {@code seg[0, headerLength)}, the payload in
     * {@code payload[payloadOffset, payloadOffset + payloadLength)} (not copied). The CRC32C covers headers then
     * payload, as if they were contiguous, and is written at {@code seg[headerLength]}; returns the datagram's
     * total length. {@code payload} must be native and at most 2 GiB.
     */
    public int sealGathered(MemorySegment seg, int headerLength, MemorySegment payload, long payloadOffset,
                            int payloadLength) {
        return sealGathered(seg, headerLength, view(payload), payloadOffset, payloadLength);
    }

    /**
     * {@link #sealGathered(MemorySegment, int, MemorySegment, long, int)} with the payload's memory given as a
     * byte-buffer view the caller keeps (its position and limit are set here), so that no view is made per packet.
     */
    public int sealGathered(MemorySegment seg, int headerLength, ByteBuffer payload, long payloadOffset,
                            int payloadLength) {
        crc.reset();
        ByteBuffer h = view(seg);
        h.limit(headerLength).position(0);
        crc.update(h);
        ByteBuffer p = payload;
        p.clear().position((int) payloadOffset).limit((int) payloadOffset + payloadLength);
        crc.update(p);
        Bytes.i32(seg, headerLength, (int) crc.getValue());
        return headerLength + payloadLength + CRC_LENGTH;
    }

    /**
     * Seals a data datagram ({@link Opcode#hasUserPayload}) whose payload is elided (simulation,
     * {@code EngineConfig.elidePayload}; other datagrams are sealed whole by {@link #seal}): the headers fill
     * {@code seg[0, length - payloadLength)}, the CRC32C of the headers follows them, and the returned wire length
     * counts the payload as if it were there.
     */
    public int sealElided(MemorySegment seg, int length, int payloadLength) {
        int headers = length - payloadLength;
        Bytes.i32(seg, headers, crc32c(seg, headers));
        return length + CRC_LENGTH;
    }

    /**
     * Validates a datagram of wire length {@code length} whose payload is elided (see {@link #sealElided}): the
     * headers and their CRC are in {@code seg}; the payload bytes are not. Same results as {@link #check}.
     */
    public int checkElided(MemorySegment seg, int length) {
        if (length < MIN_LENGTH || seg.byteSize() < MIN_LENGTH) {
            return TRUNCATED;
        }
        base.wrap(seg, 0);
        if (!Opcode.hasUserPayload(base.opcode())) {
            return check(seg, length); // only user data is elided: an ACK bundle's entries travel in full
        }
        int ext = Opcode.extensionLength(base.opcode());
        int headers = BaseHeader.LENGTH + Math.max(0, ext);
        if (seg.byteSize() < headers + CRC_LENGTH || length < headers + CRC_LENGTH) {
            return TRUNCATED;
        }
        if (Bytes.i32(seg, headers) != crc32c(seg, headers)) {
            return BAD_CRC;
        }
        if (base.version() != VERSION) {
            return BAD_VERSION;
        }
        if (ext < 0) {
            return BAD_OPCODE;
        }
        if (length != headers + base.payloadLength() + CRC_LENGTH) {
            return BAD_LENGTH;
        }
        return OK;
    }

    /** The largest datagram without payload: base header, the longest extension, trailer. */
    public static int maxHeaderLength() {
        int ext = 0;
        for (int op = 0; op < 256; op++) {
            ext = Math.max(ext, Opcode.extensionLength(op));
        }
        return BaseHeader.LENGTH + ext + CRC_LENGTH;
    }

    /** CRC32C (Castagnoli) of {@code seg[0, length)}. */
    public int crc32c(MemorySegment seg, int length) {
        if (!seg.isNative() && seg.heapBase().orElse(null) instanceof byte[] array) {
            // A byte[]-backed segment (the simulator's pooled packets): no buffer view needed at all.
            crc.reset();
            crc.update(array, (int) seg.address(), length);
            return (int) crc.getValue();
        }
        ByteBuffer b;
        try {
            b = view(seg);
        } catch (UnsupportedOperationException e) {
            // Over 2 GiB, or on a heap array of another type: no whole view; read the bytes (rare, uncached).
            b = ByteBuffer.wrap(seg.asSlice(0, length).toArray(java.lang.foreign.ValueLayout.JAVA_BYTE));
        }
        return update(b, length);
    }

    /** The whole-segment byte-buffer view of {@code seg}, from the cache (made once per segment). */
    private ByteBuffer view(MemorySegment seg) {
        int slot = System.identityHashCode(seg) & (CACHE - 1);
        ByteBuffer b = cachedSegments[slot] == seg ? cachedBuffers[slot] : null;
        if (b == null) {
            b = seg.asByteBuffer();
            cachedSegments[slot] = seg;
            cachedBuffers[slot] = b;
        }
        return b;
    }

    private int update(ByteBuffer b, int length) {
        crc.reset();
        b.limit(length).position(0);
        crc.update(b);
        return (int) crc.getValue();
    }

    /** Total datagram length for an opcode with {@code payloadLength} payload bytes. */
    public static int datagramLength(int opcode, int payloadLength) {
        return BaseHeader.LENGTH + Opcode.extensionLength(opcode) + payloadLength + CRC_LENGTH;
    }

    /** Name of a {@link #check} result. */
    public static String checkName(int result) {
        return switch (result) {
            case OK -> "OK";
            case TRUNCATED -> "TRUNCATED";
            case BAD_CRC -> "BAD_CRC";
            case BAD_VERSION -> "BAD_VERSION";
            case BAD_OPCODE -> "BAD_OPCODE";
            case BAD_LENGTH -> "BAD_LENGTH";
            default -> "UNKNOWN(" + result + ")";
        };
    }
}
