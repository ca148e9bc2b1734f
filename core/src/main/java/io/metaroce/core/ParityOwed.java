package io.metaroce.core;

/**
 * REL-18, REL-20, sender side: the PARITY or PARITY_Q a QP owes, if any (its message's queue and serial, the path it
 * goes on and which of the two it is). A poll sends an owed parity before any data, so a second one can only be owed
 * after the first went or was found of no use (a PARITY_Q is owed as its PARITY goes): one slot is enough (one owed
 * while another is would replace it).
 */
final class ParityOwed {
    private boolean owed;
    private int queue;
    private long serial;
    private int path;
    private boolean q;

    boolean isEmpty() {
        return !owed;
    }

    void clear() {
        owed = false;
    }

    void owe(int wqeQueue, long wqeSerial, int pathId, boolean parityQ) {
        owed = true;
        queue = wqeQueue;
        serial = wqeSerial;
        path = pathId;
        q = parityQ;
    }

    /** Takes the owed PARITY: it is owed no more; its fields are read with the accessors below. */
    void take() {
        owed = false;
    }

    int queue() {
        return queue;
    }

    long serial() {
        return serial;
    }

    int path() {
        return path;
    }

    /** Whether the owed parity is the PARITY_Q (REL-20) rather than the PARITY. */
    boolean q() {
        return q;
    }
}
