package io.metaroce.testkit.stress;

/** The five operations a requester posts. */
public enum OpKind {
    WRITE, WRITE_IMM, SEND, SEND_IMM, READ;

    /** Whether the operation consumes a receive at the responder. */
    public boolean consumesReceive() {
        return this == WRITE_IMM || this == SEND || this == SEND_IMM;
    }

    /** Whether the responder's memory is written at a remote address (WRITE, WRITE_IMM). */
    public boolean writesRemote() {
        return this == WRITE || this == WRITE_IMM;
    }

    /** Whether the payload lands in the responder's receive buffer (SEND, SEND_IMM). */
    public boolean landsInReceive() {
        return this == SEND || this == SEND_IMM;
    }

    /** Whether the completion carries an immediate value. */
    public boolean hasImmediate() {
        return this == WRITE_IMM || this == SEND_IMM;
    }
}
