package io.metaroce.sim.experiment;

import io.metaroce.sim.metrics.Series;
import io.metaroce.sim.run.ExperimentSpec;
import io.metaroce.sim.run.RunResult;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Parallel points ({@code --jobs}) and sharded sweeps ({@code --shard I/N} then merge) write the same files as a
 * serial single run; merges refuse shards that do not form one complete sweep. The point runner here is a
 * deterministic function of the spec (the real simulator's version of this test is the CLI's
 * {@code ShardedE1Test}).
 */
class ShardedSweepTest {
    private static final String YAML = """
            name: t-shard
            seed: 7
            fabric: {hosts: 8, hostsPerLeaf: 4, spines: 2}
            workload: {kind: permutation, bytes: 2MiB}
            sweep:
              transport: [metaroce, rocev2]
              fabric.linkLoss: [0, 0.001, 1%, 0.05, 0.1]
            derived:
              ratio: {of: goodput_gbps, baseline: {fabric.linkLoss: 0}}
            acceptance:
              - {metric: ratio, require: ">= 0.9", when: {transport: metaroce, fabric.linkLoss: 0.01}}
              - {metric: drops, require: "< 40", when: {transport: rocev2}}
            plot: {x: fabric.linkLoss, y: goodput_gbps, series: transport}
            """;

    /** Metrics of every kind a point returns (big counters, NaN, infinity, booleans, text), from the spec alone. */
    private static RunResult fake(ExperimentSpec s) {
        RunResult r = new RunResult();
        double k = s.transport.equals("rocev2") ? 8 : 1;
        r.metrics.put("transport", s.transport);
        r.metrics.put("goodput_gbps", 100 * Math.max(0, 1 - k * s.fabric.linkLoss) + 1e-9 * s.seed);
        r.metrics.put("drops", (long) (s.fabric.linkLoss * 1000) + (s.transport.equals("rocev2") ? 5_000_000_000L : 0));
        r.metrics.put("p99_completion_latency_us", s.fabric.linkLoss > 0.05 ? Double.NaN : 1.0 / 3 + s.fabric.linkLoss);
        r.metrics.put("max_rate", s.fabric.linkLoss == 0 ? Double.POSITIVE_INFINITY : 2.5e-300);
        r.metrics.put("data_correct", s.fabric.linkLoss < 0.05);
        r.metrics.put("samples", 3L);
        double[] x = {0, 5, 10};
        r.series.add(new Series("goodput", "goodput over time", "time (us)", "Gb/s", List.of("all"), x,
                new double[][] {{0, 50 * (1 - s.fabric.linkLoss), 100}}));
        r.series.add(new Series("queue_depth", "queue", "time (us)", "bytes", List.of("a", "b"), x,
                new double[][] {{1, 2, 3}, {4, 5, s.seed}}));
        return r;
    }

    private static final ExperimentRunner.ProgressFactory NO_PROGRESS = (i, n, label) -> (now, limit, ev, w) -> { };

    private static PrintStream quiet() {
        return new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8);
    }

    private static ExperimentSource source(String yaml, String... sets) {
        return new ExperimentSource("t-shard.yaml", yaml, List.of(sets), List.of());
    }

    private static ExperimentRunner.Summary single(Path out, int jobs) throws IOException {
        return ExperimentRunner.run(source(YAML).load(), false, out, (spec, p) -> fake(spec), NO_PROGRESS, quiet(),
                jobs, new RecordingCharts());
    }

    private static List<Path> shards(Path root, ExperimentSource src, int n, int jobs) throws IOException {
        List<Path> dirs = new ArrayList<>();
        for (int i = 1; i <= n; i++) {
            Path d = root.resolve("shard-" + i);
            ShardedSweep.run(src, false, new Shard(i, n), d, (spec, p) -> fake(spec), NO_PROGRESS, quiet(), jobs,
                    new RecordingCharts());
            dirs.add(d);
        }
        return dirs;
    }

    /** Every file under {@code dir} (relative path to bytes), the shard manifest left out. */
    static Map<String, byte[]> tree(Path dir) throws IOException {
        Map<String, byte[]> files = new TreeMap<>();
        try (Stream<Path> s = Files.walk(dir)) {
            for (Path p : s.filter(Files::isRegularFile).toList()) {
                if (!p.getFileName().toString().equals(ShardManifest.FILE)) {
                    files.put(dir.relativize(p).toString(), Files.readAllBytes(p));
                }
            }
        }
        return files;
    }

    static void assertSameTree(Path expected, Path actual) throws IOException {
        Map<String, byte[]> a = tree(expected);
        Map<String, byte[]> b = tree(actual);
        assertEquals(a.keySet(), b.keySet());
        for (String f : a.keySet()) {
            assertTrue(Arrays.equals(a.get(f), b.get(f)), f + " differs:\n" + new String(a.get(f),
                    StandardCharsets.UTF_8).lines().limit(20).toList() + "\nvs\n"
                    + new String(b.get(f), StandardCharsets.UTF_8).lines().limit(20).toList());
        }
    }

    @Test
    void parallelPointsWriteTheSameFilesAsASerialRun(@TempDir Path tmp) throws IOException {
        ExperimentRunner.Summary serial = single(tmp.resolve("j1"), 1);
        ExperimentRunner.Summary parallel = single(tmp.resolve("j3"), 3);
        assertEquals(10, serial.points().size());
        assertEquals(serial.verdict(), parallel.verdict());
        assertSameTree(tmp.resolve("j1"), tmp.resolve("j3"));
        // the files hold what the points measured: a NaN, an infinity and a counter beyond 32 bits survive
        String records = Files.readString(tmp.resolve("j1/records.yaml"));
        assertTrue(records.contains("drops: 5000000050"), records);
        assertTrue(records.contains("p99_completion_latency_us: NaN"), records);
    }

    @Test
    void fourShardsMergedEqualTheSingleRun(@TempDir Path tmp) throws IOException {
        single(tmp.resolve("single"), 1);
        List<Path> dirs = shards(tmp, source(YAML), 4, 2);
        // any order of the shard directories
        ExperimentRunner.Summary merged = ShardedSweep.merge(List.of(dirs.get(2), dirs.get(0), dirs.get(3),
                dirs.get(1)), tmp.resolve("merged"), new RecordingCharts());
        assertEquals(10, merged.points().size());
        assertEquals("fail", merged.verdict()); // rocev2 drops >= 40 at 5% and 10%
        assertSameTree(tmp.resolve("single"), tmp.resolve("merged"));
        // shard 2/4 ran points 2, 6 and 10 (1-based), round-robin
        assertEquals(List.of(1, 5, 9), ShardManifest.read(dirs.get(1)).results().stream()
                .map(ShardManifest.PointResult::index).toList());
    }

    @Test
    void moreShardsThanPointsLeaveEmptyShardsThatStillMerge(@TempDir Path tmp) throws IOException {
        String one = YAML.replace("[0, 0.001, 1%, 0.05, 0.1]", "[0]");
        ExperimentRunner.run(source(one).load(), false, tmp.resolve("single"), (spec, p) -> fake(spec), NO_PROGRESS,
                quiet(), 1, new RecordingCharts());
        List<Path> dirs = shards(tmp.resolve("s"), source(one), 3, 1);
        assertEquals(0, ShardManifest.read(dirs.get(2)).results().size());
        ShardedSweep.merge(dirs, tmp.resolve("merged"), new RecordingCharts());
        assertSameTree(tmp.resolve("single"), tmp.resolve("merged"));
    }

    @Test
    void mergeRefusesMixedSeedsFilesMissingAndDuplicateShards(@TempDir Path tmp) throws IOException {
        List<Path> a = shards(tmp.resolve("a"), source(YAML), 2, 1);
        List<Path> seed = shards(tmp.resolve("seed"), source(YAML, "seed=8"), 2, 1);
        List<Path> other = shards(tmp.resolve("other"), source(YAML.replace("bytes: 2MiB", "bytes: 4MiB")), 2, 1);
        List<Path> three = shards(tmp.resolve("three"), source(YAML), 3, 1);
        Path out = tmp.resolve("out");
        assertMessage("shards ran with different seeds: 7 (" + a.get(0) + ") and 8 (" + seed.get(1) + ")",
                List.of(a.get(0), seed.get(1)), out);
        assertMessage("shards come from different experiment files or --set/--sweep options", List.of(a.get(0),
                other.get(1)), out);
        assertMessage("missing shard 2/2 of t-shard", List.of(a.get(0)), out);
        assertMessage("shard 1/2 given twice", List.of(a.get(0), a.get(0), a.get(1)), out);
        assertMessage("shards split the sweep differently: 1/2", List.of(a.get(0), three.get(1)), out);
        assertMessage("not a shard directory", List.of(tmp), out);
        assertMessage("is one of the shards", List.of(a.get(0), a.get(1)), a.get(1));
        Files.writeString(a.get(1).resolve(ShardManifest.FILE), "format: 1\nsource: [");
        assertMessage("damaged shard manifest", List.of(a.get(0), a.get(1)), out);
        assertTrue(!Files.exists(out.resolve("records.yaml")), "a refused merge writes nothing");
    }

    private static void assertMessage(String expected, List<Path> dirs, Path out) {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> ShardedSweep.merge(dirs, out,
                new RecordingCharts()));
        assertTrue(e.getMessage().contains(expected), e.getMessage());
        assertEquals(1, e.getMessage().lines().count(), e.getMessage());
    }

    @Test
    void shardSyntax() {
        assertEquals(new Shard(2, 4), Shard.parse("2/4"));
        for (String bad : List.of("0/4", "5/4", "2", "a/b", "1/0", "-1/3", "1/2/3")) {
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> Shard.parse(bad));
            assertTrue(e.getMessage().contains("I/N"), e.getMessage());
        }
        assertTrue(Shard.ALL.contains(0) && Shard.ALL.contains(7));
        assertTrue(new Shard(3, 3).contains(2) && !new Shard(3, 3).contains(3));
    }
}
