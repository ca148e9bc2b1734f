package io.metaroce.net.cm;

/** The states of one connection (attempt) in the CM state machines of spec section 08. */
enum CmState {
    /** Initiator: CM_REQ sent, waiting for CM_REP or CM_REJ. */
    REQ_SENT,
    /** Responder: CM_REP sent, QP in RTR, waiting for CM_RTU or the first data packet. */
    REP_SENT,
    /** Responder: the REQ was refused; the REJ is remembered for duplicates. */
    REJECTED,
    /** Both: the QP is in RTS. */
    ESTABLISHED,
    /** Both: we closed; CM_DREQ sent and retransmitted until the peer's CM_DREQ. */
    DREQ_SENT,
    /** Both: the peer closed; its duplicate CM_DREQs are answered until the period ends. */
    TIME_WAIT,
    /** Done: forgotten at the next sweep. */
    CLOSED
}
