package io.metaroce.sim.event;

/** Receives events from an {@link EventLoop}; {@code arg} is the long given at scheduling (often a packet id). */
@FunctionalInterface
public interface EventHandler {
    /** Handles one event at the loop's current virtual time; {@code arg} as scheduled. */
    void onEvent(long arg);
}
