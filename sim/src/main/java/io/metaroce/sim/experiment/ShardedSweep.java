package io.metaroce.sim.experiment;

import io.metaroce.sim.run.RunResult;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * A sweep split over several processes or machines (a batch system's job array): {@link #run} runs one
 * {@link Shard}'s points and writes their series and a {@link ShardManifest}; {@link #merge} checks that the given
 * shards are the complete set of one sweep (same experiment file and overrides, same seed, every slice once) and
 * writes {@code records.yaml}, {@code sweep.csv}, {@code sweep.png}, {@code summary.md} and every point's
 * {@code record.yaml}, identical to those of a single run apart from the wall-clock metrics.
 */
public final class ShardedSweep {
    private ShardedSweep() {
    }

    /**
     * Runs the points of {@code shard} of {@code source}'s sweep, up to {@code jobs} at once, into {@code out}.
     *
     * @return the manifest written to {@code out/shard.yaml}
     */
    public static ShardManifest run(ExperimentSource source, boolean scaled, Shard shard, Path out,
                                    ExperimentRunner.PointRunner runner, ExperimentRunner.ProgressFactory progress,
                                    PrintStream log, int jobs, Charts charts) throws IOException {
        ExperimentFile file = source.load();
        Files.createDirectories(out);
        Files.deleteIfExists(out.resolve(ShardManifest.FILE)); // no stale manifest if this run dies
        ExperimentRunner.deleteTree(out.resolve("points"));
        List<ExperimentRunner.PointOutcome> outcomes = new PointExecutor(file, scaled, out, runner, progress, log, charts)
                .run(shard, jobs);
        List<ShardManifest.PointResult> results = new ArrayList<>();
        for (ExperimentRunner.PointOutcome o : outcomes) {
            results.add(new ShardManifest.PointResult(o.index(), o.label(), o.dir().getFileName().toString(),
                    o.result().metrics, o.result().series.stream().map(s -> s.name()).toList()));
        }
        ShardManifest m = new ShardManifest(file.name(), source, scaled, file.spec(Map.of(), scaled).seed, shard,
                file.points(scaled).size(), results);
        m.write(out);
        return m;
    }

    /**
     * Merges the shard directories {@code dirs} into {@code out} (which must not be one of them).
     *
     * @throws IllegalArgumentException with a one-line message when the shards do not form one complete sweep
     */
    public static ExperimentRunner.Summary merge(List<Path> dirs, Path out, Charts charts) throws IOException {
        if (dirs.isEmpty()) {
            throw new IllegalArgumentException("give the shard directories to merge");
        }
        TreeMap<Integer, ShardManifest> byIndex = new TreeMap<>();
        TreeMap<Integer, Path> dirOf = new TreeMap<>();
        ShardManifest first = null;
        Path firstDir = null;
        for (Path d : dirs) {
            if (out.toAbsolutePath().normalize().equals(d.toAbsolutePath().normalize())
                    || Files.exists(out) && Files.exists(d) && Files.isSameFile(d, out)) {
                throw new IllegalArgumentException("the output directory " + out + " is one of the shards");
            }
            ShardManifest m = ShardManifest.read(d);
            if (first == null) {
                first = m;
                firstDir = d;
            } else {
                checkSameSweep(first, firstDir, m, d);
            }
            Path seen = dirOf.putIfAbsent(m.shard().index(), d);
            if (seen != null) {
                throw new IllegalArgumentException("shard " + m.shard() + " given twice: " + seen + " and " + d);
            }
            byIndex.put(m.shard().index(), m);
        }
        List<String> missing = new ArrayList<>();
        for (int i = 1; i <= first.shard().count(); i++) {
            if (!byIndex.containsKey(i)) {
                missing.add(i + "/" + first.shard().count());
            }
        }
        if (!missing.isEmpty()) {
            throw new IllegalArgumentException("missing shard" + (missing.size() > 1 ? "s " : " ")
                    + String.join(", ", missing) + " of " + first.experiment());
        }
        ExperimentFile file = first.source().load();
        List<Map<String, Object>> points = file.points(first.scaled());
        if (points.size() != first.points()) {
            throw new IllegalArgumentException("the shards' experiment has " + points.size()
                    + " points but they say " + first.points());
        }
        Files.createDirectories(out);
        ExperimentRunner.deleteTree(out.resolve("points"));
        ExperimentRunner.PointOutcome[] outcomes = new ExperimentRunner.PointOutcome[points.size()];
        for (Map.Entry<Integer, ShardManifest> e : byIndex.entrySet()) {
            Path shardDir = dirOf.get(e.getKey());
            for (ShardManifest.PointResult r : e.getValue().results()) {
                outcomes[r.index()] = outcome(file, first.scaled(), points, r, shardDir, out);
            }
        }
        List<ExperimentRunner.PointOutcome> all = new ArrayList<>();
        for (int i = 0; i < outcomes.length; i++) {
            if (outcomes[i] == null) {
                throw new IllegalArgumentException("point " + (i + 1) + " of " + first.experiment()
                        + " is in no shard (shard " + new Shard(i % first.shard().count() + 1, first.shard().count())
                        + " at " + dirOf.get(i % first.shard().count() + 1) + " is incomplete)");
            }
            all.add(outcomes[i]);
        }
        return ExperimentRunner.finish(file, first.scaled(), out, all, charts);
    }

    private static void checkSameSweep(ShardManifest a, Path da, ShardManifest b, Path db) {
        if (!a.experiment().equals(b.experiment())) {
            throw new IllegalArgumentException("shards of different experiments: " + a.experiment() + " (" + da
                    + ") and " + b.experiment() + " (" + db + ")");
        }
        if (a.seed() != b.seed()) {
            throw new IllegalArgumentException("shards ran with different seeds: " + a.seed() + " (" + da + ") and "
                    + b.seed() + " (" + db + ")");
        }
        if (a.scaled() != b.scaled()) {
            throw new IllegalArgumentException("shards mix scaled-down and full-size runs: " + da + " and " + db);
        }
        if (!a.source().sha256().equals(b.source().sha256())) {
            throw new IllegalArgumentException("shards come from different experiment files or --set/--sweep "
                    + "options: " + da + " (" + a.source().sha256().substring(0, 12) + ") and " + db + " ("
                    + b.source().sha256().substring(0, 12) + ")");
        }
        if (a.shard().count() != b.shard().count()) {
            throw new IllegalArgumentException("shards split the sweep differently: " + a.shard() + " (" + da
                    + ") and " + b.shard() + " (" + db + ")");
        }
    }

    private static ExperimentRunner.PointOutcome outcome(ExperimentFile file, boolean scaled,
                                                         List<Map<String, Object>> points,
                                                         ShardManifest.PointResult r, Path shardDir, Path out)
            throws IOException {
        if (r.index() < 0 || r.index() >= points.size()) {
            throw new IllegalArgumentException(shardDir + ": point index " + r.index() + " out of range");
        }
        Map<String, Object> point = points.get(r.index());
        String label = ExperimentRunner.label(point);
        if (!label.equals(r.label())) {
            throw new IllegalArgumentException(shardDir + ": point " + r.index() + " is '" + r.label()
                    + "' but the experiment file says '" + label + "'");
        }
        Path dir = PointExecutor.pointDir(out, r.index(), label);
        Path from = shardDir.resolve("points").resolve(r.dir());
        Files.createDirectories(dir);
        for (String s : r.series()) {
            Path csv = from.resolve(s + ".csv");
            if (!Files.isRegularFile(csv)) {
                throw new IllegalArgumentException(shardDir + ": " + csv + " is missing");
            }
            Files.copy(csv, dir.resolve(s + ".csv"), StandardCopyOption.REPLACE_EXISTING);
            Path png = from.resolve(s + ".png"); // none when the shard ran without charts (Charts.NONE)
            if (Files.isRegularFile(png)) {
                Files.copy(png, dir.resolve(s + ".png"), StandardCopyOption.REPLACE_EXISTING);
            }
        }
        RunResult result = new RunResult();
        result.metrics.putAll(r.metrics());
        r.series().forEach(s -> result.series.add(PointExecutor.nameOnly(s)));
        return new ExperimentRunner.PointOutcome(r.index(), label, point, file.spec(point, scaled), result,
                new ArrayList<>(), "n/a", dir);
    }
}
