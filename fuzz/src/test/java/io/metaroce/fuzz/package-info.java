/**
 * Jazzer fuzz tests of every parser of untrusted input: packets, the engine's datagram input (with canary memory
 * around a registered region), CM messages, experiment files and conformance scripts. Without {@code JAZZER_FUZZ}
 * they replay the committed corpus under {@code src/test/resources}; {@code fuzz/run.sh} fuzzes.
 */
package io.metaroce.fuzz;
