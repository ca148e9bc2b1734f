package io.metaroce.conformance;

import io.metaroce.conformance.script.Script;
import io.metaroce.conformance.target.InProcessTarget;
import io.metaroce.conformance.target.Mutation;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Reports of a run with passing and failing cases (a broken engine): well-formed, complete, with diffs. */
class ReportsTest {
    @Test
    void reportsShowPassesAndFailuresFieldByField(@TempDir Path dir) throws Exception {
        Suite suite = Suite.builtIn();
        List<Script> cases = new ArrayList<>(suite.select("sack", null, false));
        SuiteRun run;
        try (InProcessTarget t = new InProcessTarget(Mutation.SACK_OFF_BY_ONE, 1)) {
            run = SuiteRun.run(cases, t, new Runner(0), false, r -> { });
        }
        assertFalse(run.passed());
        assertTrue(run.count(CaseResult.Status.FAIL) > 0 && run.count(CaseResult.Status.PASS) > 0);
        List<Path> files = Reports.writeAll(run, dir);
        assertEquals(3, files.size());

        String xml = Files.readString(files.get(0));
        assertTrue(xml.startsWith("<?xml") && xml.endsWith("</testsuites>\n"));
        assertEquals(run.results().size(), xml.split("<testcase ").length - 1);
        assertEquals(run.results().size(), xml.split("</testcase>").length - 1);
        assertEquals(run.count(CaseResult.Status.FAIL), xml.split("<failure ").length - 1);
        assertFalse(xml.replaceAll("&(amp|lt|gt|quot);", "").contains("&"), "entities escaped");

        String json = Files.readString(files.get(1));
        assertTrue(json.contains("\"passed\": false"));
        assertTrue(json.contains("\"field\": \"sack\""), "a failed SACK expectation lists the sack field");
        assertEquals(run.results().size(), json.split("\"status\": ").length - 1);

        String html = Files.readString(files.get(2));
        assertTrue(html.startsWith("<!DOCTYPE html>") && html.endsWith("</html>\n"));
        assertTrue(html.contains("id=\"s-sack\""));
        assertTrue(html.contains("class=\"bad\"><td>sack</td>"), "the mismatching field is highlighted");
        assertTrue(html.contains("Actual packet, decoded"));
        assertFalse(html.contains("<script") || html.contains("http://") || html.contains("https://"),
                "self-contained");
    }
}
