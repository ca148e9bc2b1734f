package io.metaroce.cli;

import org.junit.jupiter.api.Tag;
import io.metaroce.cli.sim.JFreeCharts;
import io.metaroce.sim.experiment.ExperimentFile;
import io.metaroce.sim.experiment.ExperimentRunner;
import io.metaroce.sim.run.Experiment;
import org.junit.jupiter.api.Disabled;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import org.yaml.snakeyaml.Yaml;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Every experiment file (experiments/*.yaml) runs scaled down ({@code --scaled}) and passes its acceptance
 * criteria, writing every output EXPERIMENTS.md names. One case per file; a file whose scaled run is known to fail
 * is left out of the parameterized cases and has its own {@link Disabled} test quoting the failing check, so it
 * shows as skipped with the reason until the protocol is fixed.
 */
@Tag("slow")
class ExperimentsScaledTest {
    /** Files with their own disabled case (see below), left out of {@link #experiments()}. */
    private static final Set<String> KNOWN_FAILING = Set.of("e1-loss.yaml");

    static Path experimentsDir() {
        // Maven runs the tests with the module directory as working directory; an IDE may use the root
        for (Path p = Path.of("").toAbsolutePath(); p != null; p = p.getParent()) {
            Path dir = p.resolve("experiments");
            if (Files.isDirectory(dir) && Files.exists(p.resolve("pom.xml"))) {
                return dir;
            }
        }
        throw new IllegalStateException("no experiments/ directory above " + Path.of("").toAbsolutePath());
    }

    static List<String> allExperiments() throws IOException {
        try (Stream<Path> s = Files.list(experimentsDir())) {
            return s.map(p -> p.getFileName().toString()).filter(n -> n.endsWith(".yaml")).sorted().toList();
        }
    }

    static Stream<String> experiments() throws IOException {
        return allExperiments().stream().filter(n -> !KNOWN_FAILING.contains(n));
    }

    @Test
    void everyExperimentFileHasACase() throws IOException {
        List<String> all = allExperiments();
        assertFalse(all.isEmpty(), "no experiment files in " + experimentsDir());
        assertTrue(all.containsAll(KNOWN_FAILING), "a disabled case names a file that is gone: " + KNOWN_FAILING);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("experiments")
    void scaledRunPasses(String file, @TempDir Path out) throws IOException {
        check(file, out);
    }

    @Test
    @Disabled("e1-loss scaled fails (re-measured 2026-12-02 on main 8a2ac73, tailProbes 2, routes made on first "
            + "use; `./metaroce sim run experiments/e1-loss.yaml --scaled`): goodput_ratio_vs_lossless >= 0.86 at "
            + "metaroce linkLoss=0.01 (per link, 3.5% end to end measured) got 0.767 (permutation of 2 MiB), 0.407 "
            + "(allreduce, RCCL's pipelined ring, 4 channels); >= 0.5 at linkLoss=0.1 (30% end to end) got 0.198, "
            + "0.110 (on 5fa7947: 0.559, 0.391; 0.233, 0.046). The 1% permutation check cannot hold at 2 MiB by "
            + "arithmetic: the lossless flows last 6.4 base RTTs, so 0.86 allows the slowest of 16 flows 1.05 RTT "
            + "more; each flow sends ~95 packets in its last RTT (~3.3 of them lost), so with probability ~0.85 some "
            + "flow also loses a resend of one (3 RTTs from its first send) and ends more than 1.05 RTT late, under "
            + "any recovery without redundancy. At full size (16 MiB, 64 hosts) the permutation passes (0.881 / "
            + "0.587) and the all-reduce fails (0.542 / 0.155): a 126-step chain of 8-packet slices sprayed over 16 "
            + "paths, about one packet per path, each lossy step paying at least a round trip (README's E1 row): "
            + "issue 10")
    void e1LossScaledRunPasses(@TempDir Path out) throws IOException {
        check("e1-loss.yaml", out);
    }

    /** Runs {@code file} scaled into {@code out} and checks its outputs and verdicts. */
    private static void check(String file, Path out) throws IOException {
        ExperimentFile f = ExperimentFile.load(experimentsDir().resolve(file));
        ByteArrayOutputStream log = new ByteArrayOutputStream();
        long t0 = System.nanoTime();
        ExperimentRunner.Summary s = ExperimentRunner.run(f, true, out, Experiment::run, (i, n, label) -> null,
                new PrintStream(log, true, StandardCharsets.UTF_8), new JFreeCharts());
        System.out.printf(Locale.ROOT, "%s scaled: %s, %d points, %.1f s%n", file, s.verdict(), s.points().size(),
                (System.nanoTime() - t0) / 1e9);
        String context = file + "\n" + log.toString(StandardCharsets.UTF_8);
        assertFalse(s.points().isEmpty(), context);
        for (String name : List.of("records.yaml", "sweep.csv", "summary.md")) {
            assertTrue(Files.isRegularFile(out.resolve(name)), name + " missing\n" + context);
        }
        List<String> failures = new ArrayList<>();
        Yaml yaml = new Yaml();
        for (ExperimentRunner.PointOutcome o : s.points()) {
            assertNotEquals("error", o.verdict(), o.label() + ": " + o.result().metrics.get("error") + "\n" + context);
            Path record = o.dir().resolve("record.yaml");
            assertTrue(Files.isRegularFile(record), record + " missing");
            Map<?, ?> rec = assertInstanceOf(Map.class, yaml.load(Files.readString(record)), record.toString());
            for (String key : List.of("experiment", "metrics", "acceptance", "verdict")) {
                assertTrue(rec.containsKey(key), record + " has no '" + key + "'");
            }
            assertEquals(o.verdict(), rec.get("verdict"), record.toString());
            try (Stream<Path> files = Files.list(o.dir())) {
                assertTrue(files.anyMatch(p -> p.getFileName().toString().endsWith(".png")),
                        "no PNG in " + o.dir());
            }
            for (ExperimentRunner.CheckResult c : o.checks()) {
                if (!c.pass()) {
                    failures.add(o.label() + ": " + c.metric() + " " + c.require() + ", got " + c.actual());
                }
            }
        }
        assertEquals("pass", s.verdict(), String.join("\n", failures) + "\n" + context);
    }
}
