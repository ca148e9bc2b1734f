package io.metaroce.conformance;

import org.junit.jupiter.api.Tag;
import io.metaroce.conformance.script.Script;
import io.metaroce.conformance.target.InProcessTarget;
import io.metaroce.conformance.target.Mutation;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertFalse;

/**
 * The suite catches a broken engine: against each deliberately broken variant ({@link Mutation}) some case
 * fails. (That the correct engine passes everything is {@link InProcessSuiteTest}.)
 */
@Tag("slow")
class MutationTest {
    @ParameterizedTest
    @EnumSource(value = Mutation.class, mode = EnumSource.Mode.EXCLUDE, names = "NONE")
    void everyBrokenVariantIsCaught(Mutation mutation) {
        Suite suite = Suite.builtIn();
        Runner runner = new Runner(0);
        List<String> caughtBy = new ArrayList<>();
        try (InProcessTarget target = new InProcessTarget(mutation, 42)) {
            for (Script s : suite.select(null, null, true)) {
                CaseResult r = runner.run(s, target);
                if (r.failed()) {
                    caughtBy.add(r.name());
                }
            }
        }
        System.out.println("mutation " + mutation + " caught by " + caughtBy.size() + " case(s): " + caughtBy);
        assertFalse(caughtBy.isEmpty(), "no case detects mutation " + mutation);
    }
}
