package io.metaroce.core;

/**
 * One route's congestion controller (spec CC-*): an instance per {@link SharedPath} (a path id between this engine
 * and one peer, shared by every QP between them, PATH-15) that owns its state (window, threshold, ECN average, ...),
 * so a second algorithm needs no new fields anywhere else. The engine calls it on
 * acknowledgements, losses and timeouts, all with the current virtual time, and reads the window it allows.
 * Instances are made by the {@link Factory} in {@link EngineConfig#congestionControl}.
 */
public interface CongestionControl {
    /** Makes the controller of one path. */
    @FunctionalInterface
    interface Factory {
        CongestionControl create(SharedPath path, EngineConfig cfg);
    }

    /** The path starts (or is re-admitted): set the initial window. */
    void onStart();

    /**
     * {@code ackedPackets} packets ({@code ackedBytes}) were newly acknowledged by one ACK that reported
     * {@code markedPackets} CE marks.
     */
    void onAck(int ackedPackets, long ackedBytes, int markedPackets, long nowNs);

    /** A packet of the path was declared lost from a SACK gap, a tail probe or the reordering timer. */
    void onLoss(long nowNs);

    /**
     * The path's retransmission timer expired. The first timeout of a series saves what it changes, so that
     * {@link #undoTimeout()} can restore it if the timeout proves spurious (RTO-7).
     */
    void onTimeout(long nowNs, boolean firstOfSeries);

    /** RTO-7: the timeout series proved spurious; restore the window it cut (never shrinking it). */
    void undoTimeout();

    /**
     * Bytes the path may have in flight. It changes only in the calls above (the route keeps a copy after each, read
     * for every packet's path choice).
     */
    double cwndBytes();

    /** The ECN marked-fraction average (0 for algorithms without one). */
    double alpha();
}
