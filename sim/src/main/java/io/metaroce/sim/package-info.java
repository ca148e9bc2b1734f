/**
 * The discrete-event fabric simulator: an event loop in integer picoseconds, links, output-queued switch ports
 * (drop-tail, ECN, PFC), leaf-spine and fat-tree fabrics with ECMP or adaptive routing, faults, hosts running
 * the real engine, the RoCEv2 baseline (go-back-N, DCQCN), workloads, metrics and time series.
 */
package io.metaroce.sim;
