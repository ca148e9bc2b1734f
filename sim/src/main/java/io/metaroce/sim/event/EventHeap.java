package io.metaroce.sim.event;

/**
 * A 4-ary min-heap of events on primitive arrays ordered by (time ps, sequence): the {@link EventLoop}'s store for
 * events beyond its calendar's window (timeouts far ahead). No allocation once the arrays have grown.
 */
final class EventHeap {
    private long[] times = new long[64];
    private long[] seqs = new long[64];
    private long[] args = new long[64];
    private EventHandler[] handlers = new EventHandler[64];
    private int size;

    /** Events held. */
    int size() { return size; }
    /** Time of the earliest event, ps; only when {@link #size} &gt; 0. */
    long minTime() { return times[0]; }
    /** Sequence of the earliest event. */
    long minSeq() { return seqs[0]; }
    /** Argument of the earliest event. */
    long minArg() { return args[0]; }
    /** Handler of the earliest event. */
    EventHandler minHandler() { return handlers[0]; }

    /** Adds an event. */
    void add(long timePs, long seq, long arg, EventHandler handler) {
        if (size == times.length) {
            int n = size * 2;
            times = java.util.Arrays.copyOf(times, n);
            seqs = java.util.Arrays.copyOf(seqs, n);
            args = java.util.Arrays.copyOf(args, n);
            handlers = java.util.Arrays.copyOf(handlers, n);
        }
        siftUp(size++, timePs, seq, arg, handler);
    }

    /** Places the entry (timePs, seq, arg, handler) at the hole {@code i} or above it, moving parents down. */
    private void siftUp(int i, long timePs, long seq, long arg, EventHandler handler) {
        while (i > 0) {
            int parent = (i - 1) >>> 2;
            long pt = times[parent];
            if (pt < timePs || (pt == timePs && seqs[parent] < seq)) {
                break;
            }
            times[i] = pt;
            seqs[i] = seqs[parent];
            args[i] = args[parent];
            handlers[i] = handlers[parent];
            i = parent;
        }
        times[i] = timePs;
        seqs[i] = seq;
        args[i] = arg;
        handlers[i] = handler;
    }

    /**
     * Removes the earliest event. Bottom-up deletion: the hole at the root sinks to a leaf along the smaller
     * children, then the last entry rises from there (it almost always belongs near the bottom); sequences are read
     * only when times tie.
     */
    void removeMin() {
        int last = --size;
        if (last == 0) {
            handlers[0] = null;
            return;
        }
        long[] ts = times;
        long[] ss = seqs;
        long[] as = args;
        EventHandler[] hs = handlers;
        int i = 0;
        int c;
        while ((c = (i << 2) + 1) < last) {
            int best = c;
            long bt = ts[c];
            int end = Math.min(c + 4, last);
            for (int j = c + 1; j < end; j++) {
                long jt = ts[j];
                if (jt < bt || (jt == bt && ss[j] < ss[best])) {
                    best = j;
                    bt = jt;
                }
            }
            ts[i] = bt;
            ss[i] = ss[best];
            as[i] = as[best];
            hs[i] = hs[best];
            i = best;
        }
        EventHandler h = hs[last];
        hs[last] = null;
        siftUp(i, ts[last], ss[last], as[last], h);
    }
}
