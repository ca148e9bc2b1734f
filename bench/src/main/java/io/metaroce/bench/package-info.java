/**
 * JMH benchmarks: the engine alone (two engines in memory) against a copy-only baseline in the same run; run
 * with {@code bench/engine.sh}, which prints packets per second and bytes allocated per packet.
 */
package io.metaroce.bench;
