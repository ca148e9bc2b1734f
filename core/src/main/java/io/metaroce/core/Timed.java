package io.metaroce.core;

/**
 * Something the engine times in a {@link TimerHeap}: its deadline as last computed (the heap's key, in ns of the
 * engine's clock, {@link Engine#NO_DEADLINE} for none) and its place in that heap (-1 when absent).
 */
abstract class Timed {
    long cachedDeadline = Engine.NO_DEADLINE;
    int heapIndex = -1;
}
