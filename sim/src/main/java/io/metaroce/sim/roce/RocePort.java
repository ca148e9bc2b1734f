package io.metaroce.sim.roce;

import io.metaroce.sim.event.Timer;

import java.util.Arrays;

/**
 * RoCEv2 ({@link RoceTransport}): the sender side of one host NIC port: a min-heap of QPs with data to send keyed
 * by (earliest pacer time, order of entry), one timer, and the time the port's wire is busy until.
 */
final class RocePort {
    final int host;
    final int plane;
    final Timer timer;
    private final int planes;
    RoceQp[] heap = new RoceQp[8];
    int size;
    long busyUntilPs;
    long order;

    /** Port {@code plane} of {@code host} on a fabric of {@code planes}; {@code timer} wakes its pump. */
    RocePort(int host, int plane, int planes, Timer timer) {
        this.host = host;
        this.plane = plane;
        this.planes = planes;
        this.timer = timer;
    }

    /** Wakes the port's pump at {@code atPs} unless it is armed earlier already. */
    void arm(long atPs) {
        if (!timer.isArmed() || timer.atPs() > atPs) {
            timer.set(atPs, (long) host * planes + plane); // the argument names the port
        }
    }

    RoceQp peek() { return heap[0]; }

    void push(RoceQp qp) {
        if (size == heap.length) {
            heap = Arrays.copyOf(heap, size * 2);
        }
        qp.heapOrder = order++;
        int i = size++;
        while (i > 0) {
            int parent = (i - 1) >>> 1;
            if (!before(qp, heap[parent])) {
                break;
            }
            place(heap[parent], i);
            i = parent;
        }
        place(qp, i);
    }

    void pop() {
        RoceQp top = heap[0];
        top.heapPos = -1;
        RoceQp last = heap[--size];
        heap[size] = null;
        if (size == 0) {
            return;
        }
        int i = 0;
        while (true) {
            int c = 2 * i + 1;
            if (c >= size) {
                break;
            }
            if (c + 1 < size && before(heap[c + 1], heap[c])) {
                c++;
            }
            if (!before(heap[c], last)) {
                break;
            }
            place(heap[c], i);
            i = c;
        }
        place(last, i);
    }

    private void place(RoceQp qp, int i) {
        heap[i] = qp;
        qp.heapPos = i;
    }

    private boolean before(RoceQp a, RoceQp b) {
        return a.nextSendPs < b.nextSendPs || (a.nextSendPs == b.nextSendPs && a.heapOrder < b.heapOrder);
    }
}
