package io.metaroce.sim.event;

/** Receives events from an {@link EventLoop}; {@code arg} is the long given at scheduling (often a packet id). */
@FunctionalInterface
public interface EventHandler {
    /** Handles one event at the loop's current virtual time; {@code arg} as scheduled. */
    void onEvent(long arg);

    /**
     * Reads, changing nothing, what the next {@link #onEvent} reads first (a link: the head of its ring), and
     * returns any value computed from it. The loop calls it on the handler of the event after the one it is about
     * to dispatch, so that the cache misses of those first reads overlap the current event's work instead of
     * starting the next one. The default reads nothing.
     */
    default long warm() {
        return 0;
    }

    /**
     * As {@link #warm}, one step further: reads what the state {@code warm} read leads to (a link: the output
     * port the far switch will queue its head packet on). The loop calls it one event after {@code warm}, on the
     * handler of the event it is about to dispatch next. The default reads nothing.
     */
    default long warmFurther() {
        return 0;
    }
}
