/**
 * What hosts run over the fabric: the {@link io.metaroce.sim.transport.Transport} interface workloads drive, and
 * MetaRoCE's implementation, one real sans-IO engine per {@link io.metaroce.sim.transport.Host} on the virtual
 * clock, with its tail-recovery meter. The RoCEv2 baseline is in {@code io.metaroce.sim.roce}.
 */
package io.metaroce.sim.transport;
