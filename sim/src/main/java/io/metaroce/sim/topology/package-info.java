/**
 * Topologies built from {@code io.metaroce.sim.fabric} parts: the two-tier leaf-spine and the k-ary fat-tree (one
 * graph per plane, ECMP or adaptive routing), their routing control plane for failed links, the names of their
 * links and ports as experiment files write them, and {@link io.metaroce.sim.topology.Topologies#build}, which
 * builds the one a configuration names.
 */
package io.metaroce.sim.topology;
