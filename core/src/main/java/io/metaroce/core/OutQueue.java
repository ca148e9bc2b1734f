package io.metaroce.core;

/**
 * A ring of {@link SendWqe} in posting order: [head, tail) are outstanding, [nextToSend, tail) still have
 * segments never sent. Serials index it ({@code serial & mask}). It starts small and doubles up to its capacity (the
 * queue depth) as work is posted: thousands of QPs seldom fill their rings.
 */
final class OutQueue {
    private static final int INITIAL = 8;
    private final int capacity;
    SendWqe[] ring;
    int mask;
    long head;
    long tail;
    long nextToSend;

    OutQueue(int capacity) {
        this.capacity = capacity;
        ring = new SendWqe[Math.min(capacity, INITIAL)];
        mask = ring.length - 1;
    }

    /** Whether a message has segments never sent yet. */
    boolean hasNew() {
        return nextToSend < tail;
    }

    boolean full() {
        return tail - head >= capacity;
    }

    int outstanding() {
        return (int) (tail - head);
    }

    /** The entry for {@code serial}, made on first use; the ring grows first if [head, serial] does not fit. */
    SendWqe at(long serial) {
        if (serial - head >= ring.length) {
            grow(serial - head + 1);
        }
        int i = (int) (serial & mask);
        SendWqe w = ring[i];
        if (w == null) {
            w = ring[i] = new SendWqe();
        }
        return w;
    }

    private void grow(long needed) {
        int n = ring.length;
        while (n < needed) {
            n *= 2;
        }
        SendWqe[] bigger = new SendWqe[n];
        for (SendWqe w : ring) {
            if (w != null && w.serial >= head && w.serial < tail) {
                bigger[(int) (w.serial & (n - 1))] = w; // live entries keep their serial, so their new place
            }
        }
        ring = bigger;
        mask = n - 1;
    }

    /** The entry in the slot of {@code msn} (the send queue's serials are its MSNs), or null; the caller checks it. */
    SendWqe slotOfMsn(int msn) {
        return ring[msn & mask];
    }

    /** The live entry of {@code serial}, or null. */
    SendWqe live(long serial) {
        if (serial < head || serial >= tail) {
            return null;
        }
        SendWqe w = ring[(int) (serial & mask)];
        return w != null && w.serial == serial ? w : null;
    }

    /** Empties the queue and restarts serials at 0 (after RESET, when nothing refers to old entries). */
    void reset() {
        head = 0;
        tail = 0;
        nextToSend = 0;
        for (SendWqe w : ring) {
            if (w != null) {
                w.serial = -1;
                w.local = null;
            }
        }
    }

    void clear() {
        head = tail;
        nextToSend = tail;
    }
}
