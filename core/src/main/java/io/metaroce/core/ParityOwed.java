package io.metaroce.core;

/**
 * REL-18, sender side: the PARITY a QP owes, if any (its message's queue and serial, and the path of the message's
 * last segment). A poll sends an owed PARITY before any data, so a second one can only be owed after the first went
 * or was found of no use: one slot is enough (one owed while another is would replace it).
 */
final class ParityOwed {
    private boolean owed;
    private int queue;
    private long serial;
    private int path;

    boolean isEmpty() {
        return !owed;
    }

    void clear() {
        owed = false;
    }

    void owe(int q, long wqeSerial, int pathId) {
        owed = true;
        queue = q;
        serial = wqeSerial;
        path = pathId;
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
}
