package io.metaroce.net;

/**
 * The engine's clock on a host whose cores are shared: it follows the monotonic clock, except that one step
 * (the time between two duty cycles) counts at most {@code maxStepNs}. When the agent thread was not scheduled
 * for longer than that, the rest of the gap is a scheduling stall, not network time: the protocol's timers
 * (RTO, loss detection, probes) do not see it, so a stall of either end is not taken for loss. Every step
 * longer than the limit is counted, with the time left out.
 */
final class StallClock {
    private final long maxStepNs;
    private long lastRealNs;
    private long nowNs;
    private long prevRealNs;
    private long prevNowNs;
    private long stalls;
    private long stalledNs;
    private long longestStallNs;

    /** Starts at {@code realNs}; {@code maxStepNs} {@code <= 0} turns the clamp off (engine time = real time). */
    StallClock(long realNs, long maxStepNs) {
        this.maxStepNs = maxStepNs;
        this.lastRealNs = realNs;
        this.nowNs = realNs;
        this.prevRealNs = realNs;
        this.prevNowNs = realNs;
    }

    /** Advances to the real time {@code realNs} and returns the engine's time (never decreasing). */
    long advance(long realNs) {
        long step = realNs - lastRealNs;
        if (step <= 0) {
            return nowNs;
        }
        prevRealNs = lastRealNs;
        prevNowNs = nowNs;
        lastRealNs = realNs;
        if (maxStepNs > 0 && step > maxStepNs) {
            stalls++;
            stalledNs += step - maxStepNs;
            longestStallNs = Math.max(longestStallNs, step);
            step = maxStepNs;
        }
        nowNs += step;
        return nowNs;
    }

    /**
     * The engine time of the real instant {@code realNs} of the last step (e.g. when a datagram arrived, between
     * the previous {@link #advance} and the last): the step's real time counts one for one up to the step's
     * engine length, so an arrival early in a stall keeps its place and one late in it is moved to the step's
     * end. Instants before the step map to its start, after it to its end.
     */
    long engineTimeOf(long realNs) {
        long into = realNs - prevRealNs;
        if (into <= 0) {
            return prevNowNs;
        }
        long length = nowNs - prevNowNs;
        return prevNowNs + (into < length ? into : length);
    }

    /**
     * ACK-12: how much longer, in real ns, a datagram that arrived at the real instant {@code realNs} has waited by
     * the last {@link #advance} than the engine's clock shows ({@code now() - engineTimeOf(realNs)}): the part of
     * its wait that a stall left out. 0 for an arrival after the last advance.
     */
    long leftOutNs(long realNs) {
        long left = (lastRealNs - realNs) - (nowNs - engineTimeOf(realNs));
        return left > 0 ? left : 0;
    }

    /** The engine time at the last {@link #advance}. */
    long now() {
        return nowNs;
    }

    /** How long to wait in real time, from the last {@link #advance}, for the engine deadline {@code deadlineNs}. */
    long untilNs(long deadlineNs) {
        return deadlineNs - nowNs;
    }

    /** Steps longer than the limit so far. */
    long stalls() {
        return stalls;
    }

    /**
     * The longest gap between two duty cycles so far that counted as a stall, in nanoseconds (0: none): a peer's
     * RTO with no datagram lost comes from a stall of the other end longer than its timer allows for.
     */
    long longestStallNs() {
        return longestStallNs;
    }

    /** Time left out of the engine's clock so far, in nanoseconds. */
    long stalledNs() {
        return stalledNs;
    }
}
