package io.metaroce.core;

/** Health of one path (spec PATH-*). */
public enum PathState {
    /** Carries data under its congestion window. */
    ACTIVE,
    /** Had a retransmission timeout without ECN evidence of congestion: window of one packet. */
    SUSPECT,
    /** Declared failed: no data, probed every probe interval. */
    FAILED,
    /** Answered a probe after failing: being re-admitted, still no data. */
    PROBING
}
