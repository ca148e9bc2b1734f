package io.metaroce.sim.event;

/**
 * The discrete-event loop: a 4-ary min-heap on primitive arrays ordered by (time ps, sequence), so ties break
 * in scheduling order and every run with the same inputs is identical. No allocation per event once the arrays
 * have grown to the run's peak. Not thread-safe; one loop per simulation (no statics).
 *
 * <p>Cancellation is lazy: {@link Timer} remembers the sequence number of its one pending entry and ignores
 * stale firings, so nothing is ever removed from the middle of the heap.
 */
public final class EventLoop {
    private long[] times = new long[1024];
    private long[] seqs = new long[1024];
    private long[] args = new long[1024];
    private EventHandler[] handlers = new EventHandler[1024];
    private int size;
    private int peakSize;
    private long nextSeq;
    private long nowPs;
    private long currentSeq = -1;
    private long eventsProcessed;
    private boolean stopRequested;

    /** An empty loop at time 0. */
    public EventLoop() {
    }

    /** Current virtual time, picoseconds. */
    public long nowPs() { return nowPs; }
    /** Current virtual time in nanoseconds (floor): the engines' clock. */
    public long nowNs() { return nowPs / Units.PS_PER_NS; }
    /** Events handled since the loop was made. */
    public long eventsProcessed() { return eventsProcessed; }
    /** Events scheduled and not yet handled (cancelled timers' stale events included). */
    public int pending() { return size; }
    /** The most events ever pending at once (the heap's high-water mark). */
    public int peakPending() { return peakSize; }
    /** Sequence number of the event being dispatched (for lazy cancellation). */
    public long currentSeq() { return currentSeq; }

    /** Asks {@link #run} to return after the current event. */
    public void stop() { stopRequested = true; }

    /**
     * Schedules {@code handler.onEvent(arg)} at {@code timePs} (clamped to now); returns the event's sequence
     * number, unique and increasing.
     */
    public long schedule(long timePs, EventHandler handler, long arg) {
        if (timePs < nowPs) {
            timePs = nowPs;
        }
        if (size == times.length) {
            grow();
        }
        long seq = nextSeq++;
        // sift up (4-ary)
        int i = size++;
        if (size > peakSize) {
            peakSize = size;
        }
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
        return seq;
    }

    /** Schedules {@code handler} {@code delayPs} from now. */
    public long scheduleIn(long delayPs, EventHandler handler, long arg) {
        return schedule(nowPs + delayPs, handler, arg);
    }

    private void grow() {
        int n = times.length * 2;
        times = java.util.Arrays.copyOf(times, n);
        seqs = java.util.Arrays.copyOf(seqs, n);
        args = java.util.Arrays.copyOf(args, n);
        handlers = java.util.Arrays.copyOf(handlers, n);
    }

    /**
     * Dispatches events in order until the queue is empty, {@link #stop()} is called, or the next event lies
     * after {@code untilPs} (then time advances to {@code untilPs}). Returns true if stopped by {@link #stop()}.
     */
    public boolean run(long untilPs) {
        stopRequested = false;
        while (size > 0) {
            long t = times[0];
            if (t > untilPs) {
                nowPs = untilPs;
                return false;
            }
            EventHandler h = handlers[0];
            long arg = args[0];
            currentSeq = seqs[0];
            removeTop();
            nowPs = t;
            eventsProcessed++;
            h.onEvent(arg);
            if (stopRequested) {
                stopRequested = false;
                return true;
            }
        }
        if (untilPs != Long.MAX_VALUE && untilPs > nowPs) {
            nowPs = untilPs;
        }
        return false;
    }

    /**
     * Removes the root. Bottom-up ("Wegener's") deletion: the hole left by the root sinks to a leaf along the
     * smaller children, comparing children only; then the heap's last entry, which almost always belongs near the
     * bottom, rises from that leaf. That saves the comparison with the last entry at every level of a plain sift
     * down. Sequences are read only when times tie. Any valid heap of distinct (time, sequence) keys pops in the
     * same order, so the order of events does not depend on the deletion scheme.
     */
    private void removeTop() {
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
        long t = ts[last];
        long s = ss[last];
        while (i > 0) {
            int parent = (i - 1) >>> 2;
            long pt = ts[parent];
            if (pt < t || (pt == t && ss[parent] < s)) {
                break;
            }
            ts[i] = pt;
            ss[i] = ss[parent];
            as[i] = as[parent];
            hs[i] = hs[parent];
            i = parent;
        }
        ts[i] = t;
        ss[i] = s;
        as[i] = as[last];
        hs[i] = hs[last];
        hs[last] = null;
    }
}
