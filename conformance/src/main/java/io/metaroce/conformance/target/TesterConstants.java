package io.metaroce.conformance.target;

/** Fixed identities of the tester as a peer. */
public final class TesterConstants {
    /** The tester's QP number: the IUT's QP is connected to it. */
    public static final int TESTER_QPN = 0x7E57_0001;
    /**
     * AUTH-3: the pre-shared key of cases with {@code config auth=tag|encrypt} (both the tester and the IUT's
     * connection manager use it; a remote agent too, so a real deployment's key is never involved).
     */
    public static final byte[] AUTH_PSK = "MetaRoCE-J conformance tester PSK".getBytes(
            java.nio.charset.StandardCharsets.US_ASCII);
    /** AUTH-3: the connection id of a case's QP connected without the CM (qp RTS with authentication). */
    public static final long AUTH_CID = 0x7E57_0000_0000_0001L;

    private TesterConstants() {
    }
}
