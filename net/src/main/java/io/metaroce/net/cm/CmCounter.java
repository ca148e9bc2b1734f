package io.metaroce.net.cm;

/**
 * The connection manager's counters (CTR-7): traffic, the drop reasons of WIRE-8 and CM-11 for CM datagrams
 * (named like the engine's {@code DROP_*} with a {@code CM_} prefix: each dropped CM datagram increments exactly
 * one of them) and the connection events. They only increase while the endpoint lives.
 */
public enum CmCounter {
    /** CM datagrams handed to the CM. */
    CM_RX_PACKETS,
    /** CM datagrams the CM sent (retransmissions included). */
    CM_TX_PACKETS,
    /** WIRE-8 1, 5: shorter than the base header and trailer, or than the CM extension. */
    CM_DROP_TRUNCATED,
    /** WIRE-8 2: CRC32C mismatch. */
    CM_DROP_BAD_CRC,
    /** WIRE-8 3: version is not 1. */
    CM_DROP_BAD_VERSION,
    /** WIRE-8 4: not a CM opcode (a datagram handed to the CM by mistake). */
    CM_DROP_BAD_OPCODE,
    /** WIRE-8 6: length differs from header + extension + entries + trailer. */
    CM_DROP_BAD_LENGTH,
    /**
     * AUTH-13: a device with a pre-shared key got a CM datagram without a seal or whose tag does not verify
     * (an unsealed or forged CM_REQ is counted here too, and refused as AUTH-14 says).
     */
    CM_DROP_AUTH,
    /**
     * A device with a pre-shared key: a CM datagram over its source's rate limit ({@code CmRateLimit}), dropped
     * before its MAC is checked (after WIRE-8, before AUTH-13).
     */
    CM_DROP_RATE_LIMITED,
    /** CM-11: fails {@code CmMessage.parse} (WIRE-7) or a CM_REQ / CM_REP with an MTU outside 64..65 000. */
    CM_DROP_MALFORMED,
    /** CM-16: well formed but without a transition in the receiver's state (unknown id, wrong QPN, no listener). */
    CM_IGNORED,
    /** CM-4 / CM-10: CM_REQ and CM_DREQ retransmissions. */
    CM_RETRANSMITS,
    /** CM_REJs sent (CM-6, CM-9; a remembered REJ repeated for a duplicate REQ counts again). */
    CM_REJECTS_SENT,
    /** CM_REJs that ended one of our attempts. */
    CM_REJECTS_RECEIVED,
    /** Connections that reached ESTABLISHED (either side). */
    CM_ESTABLISHED,
    /** Attempts that failed (REJ, unacceptable REP, retries exhausted, deadline). */
    CM_ATTEMPTS_FAILED,
    /** Connections closed by a CM_DREQ exchange (either side started it). */
    CM_DISCONNECTS;

    private static final CmCounter[] ALL = values();

    /** Every counter, in declaration order (no copy: do not modify). */
    static CmCounter[] all() {
        return ALL;
    }
}
