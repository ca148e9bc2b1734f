/**
 * One simulated point: the {@link io.metaroce.sim.run.ExperimentSpec} that describes it, {@link
 * io.metaroce.sim.run.Experiment#run}, which builds the world from the spec's seed, schedules its faults, runs it
 * and returns named metrics and series ({@link io.metaroce.sim.run.RunResult}), and {@link
 * io.metaroce.sim.run.Simulation}, a scriptable run for tests and benchmarks. Experiment files and sweeps of
 * points are in {@code io.metaroce.sim.experiment}.
 */
package io.metaroce.sim.run;
