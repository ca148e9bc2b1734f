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

    private void removeTop() {
        int last = --size;
        long t = times[last];
        long s = seqs[last];
        long a = args[last];
        EventHandler h = handlers[last];
        handlers[last] = null;
        if (last == 0) {
            return;
        }
        int i = 0;
        while (true) {
            int c = (i << 2) + 1;
            if (c >= last) {
                break;
            }
            int best = c;
            long bt = times[c];
            long bs = seqs[c];
            int end = Math.min(c + 4, last);
            for (int j = c + 1; j < end; j++) {
                long jt = times[j];
                if (jt < bt || (jt == bt && seqs[j] < bs)) {
                    best = j;
                    bt = jt;
                    bs = seqs[j];
                }
            }
            if (bt > t || (bt == t && bs > s)) {
                break;
            }
            times[i] = bt;
            seqs[i] = bs;
            args[i] = args[best];
            handlers[i] = handlers[best];
            i = best;
        }
        times[i] = t;
        seqs[i] = s;
        args[i] = a;
        handlers[i] = h;
    }
}
