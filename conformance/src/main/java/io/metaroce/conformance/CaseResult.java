package io.metaroce.conformance;

import java.util.List;
import java.util.Map;

/**
 * The outcome of one case against one target.
 *
 * @param name     case name
 * @param file     script file
 * @param section  section (directory) of the case
 * @param title    case title
 * @param ids      spec IDs checked
 * @param level    MUST or SHOULD
 * @param status   PASS, FAIL, SKIP or ERROR (a script or target problem)
 * @param message  why it failed or was skipped ("" when it passed)
 * @param line     script line of the failure, or 0
 * @param diffs    for a failed {@code expect}: each expected field against the actual packet's value
 * @param actual   for a failed {@code expect}: the closest actual packet, decoded (empty if none)
 * @param trace    what happened, one line per event ({@code >} tester to IUT, {@code <} IUT to tester)
 * @param millis   wall-clock run time of the case
 */
public record CaseResult(String name, String file, String section, String title, List<String> ids, String level,
                         Status status, String message, int line, List<FieldDiff> diffs, Map<String, String> actual,
                         List<String> trace, long millis) {

    /** Case outcome. */
    public enum Status {
        /** Every step held. */
        PASS,
        /** A step did not hold: the IUT does not conform. */
        FAIL,
        /** Not run: the target lacks a capability the case needs. */
        SKIP,
        /** The case could not be run (a script or target error). */
        ERROR
    }

    /**
     * One field of a failed expectation.
     *
     * @param field    field name
     * @param expected the matcher as written
     * @param actual   the actual value, rendered
     * @param ok       whether it matched
     */
    public record FieldDiff(String field, String expected, String actual, boolean ok) {
    }

    /** Whether this result counts as a failure of the run (FAIL or ERROR). */
    public boolean failed() {
        return status == Status.FAIL || status == Status.ERROR;
    }
}
