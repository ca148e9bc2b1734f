package io.metaroce.cli.sim;

import io.metaroce.sim.experiment.ExperimentRunner;
import io.metaroce.sim.experiment.ShardManifest;
import io.metaroce.sim.experiment.ShardedSweep;
import io.metaroce.sim.experiment.SpecFields;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;

/** {@code metaroce sim merge DIR...}: the experiment's files from the directories of every shard of a sweep. */
@Command(name = "merge", mixinStandardHelpOptions = true,
        description = "Merges the shard directories written by 'sim run FILE --shard I/N' (all N of them, any order) "
                + "into records.yaml, sweep.csv, sweep.png, summary.md and every point's record, identical to a single "
                + "run apart from wall-clock metrics. Refuses shards of different experiment files, overrides or "
                + "seeds, and incomplete sets. Exit code 0 when every acceptance check passes, 1 when one fails, 2 on "
                + "bad shards.")
public final class MergeCommand implements Callable<Integer> {
    @Parameters(arity = "1..*", paramLabel = "DIR", description = "shard directories (each holds a shard.yaml)")
    List<Path> dirs = new ArrayList<>();
    @Option(names = "--out", paramLabel = "DIR",
            description = "output directory (default: results/sim/<experiment name>)")
    Path out;

    public MergeCommand() {
    }

    @Override
    public Integer call() throws Exception {
        long t0 = System.nanoTime();
        ExperimentRunner.Summary s;
        try {
            Path dir = out != null ? out : Path.of("results", "sim", ShardManifest.read(dirs.get(0)).experiment());
            s = ShardedSweep.merge(dirs, dir, new JFreeCharts());
        } catch (IllegalArgumentException | SpecFields.SpecException e) {
            System.err.println("metaroce sim merge: " + e.getMessage());
            return 2;
        }
        return SimCommand.report(s, t0, System.out);
    }
}
