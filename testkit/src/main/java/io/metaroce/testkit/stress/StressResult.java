package io.metaroce.testkit.stress;

/**
 * What one case came to.
 *
 * @param seed       the case's seed
 * @param passed     every check held
 * @param category   the failed check's class ({@code ok}, {@code stall}, {@code error:<status>}, {@code order},
 *                   {@code data}, {@code internal}, {@code qp-error}, {@code post}, {@code exception})
 * @param reason     one line: what failed, where, with the counters that point at a cause
 * @param detail     several lines: every unfinished QP's state, paths and counters (empty when passed)
 * @param virtualNs  virtual time at the end, ns
 * @param operations work requests in the case
 * @param bytes      payload bytes in the case
 * @param events     network events processed (a measure of the case's cost)
 * @param trimmed    data packets the network trimmed to their headers (REL-17; 0 without trimming switches)
 * @param rebuilt    segments receivers rebuilt from parities (REL-18, -20, -21; 0 without {@code parityTailSegments})
 */
public record StressResult(long seed, boolean passed, String category, String reason, String detail, long virtualNs,
                           int operations, long bytes, long events, long trimmed, long rebuilt) {

    /** One line for a summary: seed, class and reason. */
    public String line() {
        return "seed " + seed + " " + category + ": " + reason;
    }
}
