package io.metaroce.sim.run;

import io.metaroce.core.EngineConfig;
import io.metaroce.sim.control.ControllerConfig;
import io.metaroce.sim.event.Units;
import io.metaroce.sim.fabric.FabricConfig;
import io.metaroce.sim.roce.RoceConfig;
import io.metaroce.sim.workload.WorkloadSpec;

import java.util.ArrayList;
import java.util.List;

/**
 * One simulated experiment point: everything a run needs. Plain public fields so an experiment file (YAML) and
 * {@code --set key=value} overrides address them by name: {@code seed}, {@code transport}, {@code fabric.linkLoss},
 * {@code engine.maxWindow}, {@code roce.rateAiMbps}, {@code workload.kind}, ... (see {@code SpecFields}).
 */
public final class ExperimentSpec {
    /** Defaults: a 16-host leaf-spine, MetaRoCE, a 1 MiB bulk permutation. */
    public ExperimentSpec() {
    }

    /** Experiment name (file name without extension by default). */
    public String name = "unnamed";
    /** Master seed: every random stream of the run splits off it. */
    public long seed = 1;
    /** {@code metaroce} or {@code rocev2}. */
    public String transport = "metaroce";
    /** The fabric (topology, rates, buffers, ECN, PFC, routing, link loss). */
    public final FabricConfig fabric = new FabricConfig();
    /**
     * MetaRoCE as deployed: every receiver grants its senders shares of its line rate (HINT-1..HINT-7; the host link
     * rate times the planes, what a real device reads from its links) unless {@code engine.inboundCapacityBps} sets
     * another capacity. {@code false}: no grants unless {@code engine.inboundCapacityBps} is set.
     */
    public boolean grants = true;
    /** MetaRoCE engine settings (planes are taken from the fabric). */
    public final EngineConfig engine = new EngineConfig();
    /** RoCEv2 baseline settings. */
    public final RoceConfig roce = new RoceConfig();
    /** What the hosts do. */
    public final WorkloadSpec workload = new WorkloadSpec();
    /** A central flow controller re-pinning flows off hot links (E7); off unless {@code controller.periodPs > 0}. */
    public final ControllerConfig controller = new ControllerConfig();
    /** Scripted faults, in any order. */
    public final List<FaultSpec> faults = new ArrayList<>();
    /** Period of the time series (goodput, queue depth, fairness). */
    public long sampleIntervalPs = Units.psFromUs(10);
    /**
     * The window the fairness series and {@code time_to_fair} judge: the Jain index over each flow's bytes in the
     * last {@code fairWindowPs}, sliding by one sample interval; a multiple of {@code sampleIntervalPs} (at most
     * {@code MAX_FAIR_WINDOW_INTERVALS} of them), 0 = one interval (a window per sample, not sliding).
     */
    public long fairWindowPs = 0;
    /** The most sample intervals one fairness window may span (the sampler keeps each flow's bytes for each). */
    public static final int MAX_FAIR_WINDOW_INTERVALS = 1000;

    /** The fairness window in force: {@link #fairWindowPs}, or one sample interval when that is 0. */
    public long fairWindowInForcePs() {
        return fairWindowPs > 0 ? fairWindowPs : sampleIntervalPs;
    }

    /** Virtual-time limit of the run; flows not done by then count as incomplete. */
    public long limitPs = Units.psFromUs(100_000);
    /**
     * Switch ports whose queue depth is recorded over time, by name ({@code Switch.name() + ":" + port}, e.g.
     * {@code p0.leaf0:0}) or the alias {@code receiver} (the port into the workload's first receiver on every plane).
     */
    public final List<String> watchPorts = new ArrayList<>();
    /**
     * Links whose transport throughput is recorded over time and summarised ({@code Link.name()}, e.g.
     * {@code p0.spine1>leaf2}), or the alias {@code cross-peers}: the link of {@code workload.crossPort} and every
     * link of the same plane into the same node from a node of the same kind (the parallel paths).
     */
    public final List<String> watchLinks = new ArrayList<>();
    /** Compare every delivered message with its source (costs a destination buffer per message). */
    public boolean verify = false;
    /** Most y columns of a per-flow or per-host series (the first ones are kept). */
    public int maxSeriesColumns = 32;
}
