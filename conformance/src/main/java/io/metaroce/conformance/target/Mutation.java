package io.metaroce.conformance.target;

import io.metaroce.core.ProtocolSeam;

/**
 * Deliberately broken engines, for testing the test suite: each plugs one defect into the engine's
 * {@link ProtocolSeam}, and the suite's mutation test asserts that some case fails against it. {@link #NONE} is the
 * engine as specified.
 */
public enum Mutation {
    /** A correct engine. */
    NONE(ProtocolSeam.NONE),
    /** REL-4 broken: a SACK gap resends every packet in flight after the lost one as well (go-back-N). */
    GO_BACK_N(new ProtocolSeam() {
        @Override public boolean goBackN() { return true; }
    }),
    /** SACK-1 broken: ACK bitmaps are shifted by one bit. */
    SACK_OFF_BY_ONE(new ProtocolSeam() {
        @Override public long firstSackWord(long bits) { return bits << 1; }
    }),
    /** ORD-1 broken: a send WR completes as soon as it is acknowledged, ahead of earlier unfinished WRs. */
    COMPLETION_OUT_OF_ORDER(new ProtocolSeam() {
        @Override public boolean completeOutOfOrder() { return true; }
    }),
    /** NAK-3 broken: a WRITE's range is not checked against its region (no OUT_OF_BOUNDS NAK). */
    NO_RKEY_BOUNDS_CHECK(new ProtocolSeam() {
        @Override public boolean checkWriteBounds() { return false; }
    }),
    /** ACK-5 broken: ACKs never carry a CE count. */
    NO_ECN_ECHO(new ProtocolSeam() {
        @Override public int ceEcho(int ceCount) { return 0; }
    }),
    /** SACK-3 broken: a path-level duplicate is dropped without the immediate ACK. */
    NO_DUPLICATE_ACK(new ProtocolSeam() {
        @Override public boolean ackDuplicates() { return false; }
    });

    private final ProtocolSeam seam;

    Mutation(ProtocolSeam seam) {
        this.seam = seam;
    }

    /** What this variant plugs into {@code EngineConfig.seam}. */
    public ProtocolSeam seam() {
        return seam;
    }
}
