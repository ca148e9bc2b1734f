/**
 * Measuring a run: the periodic sampler and its time series ({@link io.metaroce.sim.metrics.Series}), fabric-wide
 * counters, the collective (nccl-tests) and loss metrics, FCT slowdown, the congestion-tree view of hotspots and
 * storms, and the hot-link ground truth a controller is judged by.
 */
package io.metaroce.sim.metrics;
