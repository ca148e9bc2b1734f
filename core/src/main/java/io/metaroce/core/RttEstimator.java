package io.metaroce.core;

/**
 * RFC 6298's smoothed RTT and RTT variation (RTO-2), kept the same way by a path, a route (PATH-15) and a peer.
 * Update {@code rttvar} first, from the estimate before the sample: {@code rttvar = rttvarAfter(srtt, rttvar, r);
 * srtt = srttAfter(srtt, r);}. An {@code srtt} of 0 means no sample yet.
 */
final class RttEstimator {
    private RttEstimator() {
    }

    /** The RTT variation after sample {@code r} (ns): {@code r / 2} on the first sample. */
    static long rttvarAfter(long srtt, long rttvar, long r) {
        return srtt == 0 ? r / 2 : rttvar + (Math.abs(srtt - r) - rttvar) / 4;
    }

    /** The smoothed RTT after sample {@code r} (ns): {@code r} on the first sample. */
    static long srttAfter(long srtt, long r) {
        return srtt == 0 ? r : srtt + (r - srtt) / 8;
    }
}
