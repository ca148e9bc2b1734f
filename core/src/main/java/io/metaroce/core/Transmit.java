package io.metaroce.core;

/**
 * Where the datagram just produced by {@link Engine#pollTransmit} goes: filled by the engine, read by the
 * driver. Reused across calls (no allocation).
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
}
