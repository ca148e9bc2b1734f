package io.metaroce.core;

/**
 * What a {@link Path} keeps only once something went wrong on it: its timeout, spurious-timeout, failure and
 * re-admission counters, RTO-7's undo state and PATH-5's probe exchange. Made by {@link Path#faults()} on the first
 * such event; a path that never times out, fails or is probed keeps none (a QP may have 64 paths, most of which
 * never do).
 */
final class PathFaults {
    long timeouts;
    long spuriousTimeouts;
    long failures;
    long readmissions;
    /** RTO-7: a timeout series whose damage can still be undone when an ACK proves it spurious. */
    boolean rtoUndoArmed;
    /** RTO-7: when the series' first timeout fired. */
    long rtoAtNs;
    /** RTO-7: the path's floor at that timeout: an ACK covering it shows the originals arrived. */
    int rtoLowPsn;
    /** PATH-10: the id the next probe carries and its reply must echo. */
    long probeId;
    /** PATH-6: probe replies in a row since the path failed. */
    int probeSuccesses;
}
