package io.metaroce.conformance.target;

/** Fixed identities of the tester as a peer. */
public final class TesterConstants {
    /** The tester's QP number: the IUT's QP is connected to it. */
    public static final int TESTER_QPN = 0x7E57_0001;

    private TesterConstants() {
    }
}
