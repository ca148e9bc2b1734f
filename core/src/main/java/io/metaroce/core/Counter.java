package io.metaroce.core;

/**
 * Named counters kept per engine and per QP (spec CTR-*). Every dropped or rejected packet increments exactly
 * one {@code DROP_*} counter.
 */
public enum Counter {
    TX_PACKETS, TX_BYTES, TX_DATA_PACKETS, TX_PAYLOAD_BYTES, TX_ACKS, TX_NAKS, TX_PROBES, TX_PROBE_REPLIES,
    RX_PACKETS, RX_BYTES, RX_DATA_PACKETS, RX_PAYLOAD_BYTES, RX_ACKS, RX_NAKS, RX_PROBES, RX_PROBE_REPLIES,
    /**
     * Datagrams that carried acknowledgements: plain ACKs and ACK bundles (ACK-11). {@link #TX_ACKS} counts the
     * per-path acknowledgements they carried.
     */
    TX_ACK_DATAGRAMS,
    /** ACK bundles received (each entry is also counted in {@link #RX_ACKS}). */
    RX_ACK_BUNDLES,
    /** Packets sent again after loss detection, RTO, RNR or BUSY. */
    RETRANSMITS,
    /** Per-path retransmission timer expiries. */
    TIMEOUTS,
    /** Timeouts proven spurious by a later ACK for data sent before them, and undone (RTO-7). */
    SPURIOUS_TIMEOUTS,
    /** Packets declared lost from a gap in the SACK bitmap. */
    SACK_GAPS,
    /** Packets declared lost by a tail-loss probe's answer (RTO-8). */
    TAIL_LOSSES,
    /** Tail-loss probes that carried the path's newest unacknowledged segment again (RTO-6). */
    TAIL_COPIES,
    /**
     * Tail-loss probes sent as PROBE packets on an ACTIVE path (RTO-6), also counted in {@link #TX_PROBES}: the
     * other probes test a failed or probing path's health (PATH-5).
     */
    TAIL_PROBES,
    /** Timeouts on a route that delivered later packets (PATH-16): losses, not failures; path health untouched. */
    ROUTE_ALIVE_TIMEOUTS,
    /** Timeouts put off because the peer had acknowledged nothing sent since the packet left (RTO-11). */
    RTO_DEFERRED,
    /** Packets declared lost because one sent sufficiently later, on any path, was acknowledged (REL-14). */
    RACK_LOSSES,
    /** Holes reported by this receiver with a NAK MISSING (REL-16). */
    MISSING_NAKS,
    /** Segments this receiver NAKed MISSING whose first transmission arrived after all: late, not lost (REL-19). */
    MISSING_NAKS_LATE,
    /** Packets declared lost because the receiver reported their segment missing (REL-16). */
    MISSING_LOSSES,
    /** Trimmed packets (headers only, cut by a switch) this receiver NAKed TRIMMED (REL-17). */
    RX_TRIMMED,
    /** Packets declared lost because the receiver reported them trimmed (REL-17). */
    TRIM_LOSSES,
    /** PARITY packets sent (REL-18). */
    PARITY_SENT,
    /** PARITY_Q packets sent (REL-20). */
    PARITY_Q_SENT,
    /** PARITY_R packets sent (REL-21). */
    PARITY_R_SENT,
    /** PARITY, PARITY_Q and PARITY_R packets received and found well-formed (REL-18, REL-20, REL-21). */
    RX_PARITY,
    /**
     * Segments this receiver rebuilt from its parities and the rest of their group, without their packet (REL-18,
     * REL-20, REL-21).
     */
    PARITY_REBUILT,
    /** Payload bytes of the segments counted by {@link #PARITY_REBUILT}: received data, as {@link #RX_PAYLOAD_BYTES}. */
    PARITY_REBUILT_BYTES,
    /**
     * Parity packets received that rebuilt nothing: their group was whole (or its message retired) when
     * they arrived or before they could be used, they were evicted unused, or more segments of the group were lost
     * than the parities at hand rebuild (REL-18, REL-20).
     */
    PARITY_UNUSED,
    /** CE marks reported back to this sender in ACKs. */
    ECN_ECHOES,
    /** CE-marked data packets received. */
    ECN_CE_RECEIVED,
    PATH_FAILOVERS, PATH_READMISSIONS,
    /** Paths that failed on a route another QP already probes, and waited for its verdict without probing (PATH-17). */
    ROUTE_PROBE_WAITS,
    /** Paths re-admitted because another QP's probes re-admitted their route (PATH-17; also in PATH_READMISSIONS). */
    ROUTE_READMISSIONS,
    /** Data segments whose payload was placed more than once (never; kept to prove it). */
    DUPLICATE_PLACEMENTS,
    /** Accepted data packets whose segment was already placed or whose message already retired. */
    DUPLICATE_DATA,
    COMPLETIONS, ERROR_COMPLETIONS, RNR_NAKS_RECEIVED,
    /** NAKs not sent because the QP's NAK queue was full (the packet itself is counted by its drop reason). */
    NAK_QUEUE_OVERFLOW,
    /** Probe replies not sent because the reply queue was full (probes are retried). */
    PROBE_REPLY_OVERFLOW,
    DROP_TRUNCATED, DROP_BAD_CRC, DROP_BAD_VERSION, DROP_BAD_OPCODE, DROP_BAD_LENGTH, DROP_MALFORMED,
    DROP_UNKNOWN_QP, DROP_WRONG_PEER, DROP_QP_NOT_READY, DROP_DUPLICATE, DROP_PSN_OUT_OF_WINDOW,
    DROP_MSN_OUT_OF_WINDOW, DROP_BAD_RKEY, DROP_OUT_OF_BOUNDS, DROP_NO_PERMISSION, DROP_RNR,
    DROP_INVALID_REQUEST, DROP_BUSY, DROP_STALE_NAK,
    /** PROBE_REPLYs answering a probe the path already counted (PATH-10): late duplicates, not malformed packets. */
    DROP_STALE_PROBE_REPLY,
    /** AUTH-6: no AUTH trailer on an authenticated connection (or one on a connection without), or a bad tag. */
    DROP_AUTH,
    /** AUTH-7: an authentic packet whose sequence number was already accepted or is below the replay window. */
    DROP_REPLAY,
    /**
     * AUTH-19: an authenticated packet whose key phase and sequence number show it was sealed under a key this QP
     * no longer keeps (two or more key updates old); dropped without trying a key.
     */
    DROP_KEY_RETIRED,
    /** AUTH-18: key updates this QP's sender made (it seals under the next key from then on). */
    KEY_UPDATES_SENT,
    /** AUTH-19: key updates of the peer this QP followed (a packet under the peer's next key verified). */
    KEY_UPDATES_RECEIVED,
    /**
     * REL-22: extra copies of resends sent while the QP had nothing new to send (each also counted in
     * {@link #RETRANSMITS}).
     */
    RESEND_COPIES;

    private static final Counter[] VALUES = values();

    /** All counters, in declaration order (no copy). */
    static Counter[] all() {
        return VALUES;
    }
}
