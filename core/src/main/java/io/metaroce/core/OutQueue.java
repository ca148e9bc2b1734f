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

    void clear() {
        head = tail;
        nextToSend = tail;
    }
}
