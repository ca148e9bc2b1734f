package io.metaroce.sim.event;

/**
 * The discrete-event loop: events ordered by (time ps, sequence), so ties break in scheduling order and every run
 * with the same inputs is identical. Not thread-safe; one loop per simulation (no statics).
 *
 * <p>The store is a calendar queue: a wheel of 4,096 buckets of 4.1 ns covers the next 16.8 us, which holds
 * nearly every event of a fabric (a hop is a link delay plus a queue); an event goes into its bucket's list in
 * O(1) ({@link BucketLists}: an entry holds the event's time within its bucket and its node, so a bucket is read
 * without visiting its nodes), and a bucket is sorted once when its time comes, then read in order. Events beyond
 * the window (timeouts) wait in a 4-ary heap and enter the wheel when the window reaches them. A heap of every
 * pending event touched a new cache line per level and per array on each removal (the simulator's top frame at
 * 1,024 hosts).
 *
 * <p>Order inside a bucket: a bucket's list is in scheduling order (events that enter from the heap do so when
 * their bucket joins the window, before anything can be scheduled into it directly, and in (time, sequence)
 * order), so a stable sort by time gives (time, sequence). The result is the same order as any priority queue
 * over (time, sequence): the store does not change a simulated result.
 *
 * <p>Cancellation is lazy: {@link Timer} remembers the sequence number of its one pending entry and ignores
 * stale firings, so nothing is ever removed from the middle of the queue. No allocation per event once the
 * arrays have grown to the run's peak.
 */
public final class EventLoop {
    /** Bucket width: 2^12 ps. */
    private static final int SHIFT = 12;
    /** Buckets on the wheel (a power of two): 4,096 x 4.1 ns = 16.8 us ahead. */
    private static final int BUCKETS = 4096;
    private static final int MASK = BUCKETS - 1;
    private static final int NIL = -1;

    /**
     * Pending events on the wheel, two words per node: [2n] sequence (while free: the next free node), [2n + 1]
     * argument; the handler in {@code handlers[n]}. The time is in the node's bucket entry ({@link #entry}).
     */
    private long[] nodes = new long[2 * 1024];
    private EventHandler[] handlers = new EventHandler[1024];
    private int freeNode = NIL;
    private int nodesMade;
    private final BucketLists buckets = new BucketLists(BUCKETS);
    private final long[] occupied = new long[BUCKETS / 64];
    /** The bucket (time >>> SHIFT) whose events are in {@link #current}, sorted; its own list stays empty. */
    private long currentBucket;
    private int[] current = new int[256];
    private long[] currentTimes = new long[256]; // the times of current's nodes (inserting reads no node)
    private int currentPos;
    private int currentLen;
    private long[] sortKeys = new long[256];
    private long[] listed = new long[256]; // a bucket's entries in list order
    private final EventHeap far = new EventHeap();

    private int size;
    private int peakSize;
    private long nextSeq;
    private long nowPs;
    private long currentSeq = -1;
    private long eventsProcessed;
    private boolean stopRequested;
    /** What {@link #run} read ahead from the next events' handlers (see there): kept so the reads are not elided. */
    private Class<?> touched;
    private long warmth;

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
    /** The most events ever pending at once. */
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
        long seq = nextSeq++;
        if (++size > peakSize) {
            peakSize = size;
        }
        long ahead = (timePs >>> SHIFT) - currentBucket;
        if (ahead >= BUCKETS) {
            far.add(timePs, seq, arg, handler);
            return seq;
        }
        int n = newNode(seq, arg, handler);
        if (ahead <= 0) {
            insertCurrent(n, timePs);
        } else {
            append(timePs, n);
        }
        return seq;
    }

    /** Schedules {@code handler} {@code delayPs} from now. */
    public long scheduleIn(long delayPs, EventHandler handler, long arg) {
        return schedule(nowPs + delayPs, handler, arg);
    }

    private int newNode(long seq, long arg, EventHandler handler) {
        int n = freeNode;
        if (n != NIL) {
            freeNode = (int) nodes[2 * n];
        } else {
            if (nodesMade == handlers.length) {
                nodes = java.util.Arrays.copyOf(nodes, 4 * nodesMade);
                handlers = java.util.Arrays.copyOf(handlers, 2 * nodesMade);
            }
            n = nodesMade++;
        }
        nodes[2 * n] = seq;
        nodes[2 * n + 1] = arg;
        handlers[n] = handler;
        return n;
    }

    /** A bucket entry: node {@code n}'s time within its bucket (high word) and the node (low word). */
    private static long entry(long timePs, int n) {
        return (timePs & ((1L << SHIFT) - 1)) << 32 | n;
    }

    /** Appends node {@code n}, due at {@code timePs} (on the wheel, after the current bucket), to its bucket. */
    private void append(long timePs, int n) {
        int slot = (int) (timePs >>> SHIFT) & MASK;
        if (buckets.count(slot) == 0) {
            occupied[slot >>> 6] |= 1L << slot;
        }
        buckets.append(slot, entry(timePs, n));
    }

    /** An event of the current bucket (or earlier): after every pending event of the same or an earlier time. */
    private void insertCurrent(int n, long timePs) {
        if (currentLen == current.length) {
            if (currentPos > 0) {
                System.arraycopy(current, currentPos, current, 0, currentLen - currentPos);
                System.arraycopy(currentTimes, currentPos, currentTimes, 0, currentLen - currentPos);
                currentLen -= currentPos;
                currentPos = 0;
            } else {
                current = java.util.Arrays.copyOf(current, 2 * currentLen);
                currentTimes = java.util.Arrays.copyOf(currentTimes, 2 * currentLen);
            }
        }
        int[] c = current;
        long[] ct = currentTimes;
        int i = currentLen;
        while (i > currentPos && ct[i - 1] > timePs) {
            c[i] = c[i - 1];
            ct[i] = ct[i - 1];
            i--;
        }
        c[i] = n;
        ct[i] = timePs;
        currentLen++;
    }

    /** Moves to the next bucket holding events (the current one is used up; some event is pending). */
    private void advance() {
        long next = nextOccupied();
        if (far.size() > 0) {
            next = Math.min(next, far.minTime() >>> SHIFT);
        }
        currentBucket = next;
        while (far.size() > 0 && (far.minTime() >>> SHIFT) - next < BUCKETS) { // the window reached them
            long t = far.minTime();
            int n = newNode(far.minSeq(), far.minArg(), far.minHandler());
            far.removeMin();
            append(t, n);
        }
        load((int) next & MASK);
    }

    /** The first bucket after the current one whose list is not empty, or Long.MAX_VALUE. */
    private long nextOccupied() {
        int here = (int) currentBucket & MASK;
        int start = (here + 1) & MASK;
        int w = start >>> 6;
        long bits = occupied[w] & (-1L << start);
        for (int k = 0; k <= occupied.length; k++) { // one word more: the start word's bits below start (wrapped)
            if (bits != 0) {
                int slot = w << 6 | Long.numberOfTrailingZeros(bits);
                return currentBucket + ((slot - here) & MASK);
            }
            w = (w + 1) & (occupied.length - 1);
            bits = occupied[w];
        }
        return Long.MAX_VALUE;
    }

    /** Takes bucket {@code slot}'s list as the current events, sorted by time, stable (see the class comment). */
    private void load(int slot) {
        occupied[slot >>> 6] &= ~(1L << slot);
        int count = buckets.count(slot);
        if (listed.length < count) {
            listed = new long[Math.max(count, 2 * listed.length)];
            sortKeys = new long[listed.length];
        }
        long[] e = listed;
        buckets.take(slot, e);
        if (current.length < count) {
            current = new int[Math.max(count, 2 * current.length)];
            currentTimes = new long[current.length];
        }
        long base = currentBucket << SHIFT;
        boolean sorted = true;
        long prev = 0;
        for (int j = 0; j < count; j++) {
            long t = e[j] >>> 32;
            sorted &= t >= prev;
            prev = t;
            current[j] = (int) e[j];
            currentTimes[j] = base + t;
        }
        if (!sorted) {
            long[] keys = sortKeys;
            for (int j = 0; j < count; j++) {
                keys[j] = (e[j] >>> 32) << 32 | j; // time within the bucket, then list (scheduling) order
            }
            java.util.Arrays.sort(keys, 0, count);
            for (int j = 0; j < count; j++) {
                long key = keys[j];
                current[j] = (int) e[(int) key];
                currentTimes[j] = base + (key >>> 32);
            }
        }
        currentPos = 0;
        currentLen = count;
    }

    /**
     * Dispatches events in order until the queue is empty, {@link #stop()} is called, or the next event lies
     * after {@code untilPs} (then time advances to {@code untilPs}). Returns true if stopped by {@link #stop()}.
     */
    public boolean run(long untilPs) {
        stopRequested = false;
        while (size > 0) {
            if (currentPos == currentLen) {
                advance();
            }
            long t = currentTimes[currentPos];
            if (t > untilPs) {
                nowPs = untilPs;
                return false;
            }
            int n = current[currentPos++];
            int o = 2 * n;
            currentSeq = nodes[o];
            long arg = nodes[o + 1];
            EventHandler h = handlers[n]; // the slot keeps its reference until reused: handlers live for the run
            nodes[o] = freeNode;
            freeNode = n;
            size--;
            nowPs = t;
            eventsProcessed++;
            if (currentPos < currentLen) {
                // the next events' handlers (links and hosts, thousands of them) are cache misses when first read,
                // and so is what they lead to: read ahead in three steps, each from what the step before read
                // one event ago (the third event's header, the second's first reads, where the next one's lead),
                // so that those misses overlap this event's work instead of starting the next ones
                warmth += handlers[current[currentPos]].warmFurther();
                if (currentPos + 1 < currentLen) {
                    warmth += handlers[current[currentPos + 1]].warm();
                    if (currentPos + 2 < currentLen) {
                        touched = handlers[current[currentPos + 2]].getClass();
                    }
                }
            }
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
}
