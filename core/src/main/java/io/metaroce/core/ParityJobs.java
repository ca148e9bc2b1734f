package io.metaroce.core;

/**
 * REL-18, sender side: the PARITY packets a QP owes, one per group of segments whose last segment has just gone out
 * for the first time (queue, message serial, first segment, segment count, path). A PARITY goes at the QP's next
 * poll, so the ring seldom holds more than one; its arrays are made on first use and never grow: when full, the
 * oldest job is dropped (a PARITY is a hint, the segments it covers are still recovered by resends).
 */
final class ParityJobs {
    static final int CAPACITY = 16;
    private static final int MASK = CAPACITY - 1;

    private byte[] queue;
    private long[] serial;
    private int[] first;
    private int[] count;
    private int[] path;
    private int head;
    private int size;
    /** Index of the job last taken by {@link #take()}. */
    private int taken;

    boolean isEmpty() {
        return size == 0;
    }

    void clear() {
        size = 0;
    }

    /** Appends a job; when full, the oldest is dropped first. */
    void push(int q, long wqeSerial, int firstSeg, int segments, int pathId) {
        if (queue == null) {
            queue = new byte[CAPACITY];
            serial = new long[CAPACITY];
            first = new int[CAPACITY];
            count = new int[CAPACITY];
            path = new int[CAPACITY];
        }
        if (size == CAPACITY) {
            head = (head + 1) & MASK;
            size--;
        }
        int i = (head + size) & MASK;
        queue[i] = (byte) q;
        serial[i] = wqeSerial;
        first[i] = firstSeg;
        count[i] = segments;
        path[i] = pathId;
        size++;
    }

    /** Removes the oldest job; its fields are then read with the accessors below until the next change. */
    void take() {
        taken = head;
        head = (head + 1) & MASK;
        size--;
    }

    int queue() {
        return queue[taken];
    }

    long serial() {
        return serial[taken];
    }

    int first() {
        return first[taken];
    }

    int count() {
        return count[taken];
    }

    int path() {
        return path[taken];
    }
}
