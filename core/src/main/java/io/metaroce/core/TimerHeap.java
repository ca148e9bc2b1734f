package io.metaroce.core;

/**
 * An indexed binary min-heap of {@link Timed} entries by their deadline: the engine's timer queues (one of queue
 * pairs, one of routes' pacing queues). Each entry keeps its position ({@code heapIndex}, -1 when absent) so that a
 * changed deadline is re-sifted in O(log n) and the earliest one is read in O(1), however many entries there are.
 */
final class TimerHeap<T extends Timed> {
    private Timed[] heap = new Timed[16];
    private int size;

    /** The earliest deadline, or {@link Engine#NO_DEADLINE}. */
    long peekDeadline() {
        return size == 0 ? Engine.NO_DEADLINE : heap[0].cachedDeadline;
    }

    @SuppressWarnings("unchecked")
    T peek() {
        return size == 0 ? null : (T) heap[0];
    }

    /** Puts {@code qp} at the place its {@code cachedDeadline} now calls for (inserting or removing it). */
    void update(T qp) {
        if (qp.cachedDeadline == Engine.NO_DEADLINE) {
            remove(qp);
            return;
        }
        int i = qp.heapIndex;
        if (i < 0) {
            if (size == heap.length) {
                heap = java.util.Arrays.copyOf(heap, size * 2);
            }
            heap[size] = qp;
            qp.heapIndex = size;
            siftUp(size++);
        } else {
            siftUp(i);
            siftDown(qp.heapIndex);
        }
    }

    void remove(T qp) {
        int i = qp.heapIndex;
        if (i < 0) {
            return;
        }
        Timed last = heap[--size];
        heap[size] = null;
        qp.heapIndex = -1;
        if (i < size) {
            heap[i] = last;
            last.heapIndex = i;
            siftUp(i);
            siftDown(last.heapIndex);
        }
    }

    private void siftUp(int i) {
        Timed q = heap[i];
        while (i > 0) {
            int parent = (i - 1) >>> 1;
            Timed p = heap[parent];
            if (p.cachedDeadline - q.cachedDeadline <= 0) {
                break;
            }
            heap[i] = p;
            p.heapIndex = i;
            i = parent;
        }
        heap[i] = q;
        q.heapIndex = i;
    }

    private void siftDown(int i) {
        Timed q = heap[i];
        int half = size >>> 1;
        while (i < half) {
            int c = 2 * i + 1;
            Timed child = heap[c];
            int r = c + 1;
            if (r < size && heap[r].cachedDeadline - child.cachedDeadline < 0) {
                c = r;
                child = heap[r];
            }
            if (q.cachedDeadline - child.cachedDeadline <= 0) {
                break;
            }
            heap[i] = child;
            child.heapIndex = i;
            i = c;
        }
        heap[i] = q;
        q.heapIndex = i;
    }

    int size() {
        return size;
    }
}
