package io.metaroce.core;

import java.util.EnumMap;
import java.util.Map;

/** A set of {@link Counter} values; plain longs, single-threaded like the engine that owns it. */
public final class Counters {
    /** All counters at zero. */
    public Counters() {
    }

    private final long[] values = new long[Counter.all().length];

    /** Current value of {@code c}. */
    public long get(Counter c) {
        return values[c.ordinal()];
    }

    void add(Counter c, long delta) {
        values[c.ordinal()] += delta;
    }

    void inc(Counter c) {
        values[c.ordinal()]++;
    }

    /** Sum of every {@code DROP_*} counter. */
    public long drops() {
        long sum = 0;
        for (Counter c : Counter.all()) {
            if (c.name().startsWith("DROP_")) {
                sum += values[c.ordinal()];
            }
        }
        return sum;
    }

    /** A snapshot of the non-zero counters, in declaration order. */
    public Map<Counter, Long> snapshot() {
        Map<Counter, Long> m = new EnumMap<>(Counter.class);
        for (Counter c : Counter.all()) {
            if (values[c.ordinal()] != 0) {
                m.put(c, values[c.ordinal()]);
            }
        }
        return m;
    }

    @Override
    public String toString() {
        return snapshot().toString();
    }
}
