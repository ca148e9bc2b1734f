package io.metaroce.sim.run;

/** Hears how far a run is, a few times per wall-clock second at most. */
@FunctionalInterface
public interface ProgressListener {
    /** Virtual time reached of {@code limitPs}, events so far, wall time so far. */
    void progress(long nowPs, long limitPs, long events, long wallNs);
}
