package io.metaroce.core;

/**
 * A fault-injection seam: the few protocol decisions a test may break on purpose, so that the conformance suite can
 * show it catches each broken engine (its mutation test). The engine always asks {@link EngineConfig#seam}; every
 * method's default is the protocol's own behaviour, and production code never installs anything but {@link #NONE}.
 * The deliberately broken variants live with the tests that use them (the conformance module's {@code Mutation}).
 */
public interface ProtocolSeam {
    /** The engine as specified. */
    ProtocolSeam NONE = new ProtocolSeam() { };

    /** REL-3/REL-4: when true, a SACK gap declares every packet in flight after the lost one lost too (go-back-N). */
    default boolean goBackN() {
        return false;
    }

    /** SACK-1: the first 64-bit word of an outgoing ACK's SACK bitmap, as written ({@code bits} as specified). */
    default long firstSackWord(long bits) {
        return bits;
    }

    /** ACK-5: the CE count an outgoing ACK echoes ({@code ceCount} as specified). */
    default int ceEcho(int ceCount) {
        return ceCount;
    }

    /** ORD-1: when true, a send WR's completion is pushed as soon as it is acknowledged, before earlier ones. */
    default boolean completeOutOfOrder() {
        return false;
    }

    /** NAK-3: whether a WRITE's range is checked against its memory region. */
    default boolean checkWriteBounds() {
        return true;
    }

    /** SACK-3: whether a path-level duplicate is answered with an immediate ACK. */
    default boolean ackDuplicates() {
        return true;
    }
}
