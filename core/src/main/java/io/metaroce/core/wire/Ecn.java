package io.metaroce.core.wire;

/**
 * The ECN codepoints of the IP header's two low TOS / traffic-class bits (RFC 3168), as the engine, the
 * drivers and the simulator pass them around: an {@code int} in 0..3.
 */
public final class Ecn {
    /** Not ECN-capable transport (00). */
    public static final int NOT_ECT = 0;
    /** ECN-capable transport, codepoint 1 (01); not used by MetaRoCE senders. */
    public static final int ECT1 = 1;
    /** ECN-capable transport, codepoint 0 (10): what MetaRoCE and RoCEv2 senders put on data packets. */
    public static final int ECT0 = 2;
    /** Congestion experienced (11): set by a switch instead of dropping an ECN-capable packet. */
    public static final int CE = 3;

    private Ecn() {
    }

    /**
     * Whether a switch may mark this packet instead of dropping it.
     *
     * @param ecn a codepoint, 0..3
     * @return true for ECT(0) and ECT(1)
     */
    public static boolean capable(int ecn) {
        return ecn == ECT0 || ecn == ECT1;
    }

    /**
     * The codepoint of a TOS / traffic-class byte.
     *
     * @param tos the IPv4 TOS or IPv6 traffic-class byte
     * @return its two low bits, 0..3
     */
    public static int of(int tos) {
        return tos & 3;
    }
}
