package io.metaroce.core;

import java.util.Arrays;

/**
 * Posted receives in posting order; the n-th SEND (by RSN) lands in the n-th receive (spec ORD-3). A ring that starts
 * small and doubles up to its capacity (the receive queue depth) as receives are posted.
 */
final class RecvQueue {
    private static final int INITIAL = 8;
    private final int capacity;
    long[] wrIds;
    MemoryRegion[] mrs;
    long[] offsets;
    int[] lengths;
    /** RSN of the oldest posted receive. */
    int headRsn;
    int headIdx;
    int count;

    RecvQueue(int capacity) {
        this.capacity = capacity;
        int n = Math.min(capacity, INITIAL);
        wrIds = new long[n];
        mrs = new MemoryRegion[n];
        offsets = new long[n];
        lengths = new int[n];
    }

    boolean full() {
        return count == capacity;
    }

    void push(long wrId, MemoryRegion mr, long offset, int length) {
        if (count == wrIds.length) {
            grow();
        }
        int i = (headIdx + count) % wrIds.length;
        wrIds[i] = wrId;
        mrs[i] = mr;
        offsets[i] = offset;
        lengths[i] = length;
        count++;
    }

    private void grow() {
        int n = Math.min(capacity, wrIds.length * 2);
        long[] w = new long[n];
        MemoryRegion[] m = new MemoryRegion[n];
        long[] o = new long[n];
        int[] l = new int[n];
        for (int k = 0; k < count; k++) {
            int i = (headIdx + k) % wrIds.length;
            w[k] = wrIds[i];
            m[k] = mrs[i];
            o[k] = offsets[i];
            l[k] = lengths[i];
        }
        wrIds = w;
        mrs = m;
        offsets = o;
        lengths = l;
        headIdx = 0;
    }

    /** Index of the receive for {@code rsn}, or -1 when it is not posted (yet). */
    int indexOf(int rsn) {
        int rel = rsn - headRsn;
        if (rel < 0 || rel >= count) {
            return -1;
        }
        return (headIdx + rel) % wrIds.length;
    }

    int headIndex() {
        return headIdx;
    }

    void reset() {
        Arrays.fill(mrs, null);
        headRsn = 0;
        headIdx = 0;
        count = 0;
    }

    void pop() {
        mrs[headIndex()] = null;
        headRsn++;
        headIdx = (headIdx + 1) % wrIds.length;
        count--;
    }
}
