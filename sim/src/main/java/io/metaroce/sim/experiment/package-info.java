/**
 * Experiment files ({@code docs/experiments/README.md}): parsing into an {@code ExperimentSpec}, sweeps and
 * conditional overrides, derived metrics, acceptance criteria, and the records, CSVs and plots of a run.
 */
package io.metaroce.sim.experiment;
