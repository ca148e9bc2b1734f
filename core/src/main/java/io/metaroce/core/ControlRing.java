package io.metaroce.core;

/**
 * A bounded FIFO of control packets a QP owes its peer: NAKs (path, PSN, MSN, code, offset) or probe replies
 * (path, probe id, echoed timestamp). Its arrays are made on first use (most QPs never NAK or answer a probe)
 * and never grow: a full ring refuses, and the caller counts the overflow (the peer retries).
 */
final class ControlRing {
    /** Entries a ring holds. */
    static final int CAPACITY = 64;
    private static final int MASK = CAPACITY - 1;

    private int[] path;
    private int[] psn;
    private int[] msn;
    private int[] code;
    private int[] offset;
    private long[] id;
    private long[] ts;
    private int head;
    private int size;
    /** Index of the entry last taken by {@link #take()}. */
    private int taken;

    boolean isEmpty() {
        return size == 0;
    }

    boolean full() {
        return size == CAPACITY;
    }

    void clear() {
        size = 0;
    }

    /** Appends a NAK; false when full. */
    boolean pushNak(int pathId, int nakPsn, int nakMsn, int nakCode, int nakOffset) {
        int i = slot();
        if (i < 0) {
            return false;
        }
        path[i] = pathId;
        psn[i] = nakPsn;
        msn[i] = nakMsn;
        code[i] = nakCode;
        offset[i] = nakOffset;
        return true;
    }

    /** Appends a probe reply; false when full. */
    boolean pushReply(int pathId, long probeId, long echoTs) {
        int i = slot();
        if (i < 0) {
            return false;
        }
        path[i] = pathId;
        id[i] = probeId;
        ts[i] = echoTs;
        return true;
    }

    private int slot() {
        if (size == CAPACITY) {
            return -1;
        }
        if (path == null) {
            path = new int[CAPACITY];
            psn = new int[CAPACITY];
            msn = new int[CAPACITY];
            code = new int[CAPACITY];
            offset = new int[CAPACITY];
            id = new long[CAPACITY];
            ts = new long[CAPACITY];
        }
        return (head + size++) & MASK;
    }

    /** Removes the oldest entry; read it through the accessors below until the next take. */
    void take() {
        taken = head;
        head = (head + 1) & MASK;
        size--;
    }

    int path() { return path[taken]; }
    int psn() { return psn[taken]; }
    int msn() { return msn[taken]; }
    int code() { return code[taken]; }
    int offset() { return offset[taken]; }
    long id() { return id[taken]; }
    long ts() { return ts[taken]; }
}
