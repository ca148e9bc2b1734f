package io.metaroce.core;

/**
 * A per-path congestion control strategy (spec CC-*). It owns the path's {@code cwndBytes}; the engine calls
 * it on acknowledgements, losses and timeouts, all with the current virtual time.
 */
public interface CongestionControl {
    /** The path starts (or is re-admitted): set the initial window. */
    void onStart(Path path);

    /**
     * {@code ackedPackets} packets ({@code ackedBytes}) were newly acknowledged by one ACK that reported
     * {@code markedPackets} CE marks.
     */
    void onAck(Path path, int ackedPackets, long ackedBytes, int markedPackets, long nowNs);

    /** A packet of the path was declared lost from a SACK gap. */
    void onLoss(Path path, long nowNs);

    /** The path's retransmission timer expired. */
    void onTimeout(Path path, long nowNs);
}
