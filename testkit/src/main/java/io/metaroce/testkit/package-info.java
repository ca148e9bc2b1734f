/**
 * The deterministic harness: N engines on virtual time joined by a simulated network with per-path latency,
 * loss, reordering, duplication, corruption, ECN and path or plane failures; what protocol tests and the demo
 * drive.
 */
package io.metaroce.testkit;
