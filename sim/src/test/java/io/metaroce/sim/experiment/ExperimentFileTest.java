package io.metaroce.sim.experiment;

import io.metaroce.sim.event.Units;
import io.metaroce.sim.metrics.Series;
import io.metaroce.sim.run.ExperimentSpec;
import io.metaroce.sim.run.RunResult;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.yaml.snakeyaml.Yaml;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The experiment file format, unit parsing, sweeps, derived metrics, acceptance and the files written. */
class ExperimentFileTest {
    private static final String YAML = """
            name: t-loss
            claim: "goodput falls slowly with loss"
            seed: 7
            fabric: {hosts: 8, hostsPerLeaf: 4, spines: 2, hostRateBps: 25Gbps, hostLinkDelayPs: 2us}
            workload: {kind: permutation, bytes: 2MiB}
            engine: {ackDelayNs: 3us}
            faults:
              - {kind: plane-down, atPs: 50us, plane: 0}
            sampleIntervalPs: 5us
            sweep:
              transport: [metaroce, rocev2]
              fabric.linkLoss: [0, 0.01, 10%]
            derived:
              ratio: {of: goodput_gbps, baseline: {fabric.linkLoss: 0}}
              per_host: {of: goodput_gbps, baseline: {fabric.linkLoss: 0}, scaleBy: fabric.hosts}
            acceptance:
              - {metric: ratio, require: ">= 0.9", when: {transport: metaroce, fabric.linkLoss: 0.01}}
              - {metric: ratio, require: ">= 0.5", when: {transport: rocev2, fabric.linkLoss: 0.1}}
              - {metric: drops, require: "<= 0.2 * hosts", when: {transport: metaroce, fabric.linkLoss: 0.01}}
            plot: {x: fabric.linkLoss, y: goodput_gbps, series: transport}
            scaled: {fabric.hosts: 4}
            overrides:
              - {when: {transport: rocev2}, set: {fabric.bufferBytes: 64MiB}}
            """;

    /** Goodput falls with loss, faster for rocev2: a function of the spec, enough to exercise the plumbing. */
    private static RunResult fake(ExperimentSpec s) {
        RunResult r = new RunResult();
        double k = s.transport.equals("rocev2") ? 8 : 1;
        r.metrics.put("goodput_gbps", 100 * Math.max(0, 1 - k * s.fabric.linkLoss));
        r.metrics.put("drops", (long) (s.fabric.linkLoss * 1000));
        r.metrics.put("hosts", (long) s.fabric.hosts);
        r.series.add(new Series("goodput", "goodput over time", "time (us)", "Gb/s", List.of("all"),
                new double[] {0, 5, 10}, new double[][] {{0, 50, 100}}));
        return r;
    }

    @Test
    void unitsAndNestedFieldsAreApplied() {
        ExperimentFile f = ExperimentFile.parse("x", YAML);
        ExperimentSpec s = f.spec(Map.of(), false);
        assertEquals("t-loss", s.name);
        assertEquals(7, s.seed);
        assertEquals(25_000_000_000L, s.fabric.hostRateBps);
        assertEquals(Units.psFromUs(2), s.fabric.hostLinkDelayPs);
        assertEquals(2L << 20, s.workload.bytes);
        assertEquals(3_000, s.engine.ackDelayNs);
        assertEquals(Units.psFromUs(5), s.sampleIntervalPs);
        assertEquals(1, s.faults.size());
        assertEquals(Units.psFromUs(50), s.faults.get(0).atPs);
        assertEquals(4, f.spec(Map.of(), true).fabric.hosts);
        assertEquals(6, f.points().size());
        assertEquals(0.1, f.spec(f.points().get(2), false).fabric.linkLoss, 1e-12);
        assertEquals(64L << 20, f.spec(f.points().get(3), false).fabric.bufferBytes); // rocev2 point
        assertEquals(new io.metaroce.sim.fabric.FabricConfig().bufferBytes, f.spec(f.points().get(0), false).fabric.bufferBytes);
    }

    @Test
    void aSweptKeyIsNotOverriddenByAConditional() {
        // a conditional override that sets a key also swept (here from the command line) would make every point of
        // that axis the same run: the point's own value wins
        ExperimentFile f = ExperimentFile.parse("x", YAML);
        f.setAxis("fabric.bufferBytes", List.of("1MiB", "4MiB"));
        List<Map<String, Object>> points = f.points();
        assertEquals(12, points.size());
        List<Long> rocev2 = points.stream().filter(p -> p.get("transport").equals("rocev2"))
                .map(p -> f.spec(p, false).fabric.bufferBytes).distinct().sorted().toList();
        assertEquals(List.of(1L << 20, 4L << 20), rocev2);
        // --set still wins over both (keys a point does not sweep take the conditional's value: see above)
        f.set("fabric.bufferBytes", "2MiB");
        assertEquals(2L << 20, f.spec(f.points().get(3), false).fabric.bufferBytes);
    }

    @Test
    void badKeysAndValuesAreNamed() {
        var e = assertThrows(SpecFields.SpecException.class,
                () -> ExperimentFile.parse("x", "fabric: {hostz: 3}"));
        assertTrue(e.getMessage().contains("fabric.hostz") && e.getMessage().contains("known: "), e.getMessage());
        e = assertThrows(SpecFields.SpecException.class,
                () -> ExperimentFile.parse("x", "fabric: {hostLinkDelayPs: 3 parsecs}"));
        assertTrue(e.getMessage().contains("unknown unit in time '3 parsecs'"), e.getMessage());
        e = assertThrows(SpecFields.SpecException.class, () -> ExperimentFile.parse("x", "fabric: {hosts: 2.5}"));
        assertTrue(e.getMessage().contains("whole number"), e.getMessage());
        e = assertThrows(SpecFields.SpecException.class, () -> ExperimentFile.parse("x",
                "acceptance: [{metric: a, require: 'about 3'}]"));
        assertTrue(e.getMessage().contains("criterion"), e.getMessage());
        ExperimentFile f = ExperimentFile.parse("x", "seed: 1");
        assertThrows(SpecFields.SpecException.class, () -> f.set("engine.nope", 1));
        f.setAxis("workload.bytes", List.of("1MiB", "2MiB"));
        assertEquals(2, f.points().size());
    }

    @Test
    void runWritesRecordsSweepAndVerdicts(@TempDir Path out) throws Exception {
        ExperimentFile f = ExperimentFile.parse("x", YAML);
        ByteArrayOutputStream log = new ByteArrayOutputStream();
        RecordingCharts charts = new RecordingCharts();
        ExperimentRunner.Summary sum = ExperimentRunner.run(f, true, out, (spec, p) -> fake(spec),
                (i, n, label) -> (now, limit, ev, wall) -> { }, new PrintStream(log, true, StandardCharsets.UTF_8),
                charts);
        assertEquals(6, sum.points().size());
        // metaroce at 1%: ratio 0.99 >= 0.9 pass; rocev2 at 10%: ratio 0.2 < 0.5 fail
        assertEquals("fail", sum.points().get(1).verdict()); // drops 10 > 0.2 * 4 hosts
        assertEquals(List.of(true, false), sum.points().get(1).checks().stream()
                .map(ExperimentRunner.CheckResult::pass).toList());
        assertEquals("fail", sum.points().get(5).verdict());
        assertEquals("n/a", sum.points().get(0).verdict());
        assertEquals("fail", sum.verdict());
        assertEquals(0.2, (Double) sum.points().get(5).result().metrics.get("ratio"), 1e-9);
        assertEquals(0.2, (Double) sum.points().get(5).result().metrics.get("per_host"), 1e-9); // same hosts
        // the record follows EXPERIMENTS.md
        Map<String, Object> rec = new Yaml().load(Files.readString(sum.points().get(1).dir().resolve("record.yaml")));
        assertEquals(List.of("experiment", "metrics", "acceptance", "checks", "verdict", "series"),
                List.copyOf(rec.keySet()));
        @SuppressWarnings("unchecked")
        Map<String, Object> exp = (Map<String, Object>) rec.get("experiment");
        assertEquals("sim", exp.get("world"));
        assertEquals(true, exp.get("scaled_down"));
        assertEquals(Map.of("ratio", ">= 0.9", "drops", "<= 0.2 * hosts"), rec.get("acceptance"));
        @SuppressWarnings("unchecked")
        Map<String, Object> metrics = (Map<String, Object>) rec.get("metrics");
        assertEquals(4, ((Number) metrics.get("hosts")).intValue()); // scaled override applied
        List<String> sweep = Files.readAllLines(out.resolve("sweep.csv"));
        assertEquals(7, sweep.size());
        assertTrue(sweep.get(0).startsWith("transport,fabric.linkLoss,goodput_gbps"), sweep.get(0));
        assertTrue(Files.readString(out.resolve("sweep.png")).startsWith("line t-loss: "),
                Files.readString(out.resolve("sweep.png")));
        // every point's series drawn with the experiment and point under the title
        assertTrue(charts.calls().stream().anyMatch(c -> c.startsWith("goodput.png: line goodput over time | all | t-loss  ")),
                charts.calls().toString());
        assertTrue(Files.exists(sum.points().get(0).dir().resolve("goodput.png")));
        assertEquals("time (us),all", Files.readAllLines(sum.points().get(0).dir().resolve("goodput.csv")).get(0));
        String md = Files.readString(out.resolve("summary.md"));
        assertTrue(md.contains("ratio >= 0.5 (0.2 FAIL)"), md);
        assertTrue(log.toString(StandardCharsets.UTF_8).contains("[6/6] t-loss transport=rocev2,linkLoss=10%"));
    }
}
