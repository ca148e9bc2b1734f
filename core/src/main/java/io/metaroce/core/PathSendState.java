package io.metaroce.core;

/**
 * The sending direction of a {@link Path} beyond what the transmit path touches on each packet: the RTT estimate
 * (RTO-1, CC-4), the timeout backoff and timeouts in a row (RTO-3, PATH-2), the highest acknowledged PSN (REL-14),
 * the last CE echo (PATH-3), the tail-loss probe (RTO-6, RTO-8), the ECN and SACK-gap counters and the bytes in
 * flight. Made by {@link Path#tx()} when the path first takes a packet into flight or hears an ACK or a probe reply:
 * a path the scheduler never uses (most of a QP's paths when it has 64 and a short message) keeps none, and reads
 * through {@link Path}'s getters see the values {@link Path#resetTx} starts with.
 */
final class PathSendState {
    long inflightBytes;
    long srttNs;
    long rttvarNs;
    /** Smallest RTT sample since the path (re)started: its unloaded round trip (CC-4). */
    long minRttNs;
    int backoff;
    int consecutiveTimeouts;
    /** REL-14: the highest PSN acknowledged (valid once {@link #anyAcked}). */
    int highestAcked;
    boolean anyAcked;
    long lastCeNs = Long.MIN_VALUE;
    /** Tail-loss probes sent since the last progress (RTO-6: at most {@code tailProbes}). */
    byte tlps;
    /** RTO-8: when the first tail-loss probe since the last progress was due; an ACK echoing a packet sent since settles the tail. */
    long tlpAtNs;
    long ecnEchoes;
    long sackGaps;
    /** RTO-11: the timeout was put off to this time, while the progress was the one in {@link #rtoDeferredAt}. */
    long rtoDeferredTo;
    /** RTO-11: the path's last progress when its timeout was put off (MIN_VALUE: none was). */
    long rtoDeferredAt = Long.MIN_VALUE;

    /** Starts the direction again (what {@link Path#resetTx} clears; the counters and highest PSN stay). */
    void reset() {
        srttNs = 0;
        rttvarNs = 0;
        minRttNs = 0;
        backoff = 0;
        consecutiveTimeouts = 0;
        anyAcked = false;
        tlps = 0;
        lastCeNs = Long.MIN_VALUE;
        rtoDeferredAt = Long.MIN_VALUE;
    }
}
