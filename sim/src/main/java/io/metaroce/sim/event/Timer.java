package io.metaroce.sim.event;

/**
 * A cancellable, re-armable timer with at most one live firing: re-arming or cancelling makes the previous
 * heap entry stale (it is skipped when it surfaces, without allocation).
 */
public final class Timer implements EventHandler {
    private final EventLoop loop;
    private final EventHandler action;
    private long pendingSeq = -1;
    private long atPs = Long.MAX_VALUE;
    private long fired;
    private long stale;

    /** A timer on {@code loop} that calls {@code action.onEvent(arg)} when it fires. */
    public Timer(EventLoop loop, EventHandler action) {
        this.loop = loop;
        this.action = action;
    }

    /** Arms (or re-arms) the timer for {@code timePs}. */
    public void set(long timePs, long arg) {
        atPs = Math.max(timePs, loop.nowPs());
        pendingSeq = loop.schedule(atPs, this, arg);
    }

    /** Disarms the timer; its pending event, if any, fires as a no-op. */
    public void cancel() {
        pendingSeq = -1;
        atPs = Long.MAX_VALUE;
    }

    /** True while the timer is set and has not fired or been cancelled. */
    public boolean isArmed() { return pendingSeq >= 0; }

    /** Time of the pending firing, or Long.MAX_VALUE. */
    public long atPs() { return atPs; }

    /** Firings delivered to the action. */
    public long fired() { return fired; }
    /** Heap entries skipped because the timer had been re-armed or cancelled since. */
    public long staleFirings() { return stale; }

    /** What the action's next firing reads first ({@link EventHandler#warm}). */
    @Override
    public long warm() {
        return action.warm();
    }

    @Override
    public void onEvent(long arg) {
        if (loop.currentSeq() != pendingSeq) {
            stale++;
            return; // stale
        }
        fired++;
        pendingSeq = -1;
        atPs = Long.MAX_VALUE;
        action.onEvent(arg);
    }
}
