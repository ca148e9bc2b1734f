/**
 * Experiment files ({@code docs/experiments/README.md}): parsing into an {@code ExperimentSpec}, sweeps and
 * conditional overrides, shards and their merge, derived metrics, acceptance criteria, and the records, CSVs and
 * summaries of a run. What the charts show is assembled here and drawn through {@link
 * io.metaroce.sim.experiment.Charts}, which the caller supplies (the command line draws with JFreeChart), so the
 * simulator carries no graphics library.
 */
package io.metaroce.sim.experiment;
