/**
 * Random stress of the engine's public API on the deterministic {@link io.metaroce.testkit.Network}: a
 * seed makes one case ({@link io.metaroce.testkit.stress.CaseGenerator}): 2-8 engines with a random
 * {@link io.metaroce.core.EngineConfig}, 1-64 QPs per connected pair, every operation and size class (0 bytes,
 * one packet, exact multiples of the MTU, many packets), initial PSNs near the 2^31 and 2^32 wraps, and a fault
 * plan (loss up to 20%, reordering, duplicates, corruption, CE marks, path and plane flaps) that heals at a
 * fixed time. {@link io.metaroce.testkit.stress.StressRun} runs the case on virtual time and checks that
 * every work request completes successfully, in posting order, exactly once, with every byte at the right
 * address and no other byte touched, no QP in ERROR and no internal error. Nothing here reads a clock or uses a
 * thread; the parallel batch runner is the CLI's {@code metaroce stress}.
 */
package io.metaroce.testkit.stress;
