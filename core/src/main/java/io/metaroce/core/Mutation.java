package io.metaroce.core;

/**
 * Deliberate defects, <b>for testing the test suite only</b>: the conformance suite's mutation test runs the
 * suite against an engine with one of these switched on ({@link EngineConfig#mutation}) and asserts that some
 * case fails. Production code never sets anything but {@link #NONE} (the default).
 */
public enum Mutation {
    /** A correct engine. */
    NONE,
    /** REL-4 broken: a SACK gap resends every packet in flight after the lost one as well (go-back-N). */
    GO_BACK_N,
    /** SACK-1 broken: ACK bitmaps are shifted by one bit. */
    SACK_OFF_BY_ONE,
    /** ORD-1 broken: a send WR completes as soon as it is acknowledged, ahead of earlier unfinished WRs. */
    COMPLETION_OUT_OF_ORDER,
    /** NAK-3 broken: a WRITE's range is not checked against its region (no OUT_OF_BOUNDS NAK). */
    NO_RKEY_BOUNDS_CHECK,
    /** ACK-5 broken: ACKs never carry a CE count. */
    NO_ECN_ECHO,
    /** SACK-3 broken: a path-level duplicate is dropped without the immediate ACK. */
    NO_DUPLICATE_ACK
}
