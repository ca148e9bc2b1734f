package io.metaroce.fuzz;

import com.code_intelligence.jazzer.api.FuzzedDataProvider;
import com.code_intelligence.jazzer.junit.FuzzTest;
import io.metaroce.sim.experiment.ExperimentFile;
import io.metaroce.sim.experiment.SpecFields;
import org.yaml.snakeyaml.error.YAMLException;

import static org.junit.jupiter.api.Assertions.assertFalse;

/**
 * The experiment-file loader on any text: it loads, or refuses with a one-line SpecException (or the YAML parser's
 * YAMLException, which {@code ExperimentFile.load} turns into one line); never another exception, never an
 * allocation sized by the input (a huge fabric is refused against the heap, PointChecks).
 */
class ExperimentFileFuzzTest {
    @FuzzTest
    void anyYaml(FuzzedDataProvider data) {
        String text = data.consumeRemainingAsString();
        try {
            ExperimentFile f = ExperimentFile.parse("fuzz", text);
            Sink.consume(f.points().size());
        } catch (SpecFields.SpecException e) {
            assertFalse(e.getMessage().contains("\n"), "one line: " + e.getMessage());
        } catch (YAMLException e) {
            Sink.consume(1);
        }
    }
}
