package io.metaroce.net.cm;

/** CM_REJ reasons (CM-9). */
public final class CmReason {
    /** No QP or memory available. */
    public static final int NO_RESOURCES = 1;
    /** MTU, paths, planes or address families unacceptable. */
    public static final int INVALID_PARAMS = 2;
    /** A required capability or feature is not supported. */
    public static final int UNSUPPORTED = 3;
    /** The application refused the connection (also every undefined reason). */
    public static final int CONSUMER = 4;
    /** The connection id is in use with different parameters, or unknown. */
    public static final int STALE = 5;

    private CmReason() {
    }

    /** The reason's name and meaning, for an error message. */
    public static String describe(int reason) {
        return switch (reason) {
            case NO_RESOURCES -> "NO_RESOURCES (the listener has no QP or memory left)";
            case INVALID_PARAMS -> "INVALID_PARAMS (MTU, path count or plane count unacceptable: run both sides with the "
                    + "same --mtu, --paths and number of planes)";
            case UNSUPPORTED -> "UNSUPPORTED (a required capability is not supported: packet authentication needs the "
                    + "same pre-shared key on both sides, --auth-key)";
            case CONSUMER -> "CONSUMER (the application refused the connection)";
            case STALE -> "STALE (the connection id is in use with different parameters)";
            default -> "reason " + reason + " (undefined: treated as CONSUMER)";
        };
    }
}
