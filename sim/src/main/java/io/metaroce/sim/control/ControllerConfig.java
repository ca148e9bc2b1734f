package io.metaroce.sim.control;

import io.metaroce.sim.event.Units;

/**
 * A central flow controller (E7, seed 002's "telemetry + controller + dynamic routing"): every {@code periodPs}
 * it reads INT-like telemetry (per switch-to-switch link: bytes carried over the period, queue depth at the
 * sample, PFC pauses), finds hot links and re-pins the fastest flows crossing them to the least-loaded path by
 * changing their UDP source port entropy; each move takes effect {@code delayPs} after the sample (the control
 * loop: collection, computation, installation). Public fields of simple types: experiment files set them as
 * {@code controller.periodPs}, {@code controller.delayPs}, ...
 */
public final class ControllerConfig {
    /** Off by default. */
    public ControllerConfig() {
    }

    /** Telemetry sampling period T; 0 = no controller. */
    public long periodPs = 0;
    /** Control-loop delay D: from the sample to the new path being used. */
    public long delayPs = Units.psFromUs(10);
    /** A link is hot when the queue feeding it holds at least this many bytes at a sample (or it was paused). */
    public long hotQueueBytes = 100_000;
    /** Most flows re-pinned per period. */
    public int movesPerPeriod = 4;
    /** Random entropies tried per flow to move (the least-loaded resulting path wins). */
    public int candidates = 32;
    /**
     * Consecutive samples without a hot link that count as relieved (the ground truth of
     * {@code time_to_relieve_us}, taken every {@code sampleIntervalPs} with or without a controller).
     */
    public int reliefSamples = 3;
    /** Record the hot-link ground truth ({@code HotLinkWatch}) even without a controller (on with one). */
    public boolean watch = false;
}
