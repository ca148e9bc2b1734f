package io.metaroce.sim.run;

import io.metaroce.sim.metrics.Series;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * What one experiment point measured: named metrics (EXPERIMENTS.md names where one exists: {@code goodput_gbps},
 * {@code p99_completion_latency_us}, {@code drops}, {@code ecn_marks}, {@code pfc_pauses}, {@code retransmits},
 * {@code path_failovers}, ...), in insertion order, and the time series.
 */
public final class RunResult {
    /** An empty result. */
    public RunResult() {
    }

    /** Metric name to value (Long, Double, Boolean or String). */
    public final Map<String, Object> metrics = new LinkedHashMap<>();
    /** Recorded series. */
    public final List<Series> series = new ArrayList<>();
}
