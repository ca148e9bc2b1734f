/**
 * The fabric's parts: packets and their pool, links (delay, rate, random loss, up/down), switches and their
 * output-queued ports (drop-tail, ECN marking, PFC, trimming), failure detection on a cable, constant-rate filler
 * traffic, the {@link io.metaroce.sim.fabric.FabricConfig configuration} and the {@link io.metaroce.sim.fabric.Fabric}
 * interface transports and workloads see. Topologies that wire these parts are in {@code io.metaroce.sim.topology}.
 */
package io.metaroce.sim.fabric;
