package io.metaroce.conformance;

import java.util.List;
import java.util.Map;

/** A step whose expectation the IUT did not meet: the case FAILs with this message and these field diffs. */
final class StepFailure extends Exception {
    private static final long serialVersionUID = 1L;
    /** Field by field: what the step wanted and what the IUT did. */
    final transient List<CaseResult.FieldDiff> diffs;
    /** The closest packet the IUT sent, rendered field by field (empty when there was none). */
    final transient Map<String, String> actual;

    StepFailure(String message, List<CaseResult.FieldDiff> diffs, Map<String, String> actual) {
        super(message);
        this.diffs = diffs;
        this.actual = actual;
    }

    StepFailure(String message) {
        this(message, List.of(), Map.of());
    }
}
