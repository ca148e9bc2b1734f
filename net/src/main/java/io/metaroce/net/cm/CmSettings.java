package io.metaroce.net.cm;

/**
 * Timers of a connection manager (CM-4, CM-10).
 *
 * @param firstRetryNs   the first CM_REQ / CM_DREQ retransmission timeout in ns, doubled at each retry
 * @param maxBackoffNs   the largest retransmission timeout in ns (the doubling stops there)
 * @param maxReqRetries  CM_REQ retransmissions before the attempt fails (a deadline given to {@code connect} may
 *                       end it earlier)
 * @param maxDreqRetries CM_DREQ retransmissions before the closing side gives up
 * @param timeWaitNs     how long, in ns, a closed or rejected attempt is remembered to answer duplicates
 *                       (TIME_WAIT, CM-10; the remembered REJ of CM-9)
 * @param rateLimitPerSecond with a pre-shared key: CM datagrams per second and source admitted to the MAC check
 *                       ({@link CmRateLimit}); 0 = no limit
 * @param rateLimitBurst the largest burst of CM datagrams per source, in datagrams
 */
public record CmSettings(long firstRetryNs, long maxBackoffNs, int maxReqRetries, int maxDreqRetries,
                         long timeWaitNs, long rateLimitPerSecond, int rateLimitBurst) {
    /** Default per-source rate of a keyed CM: 100,000 datagrams/s (at ~0.3 us a MAC check, 3% of a core). */
    public static final long DEFAULT_RATE_PER_SECOND = 100_000;
    /**
     * Default per-source burst: 8,192 datagrams, room for a client that opens 4,000 connections at once (a CM_REQ
     * and a CM_RTU each).
     */
    public static final int DEFAULT_BURST = 8_192;

    /**
     * The spec's recommendation (CM-4: 1 ms doubling, 8 retries) with TIME_WAIT {@code timeWaitNs} and the
     * default rate limit.
     */
    public static CmSettings recommended(long timeWaitNs) {
        return new CmSettings(1_000_000, Long.MAX_VALUE / 4, 8, 8, timeWaitNs, DEFAULT_RATE_PER_SECOND,
                DEFAULT_BURST);
    }

    /** These settings with a per-source rate limit of {@code perSecond} (0 = off) and {@code burst}. */
    public CmSettings withRateLimit(long perSecond, int burst) {
        return new CmSettings(firstRetryNs, maxBackoffNs, maxReqRetries, maxDreqRetries, timeWaitNs, perSecond,
                burst);
    }

    public CmSettings {
        if (firstRetryNs <= 0 || maxBackoffNs < firstRetryNs || maxReqRetries < 0 || maxDreqRetries < 0
                || timeWaitNs < 0 || rateLimitPerSecond < 0 || rateLimitPerSecond > 1_000_000_000L
                || rateLimitBurst < 1) {
            throw new IllegalArgumentException("bad CM settings: " + firstRetryNs + " " + maxBackoffNs + " "
                    + maxReqRetries + " " + maxDreqRetries + " " + timeWaitNs + " " + rateLimitPerSecond + " "
                    + rateLimitBurst);
        }
    }
}
