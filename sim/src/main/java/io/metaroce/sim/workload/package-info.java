/**
 * Traffic patterns driven over a {@code Transport}: bulk, incast, permutation, all-to-all, hotspot, storm and the
 * collectives (ring all-reduce, pairwise all-to-all) as nccl-tests runs them, their spec, and helpers (host lists
 * written as ranges, random derangements).
 */
package io.metaroce.sim.workload;
