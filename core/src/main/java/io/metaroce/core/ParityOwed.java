package io.metaroce.core;

/**
 * REL-18, REL-20, REL-21, sender side: the parity a QP owes, if any (its message's queue and serial, the path it goes
 * on and which repair of its group it is). A poll sends an owed parity before any data, so a second one can only be
 * owed after the first went or was found of no use (each further repair is owed as the one before it goes): one slot
 * is enough (one owed while another is would replace it).
 */
final class ParityOwed {
    private boolean owed;
    private int queue;
    private long serial;
    private int path;
    private int repair;
    private int count;

    boolean isEmpty() {
        return !owed;
    }

    void clear() {
        owed = false;
    }

    void owe(int wqeQueue, long wqeSerial, int pathId, int repairIndex, int repairCount) {
        owed = true;
        queue = wqeQueue;
        serial = wqeSerial;
        path = pathId;
        repair = repairIndex;
        count = repairCount;
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

    /** Which repair of its group the owed parity is: 0 the PARITY, 1 the PARITY_Q (REL-20), 2 and up a PARITY_R. */
    int repair() {
        return repair;
    }

    /** How many parities the owed one's group gets (REL-20, REL-21): the next repair is owed while below it. */
    int count() {
        return count;
    }
}
