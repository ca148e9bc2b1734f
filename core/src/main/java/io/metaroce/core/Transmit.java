package io.metaroce.core;

import java.lang.foreign.MemorySegment;

/**
 * Where the datagram just produced by {@link Engine#pollTransmit} goes, and where its bytes are: filled by the
 * engine, read by the driver. Reused across calls (no allocation).
 *
 * <p>Normally the whole datagram is {@code out[0, length)}. A driver that called
 * {@link Engine#gatherTransmit(boolean)} must check {@link #payloadLength()}: when it is not 0, the datagram is
 * three pieces, sent as one (e.g. three iovecs): {@code out[0, headerLength)}, then {@code payloadLength} bytes of
 * {@link #payloadSegment()} from {@link #payloadOffset()} (the registered region, not copied), then the 4-byte CRC
 * at {@code out[headerLength, headerLength + 4)}. The region bytes must be sent before the driver returns to the
 * engine's thread's other work (the application may reuse the memory once the work request completes).
 */
public final class Transmit {
    /** An empty descriptor for pollTransmit to fill. */
    public Transmit() {
    }

    int peer;
    int plane;
    int pathId;
    int length;
    int opcode;
    int ecn;
    int headerLength;
    int writtenLength;
    MemorySegment payloadSegment;
    long payloadOffset;
    int payloadLength;

    /** The opaque peer handle given to {@link QueuePair#connect}: the driver maps it to an address. */
    public int peer() { return peer; }
    /** Plane to send on (index into the peer's plane addresses and the local plane interfaces). */
    public int plane() { return plane; }
    /** Path id; a driver uses source port {@code basePort + pathId} for ECMP entropy. */
    public int pathId() { return pathId; }
    /** Datagram length in bytes. */
    public int length() { return length; }
    /** IP ECN codepoint to send the datagram with: ECT(0) (2) for every packet of this protocol (CC-1). */
    public int ecn() { return ecn; }
    /** Opcode of the datagram, for the driver's statistics. */
    public int opcode() { return opcode; }
    /**
     * Bytes of the datagram the engine wrote into {@code out}: {@link #length()}, except for a gathered datagram
     * (its headers and CRC) and for a data packet with {@code EngineConfig.elidePayload} (its headers and CRC; the
     * length counts the payload that is not there).
     */
    public int writtenLength() { return writtenLength; }
    /** Gathered datagrams: bytes of headers in {@code out} before the payload (the CRC follows them in out). */
    public int headerLength() { return headerLength; }
    /** Gathered datagrams: the segment holding the payload (a registered region's); null otherwise. */
    public MemorySegment payloadSegment() { return payloadSegment; }
    /** Gathered datagrams: the payload's offset in {@link #payloadSegment()}. */
    public long payloadOffset() { return payloadOffset; }
    /** Payload bytes left in {@link #payloadSegment()} (not in {@code out}); 0 when the datagram is contiguous. */
    public int payloadLength() { return payloadLength; }
}
