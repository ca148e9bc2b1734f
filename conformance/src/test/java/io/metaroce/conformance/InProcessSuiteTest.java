package io.metaroce.conformance;

import io.metaroce.conformance.script.Script;
import io.metaroce.conformance.target.InProcessTarget;
import io.metaroce.conformance.target.Mutation;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The whole suite (MUST and SHOULD) against our engine in process: everything passes, except that cases needing a
 * capability the in-process target does not have (a second source address) are skipped.
 */
class InProcessSuiteTest {
    @Test
    void ourEnginePassesEveryCase() {
        Suite suite = Suite.builtIn();
        List<Script> cases = suite.select(null, System.getProperty("conformance.case"), true);
        assertTrue(!cases.isEmpty(), "no case selected");
        Runner runner = new Runner(0);
        List<String> failures = new ArrayList<>();
        int skipped = 0;
        try (InProcessTarget target = new InProcessTarget(Mutation.NONE, 42)) {
            for (Script s : cases) {
                CaseResult r = runner.run(s, target);
                if (r.status() == CaseResult.Status.SKIP) {
                    // only cases needing what no in-process engine has (a second source address)
                    assertTrue(s.requires().stream().anyMatch(c -> !target.capabilities().contains(c)), r.name());
                    skipped++;
                } else if (r.status() != CaseResult.Status.PASS) {
                    StringBuilder sb = new StringBuilder(r.status() + " " + r.name() + " (" + r.file() + ":"
                            + r.line() + "): " + r.message());
                    r.diffs().forEach(d -> sb.append("\n      ").append(d));
                    if (System.getProperty("conformance.trace") != null) {
                        r.trace().forEach(t -> sb.append("\n    ").append(t));
                    }
                    failures.add(sb.toString());
                }
            }
        }
        System.out.println(cases.size() + " cases run, " + failures.size() + " not passed, " + skipped
                + " skipped (capability missing in process)");
        assertEquals(List.of(), failures, String.join("\n", failures));
    }
}
