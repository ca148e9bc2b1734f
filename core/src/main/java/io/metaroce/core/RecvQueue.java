package io.metaroce.core;

/** Posted receives in posting order; the n-th SEND (by RSN) lands in the n-th receive (spec ORD-3). */
final class RecvQueue {
    final long[] wrIds;
    final MemoryRegion[] mrs;
    final long[] offsets;
    final int[] lengths;
    /** RSN of the oldest posted receive. */
    int headRsn;
    int headIdx;
    int count;

    RecvQueue(int capacity) {
        wrIds = new long[capacity];
        mrs = new MemoryRegion[capacity];
        offsets = new long[capacity];
        lengths = new int[capacity];
    }

    boolean full() {
        return count == wrIds.length;
    }

    void push(long wrId, MemoryRegion mr, long offset, int length) {
        int i = (headIdx + count) % wrIds.length;
        wrIds[i] = wrId;
        mrs[i] = mr;
        offsets[i] = offset;
        lengths[i] = length;
        count++;
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
        java.util.Arrays.fill(mrs, null);
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
