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
 */
public record CmSettings(long firstRetryNs, long maxBackoffNs, int maxReqRetries, int maxDreqRetries,
                         long timeWaitNs) {
    /** The spec's recommendation (CM-4: 1 ms doubling, 8 retries) with TIME_WAIT {@code timeWaitNs}. */
    public static CmSettings recommended(long timeWaitNs) {
        return new CmSettings(1_000_000, Long.MAX_VALUE / 4, 8, 8, timeWaitNs);
    }

    public CmSettings {
        if (firstRetryNs <= 0 || maxBackoffNs < firstRetryNs || maxReqRetries < 0 || maxDreqRetries < 0
                || timeWaitNs < 0) {
            throw new IllegalArgumentException("bad CM settings: " + firstRetryNs + " " + maxBackoffNs + " "
                    + maxReqRetries + " " + maxDreqRetries + " " + timeWaitNs);
        }
    }
}
