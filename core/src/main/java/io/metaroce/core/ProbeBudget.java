package io.metaroce.core;

/**
 * PATH-13: the engine-wide budget of path probes, a token bucket refilled at {@link EngineConfig#probesPerSecond()}
 * with a burst of {@link #BURST}, so that a device with thousands of failed paths probes them in turn instead of all at
 * once.
 */
final class ProbeBudget {
    /** Tokens the bucket holds at most. */
    static final int BURST = 16;

    private final double perSecond;
    private final double perNs;
    private double tokens = BURST;
    private long refilledNs = Long.MIN_VALUE;

    ProbeBudget(EngineConfig cfg) {
        this.perSecond = cfg.probesPerSecond();
        this.perNs = perSecond / 1e9;
    }

    /** Takes one token; false when none is left. */
    boolean take(long nowNs) {
        if (refilledNs == Long.MIN_VALUE) {
            refilledNs = nowNs;
        }
        long dt = nowNs - refilledNs;
        if (dt > 0) {
            tokens = Math.min(BURST, tokens + dt * perNs);
            refilledNs = nowNs;
        }
        if (tokens >= 1) {
            tokens -= 1;
            return true;
        }
        return false;
    }

    /** When the next token will be there. */
    long nextTokenNs() {
        double missing = Math.max(0, 1 - tokens);
        return refilledNs + (long) Math.ceil(missing * 1e9 / perSecond);
    }
}
