package io.metaroce.fuzz;

import com.code_intelligence.jazzer.api.FuzzedDataProvider;
import com.code_intelligence.jazzer.junit.FuzzTest;
import io.metaroce.conformance.script.Script;
import io.metaroce.conformance.script.ScriptException;
import io.metaroce.conformance.script.ScriptParser;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The conformance script parser on any text: cases, or a ScriptException with a line number inside the text;
 * never another exception.
 */
class ScriptParserFuzzTest {
    @FuzzTest
    void anyScript(FuzzedDataProvider data) {
        String text = data.consumeRemainingAsString();
        try {
            List<Script> cases = ScriptParser.parse("fuzz.mrt", "fuzz", text);
            Sink.consume(cases.size());
        } catch (ScriptException e) {
            long lines = text.lines().count();
            assertTrue(e.line() >= 0 && e.line() <= lines + 1, "line " + e.line() + " of " + lines + ": " + e);
        }
    }
}
