package io.metaroce.core.wire;

/**
 * Layout of the connection-manager extension (spec WIRE-7, CM-*): a 32-byte fixed part followed by one
 * 18-byte address entry per plane; the base header's payload length counts the entries. Parsed and built by
 * {@link CmMessage}.
 *
 * <pre>
 *  0                               8               12              16
 *  +-------------------------------+---------------+---------------+
 *  |        connection id          |  sender QPN   |   peer QPN    |
 *  +---------------+-------+-------+---------------+-------+---+---+
 *  |  initial PSN  |  MTU  | paths | capabilities  | port  |np |rsn|
 *  +---------------+-------+-------+---------------+-------+---+---+ 32
 *  plane entry (18 bytes): family (4 or 6), reserved, 16 address bytes (IPv4 in the first 4)
 * </pre>
 */
public final class CmHeader {
    public static final int FIXED_LENGTH = 32;
    public static final int CONNECTION_ID = 0;
    public static final int SENDER_QPN = 8;
    public static final int PEER_QPN = 12;
    public static final int INITIAL_PSN = 16;
    public static final int MTU = 20;
    public static final int PATHS = 22;
    public static final int CAPABILITIES = 24;
    public static final int UDP_PORT = 28;
    public static final int PLANE_COUNT = 30;
    public static final int REASON = 31;
    public static final int PLANE_ENTRY_LENGTH = 18;
    /** The most planes one CM message can list. */
    public static final int MAX_PLANES = 16;

    private CmHeader() {
    }
}
