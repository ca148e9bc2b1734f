package io.metaroce.sim.event;

/** Receives events from an {@link EventLoop}; {@code arg} is the long given at scheduling (often a packet id). */
@FunctionalInterface
public interface EventHandler {
    void onEvent(long arg);
}
