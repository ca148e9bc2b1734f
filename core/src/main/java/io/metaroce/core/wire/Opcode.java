package io.metaroce.core.wire;

/**
 * Opcodes of wire format version 1 (spec section WIRE, table "Opcodes"). Values are stable; an opcode not
 * listed here is dropped and counted as {@code DROP_BAD_OPCODE}.
 */
public final class Opcode {
    /** RDMA WRITE data packet: payload placed at the (va, rkey) it carries. */
    public static final int WRITE = 0x01;
    /** RDMA WRITE with immediate: as WRITE; the message consumes one receive and completes it with the immediate. */
    public static final int WRITE_IMM = 0x02;
    /** SEND data packet: payload placed into receive number {@code rsn} at {@code offset}. */
    public static final int SEND = 0x03;
    /** SEND with immediate. */
    public static final int SEND_IMM = 0x04;
    /** RDMA READ request (no payload). */
    public static final int READ_REQ = 0x05;
    /** RDMA READ response data packet: payload placed at the requester's sink address it carries. */
    public static final int READ_RESP = 0x06;
    /**
     * Parity of a group of one message's data segments (REL-18): unsequenced, its payload the XOR of the group's
     * segments, so a receiver missing one of them rebuilds it from the others without a resend.
     */
    public static final int PARITY = 0x08;
    /**
     * Second parity of the same group (REL-20): its payload the Reed-Solomon Q syndrome (segment i of the group
     * weighted by 2^i in GF(2^8)), so a receiver that also has the group's PARITY rebuilds any two missing segments.
     */
    public static final int PARITY_Q = 0x09;
    /**
     * Further parities of the same group (REL-21): repair {@code j} (2 and up, in its header) carries the sum of the
     * group's segments with segment i weighted by 2^(j*i) in GF(2^8), so a receiver holding as many of the group's
     * parities (PARITY is repair 0, PARITY_Q repair 1) as segments are missing rebuilds them all, in most cases.
     */
    public static final int PARITY_R = 0x0A;
    /** Per-path acknowledgement: cumulative PSN, 256-bit SACK bitmap, ECN count, timestamp echo, rate grant. */
    public static final int ACK = 0x10;
    /** Negative acknowledgement of one packet, with a code. */
    public static final int NAK = 0x11;
    /** Several paths' acknowledgements in one datagram (ACK-11): each entry means what an ACK for its path means. */
    public static final int ACK_BUNDLE = 0x12;
    /** Liveness probe of one path. */
    public static final int PROBE = 0x20;
    /** Reply to a probe, sent back on the same path id. */
    public static final int PROBE_REPLY = 0x21;
    /** Connection manager: connect request. */
    public static final int CM_REQ = 0x30;
    /** Connection manager: connect reply (accept). */
    public static final int CM_REP = 0x31;
    /** Connection manager: ready to use (initiator confirms the reply). */
    public static final int CM_RTU = 0x32;
    /** Connection manager: disconnect. */
    public static final int CM_DREQ = 0x33;
    /** Connection manager: reject. */
    public static final int CM_REJ = 0x34;

    private Opcode() {
    }

    /** True for the five opcodes that carry a {@link DataHeader}. */
    public static boolean isData(int op) {
        return op == WRITE || op == WRITE_IMM || op == SEND || op == SEND_IMM || op == READ_RESP;
    }

    /**
     * True for opcodes whose payload is user data a simulation may elide (the data opcodes and the parities): their
     * wire length counts the payload, the bytes are not carried.
     */
    public static boolean hasUserPayload(int op) {
        return isData(op) || isParity(op);
    }

    /** True for the tail parity opcodes, {@link #PARITY}, {@link #PARITY_Q} and {@link #PARITY_R} (REL-18, -20, -21). */
    public static boolean isParity(int op) {
        return op == PARITY || op == PARITY_Q || op == PARITY_R;
    }

    /** True for opcodes whose message consumes a posted receive at the responder. */
    public static boolean consumesReceive(int op) {
        return op == SEND || op == SEND_IMM || op == WRITE_IMM;
    }

    /** True for the connection-manager opcodes. */
    public static boolean isCm(int op) {
        return op >= CM_REQ && op <= CM_REJ;
    }

    /**
     * Length of the opcode's extension header (after the base header, before the payload), or -1 for an
     * unknown opcode. CM packets have a variable extension; this returns its fixed part.
     */
    public static int extensionLength(int op) {
        return switch (op) {
            case WRITE, WRITE_IMM, SEND, SEND_IMM, READ_RESP -> DataHeader.LENGTH;
            case READ_REQ -> ReadRequestHeader.LENGTH;
            case PARITY, PARITY_Q, PARITY_R -> ParityHeader.LENGTH;
            case ACK -> AckHeader.LENGTH;
            case ACK_BUNDLE -> AckBundleHeader.LENGTH;
            case NAK -> NakHeader.LENGTH;
            case PROBE, PROBE_REPLY -> ProbeHeader.LENGTH;
            case CM_REQ, CM_REP, CM_RTU, CM_DREQ, CM_REJ -> CmHeader.FIXED_LENGTH;
            default -> -1;
        };
    }

    /** Human-readable name, for logs, reports and the dissector. */
    public static String name(int op) {
        return switch (op) {
            case WRITE -> "WRITE";
            case WRITE_IMM -> "WRITE_IMM";
            case SEND -> "SEND";
            case SEND_IMM -> "SEND_IMM";
            case READ_REQ -> "READ_REQ";
            case READ_RESP -> "READ_RESP";
            case PARITY -> "PARITY";
            case PARITY_Q -> "PARITY_Q";
            case PARITY_R -> "PARITY_R";
            case ACK -> "ACK";
            case NAK -> "NAK";
            case ACK_BUNDLE -> "ACK_BUNDLE";
            case PROBE -> "PROBE";
            case PROBE_REPLY -> "PROBE_REPLY";
            case CM_REQ -> "CM_REQ";
            case CM_REP -> "CM_REP";
            case CM_RTU -> "CM_RTU";
            case CM_DREQ -> "CM_DREQ";
            case CM_REJ -> "CM_REJ";
            default -> String.format("UNKNOWN(0x%02x)", op);
        };
    }
}
