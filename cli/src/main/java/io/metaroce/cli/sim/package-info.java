/**
 * {@code metaroce sim}: runs experiment files through the simulator (every point of a sweep), with progress
 * and the records, CSVs and plots of each run.
 */
package io.metaroce.cli.sim;
