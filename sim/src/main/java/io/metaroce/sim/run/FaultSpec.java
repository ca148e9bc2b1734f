package io.metaroce.sim.run;

/** One scripted fault at a virtual time. */
public final class FaultSpec {
    /** An empty fault (fields set by name from YAML). */
    public FaultSpec() {
    }

    /**
     * {@code plane-down}, {@code plane-up} (every link of {@code plane}), {@code link-down}, {@code link-up}
     * ({@code link} by name, e.g. {@code p0.leaf0>spine1}), {@code link-loss} (set {@code loss} on {@code link},
     * or on every link when {@code link} is empty), {@code link-rate} is not modelled.
     */
    public String kind = "";
    /** When the fault happens. */
    public long atPs;
    /** Plane for plane faults. */
    public int plane;
    /** Link name for link faults. */
    public String link = "";
    /** Loss probability for link-loss. */
    public double loss;
}
