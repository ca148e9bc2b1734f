package io.metaroce.cli.perf;

import io.metaroce.core.Counter;

import java.util.Locale;
import java.util.Map;

/**
 * The device's counters at the moment {@code --omit} ends, so that a bandwidth test's record gives the recovery
 * counters of the measured part ({@code timeouts_after_omit}, ...) beside the whole run's ({@code timeouts}, ...):
 * on the test bed every lossless run's timeouts fell in its first half second, while the JVMs compile the datapath
 * (2026-12-04), and a record that only gave the whole run could not tell.
 */
final class CountersAfterOmit {
    /** Each is written as its whole-run key in the record (the counter's name in lower case) + "_after_omit". */
    private static final Counter[] COUNTED = {Counter.TIMEOUTS, Counter.RETRANSMITS, Counter.PATH_FAILOVERS};

    private Map<Counter, Long> atOmit;

    /** {@code --omit} is over: {@code now} are the device's counters at this moment. */
    void mark(Map<Counter, Long> now) {
        atOmit = now;
    }

    /** Adds the counters' growth since {@link #mark} to {@code metrics}; nothing when there was no omission. */
    void fill(Map<String, Object> metrics, Map<Counter, Long> atEnd) {
        if (atOmit == null) {
            return;
        }
        for (Counter c : COUNTED) {
            metrics.put(c.name().toLowerCase(Locale.ROOT) + "_after_omit",
                    atEnd.getOrDefault(c, 0L) - atOmit.getOrDefault(c, 0L));
        }
    }
}
