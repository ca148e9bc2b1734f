package io.metaroce.core;

/**
 * One work completion, filled by {@link CompletionQueue#poll(WorkCompletion)} (a reusable holder, so polling
 * allocates nothing). Mirrors {@code struct ibv_wc}.
 */
public final class WorkCompletion {
    /** An empty holder to pass to CompletionQueue#poll. */
    public WorkCompletion() {
    }

    long wrId;
    WcStatus status;
    WcOpcode opcode;
    int byteLen;
    int immediate;
    boolean hasImmediate;
    int qpn;

    /** Fills this holder (for drivers that move completions between threads, like the real datapath). */
    public WorkCompletion set(long id, WcStatus st, WcOpcode op, int len, int imm, boolean hasImm, int qp) {
        this.wrId = id;
        this.status = st;
        this.opcode = op;
        this.byteLen = len;
        this.immediate = imm;
        this.hasImmediate = hasImm;
        this.qpn = qp;
        return this;
    }

    public long wrId() { return wrId; }
    public WcStatus status() { return status; }
    public WcOpcode opcode() { return opcode; }
    /** Bytes received (receive completions) or transferred. */
    public int byteLen() { return byteLen; }
    public int immediate() { return immediate; }
    public boolean hasImmediate() { return hasImmediate; }
    public int qpn() { return qpn; }

    @Override
    public String toString() {
        return "WC[wr=" + wrId + " " + opcode + " " + status + " len=" + byteLen
                + (hasImmediate ? " imm=" + immediate : "") + " qp=" + qpn + "]";
    }
}
