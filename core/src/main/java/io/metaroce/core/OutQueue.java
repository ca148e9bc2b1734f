package io.metaroce.core;

/**
 * A ring of {@link SendWqe} in posting order: [head, tail) are outstanding, [nextToSend, tail) still have
 * segments never sent. Serials index it ({@code slot = serial & mask}).
 */
final class OutQueue {
    final SendWqe[] ring;
    final int mask;
    long head;
    long tail;
    long nextToSend;

    OutQueue(int capacity) {
        ring = new SendWqe[capacity]; // entries made on first use: thousands of QPs seldom fill their rings
        mask = capacity - 1;
    }

    boolean full() {
        return tail - head >= ring.length;
    }

    int outstanding() {
        return (int) (tail - head);
    }

    SendWqe at(long serial) {
        return entry((int) (serial & mask));
    }

    /** The entry at ring index {@code slot & mask}, made on first use. */
    SendWqe entry(int slot) {
        SendWqe w = ring[slot & mask];
        if (w == null) {
            w = ring[slot & mask] = new SendWqe();
        }
        return w;
    }

    /** The live entry at {@code slot} if its serial matches, else null. */
    SendWqe live(int slot, long serial) {
        SendWqe w = ring[slot & mask];
        return w != null && w.serial == serial && serial >= head && serial < tail ? w : null;
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
