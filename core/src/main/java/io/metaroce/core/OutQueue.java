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
        ring = new SendWqe[capacity];
        for (int i = 0; i < capacity; i++) {
            ring[i] = new SendWqe();
        }
        mask = capacity - 1;
    }

    boolean full() {
        return tail - head >= ring.length;
    }

    int outstanding() {
        return (int) (tail - head);
    }

    SendWqe at(long serial) {
        return ring[(int) (serial & mask)];
    }

    /** The live entry at {@code slot} if its serial matches, else null. */
    SendWqe live(int slot, long serial) {
        SendWqe w = ring[slot & mask];
        return w.serial == serial && serial >= head && serial < tail ? w : null;
    }

    /** Empties the queue and restarts serials at 0 (after RESET, when nothing refers to old entries). */
    void reset() {
        head = 0;
        tail = 0;
        nextToSend = 0;
        for (SendWqe w : ring) {
            w.serial = -1;
            w.local = null;
        }
    }

    void clear() {
        head = tail;
        nextToSend = tail;
    }
}
