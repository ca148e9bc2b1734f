package io.metaroce.cli.sim;

import io.metaroce.sim.experiment.ExperimentFile;
import io.metaroce.sim.experiment.ExperimentRunner;
import io.metaroce.sim.experiment.ExperimentSource;
import io.metaroce.sim.experiment.Shard;
import io.metaroce.sim.experiment.ShardManifest;
import io.metaroce.sim.experiment.ShardedSweep;
import io.metaroce.sim.experiment.SpecFields;
import io.metaroce.sim.run.Experiment;
import io.metaroce.sim.run.ProgressListener;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;

/** {@code metaroce sim}: the fabric simulator. */
@Command(name = "sim", mixinStandardHelpOptions = true,
        description = "The discrete-event fabric simulator (the same engine code as the real datapath).",
        subcommands = {SimCommand.Run.class, MergeCommand.class, BenchCommand.class})
public final class SimCommand implements Runnable {
    @picocli.CommandLine.Spec
    picocli.CommandLine.Model.CommandSpec spec;

    public SimCommand() {
    }

    @Override
    public void run() {
        spec.commandLine().usage(System.out);
    }

    /** {@code metaroce sim run FILE}. */
    @Command(name = "run", mixinStandardHelpOptions = true,
            description = "Runs an experiment file (experiments/*.yaml): every point of its sweep, writing a record "
                    + "(YAML), CSV series and PNG plots per point, and sweep.csv, sweep.png and summary.md. Exit code "
                    + "0 when every acceptance check passes, 1 when one fails, 2 on a bad file or option. With "
                    + "--shard I/N only the I-th of N slices of the sweep runs (e.g. one task of a batch job array) "
                    + "and 'sim merge' builds the experiment's files from all N shard directories; a shard exits 0 once "
                    + "its points ran (their errors and checks are the merge's verdict).")
    public static final class Run implements Callable<Integer> {
        @Parameters(index = "0", paramLabel = "FILE", description = "experiment file (YAML)")
        Path file;
        @Option(names = "--out", paramLabel = "DIR",
                description = "output directory (default: results/sim/<experiment name>, with --shard "
                        + "results/sim/<experiment name>/shard-I)")
        Path out;
        @Option(names = "--set", paramLabel = "KEY=VALUE",
                description = "override a field, e.g. --set fabric.linkLoss=0.01 --set workload.bytes=4MiB")
        List<String> sets = new ArrayList<>();
        @Option(names = "--sweep", paramLabel = "KEY=V1,V2,...",
                description = "sweep a field (replaces the file's axis for that key; several multiply); a size range "
                        + "as nccl-tests' -b/-e/-f: --sweep workload.bytes=1MiB..1GiBx4")
        List<String> sweeps = new ArrayList<>();
        @Option(names = "--scaled", description = "apply the file's 'scaled' overrides (the small version CI runs)")
        boolean scaled;
        @Option(names = "--jobs", paramLabel = "N",
                description = "points run at once (default: the number of cores, ${DEFAULT-VALUE}); the records are "
                        + "the same for any N apart from wall-clock metrics")
        int jobs = Runtime.getRuntime().availableProcessors();
        @Option(names = "--shard", paramLabel = "I/N",
                description = "run only the I-th of N slices of the sweep (1 <= I <= N; points dealt round-robin) "
                        + "and write a shard directory for 'sim merge'")
        String shard;
        @Option(names = "--quiet", description = "no progress display (same as --progress none)")
        boolean quiet;
        @Option(names = "--progress", paramLabel = "MODE", defaultValue = "auto",
                completionCandidates = ProgressModeNames.class,
                description = "auto (a bar redrawn on a terminal, a line every 5 s otherwise), none, or json: one "
                        + "JSON object per line on standard output (events progress, point_done, done: point, "
                        + "simulated time, events/s, ETA; see docs/experiments/README.md) with the human log on "
                        + "standard error")
        ProgressMode progressMode;
        @Option(names = "--progress-interval", paramLabel = "TIME", defaultValue = "1s",
                converter = io.metaroce.cli.options.Converters.Seconds.class,
                description = "with --progress json: wall time between two progress lines of a point "
                        + "(default ${DEFAULT-VALUE})")
        double progressIntervalS;

        public Run() {
        }

        @Override
        public Integer call() throws Exception {
            ExperimentSource src;
            ExperimentFile f;
            Shard slice;
            try {
                if (jobs < 1) {
                    throw new IllegalArgumentException("--jobs must be at least 1, got " + jobs);
                }
                slice = shard == null ? null : Shard.parse(shard);
                src = ExperimentSource.read(file, sets, sweeps);
                f = src.load();
            } catch (SpecFields.SpecException | IllegalArgumentException e) {
                System.err.println("metaroce sim run: " + e.getMessage());
                return 2;
            } catch (java.nio.file.NoSuchFileException e) {
                System.err.println("metaroce sim run: no such file: " + file);
                return 2;
            }
            Path dir = out != null ? out : slice == null ? Path.of("results", "sim", f.name())
                    : Path.of("results", "sim", f.name(), "shard-" + slice.index());
            Files.createDirectories(dir);
            boolean terminal = ProgressBar.isTerminal();
            long t0 = System.nanoTime();
            ProgressMode mode = quiet ? ProgressMode.NONE : progressMode;
            JsonProgress json = mode == ProgressMode.JSON
                    ? new JsonProgress(System.out, (long) (progressIntervalS * 1e9), System::nanoTime) : null;
            PrintStream human = json != null ? System.err : System.out;
            ExperimentRunner.ProgressFactory progress;
            ExperimentRunner.PointRunner runner;
            PrintStream log;
            if (json != null) {
                progress = json;
                runner = (spec, p) -> {
                    String error = null;
                    try {
                        return Experiment.run(spec, p);
                    } catch (RuntimeException e) {
                        error = String.valueOf(e.getMessage());
                        throw e;
                    } finally {
                        json.finished(p, error);
                    }
                };
                log = System.err;
            } else if (jobs == 1) {
                boolean silent = mode == ProgressMode.NONE;
                List<ProgressBar> bars = new ArrayList<>();
                progress = (i, n, label) -> {
                    if (silent) {
                        return (now, limit, ev, wall) -> { };
                    }
                    ProgressBar b = new ProgressBar(System.out, terminal, "      ");
                    bars.clear();
                    bars.add(b);
                    return b;
                };
                runner = (spec, p) -> {
                    try {
                        return Experiment.run(spec, p);
                    } finally {
                        bars.forEach(ProgressBar::finish);
                    }
                };
                log = System.out;
            } else {
                SweepProgress sp = new SweepProgress(System.out, terminal, mode == ProgressMode.NONE);
                java.util.Map<ProgressListener, Integer> index = new java.util.concurrent.ConcurrentHashMap<>();
                progress = (i, n, label) -> {
                    ProgressListener l = sp.forPoint(i, n, label);
                    index.put(l, i);
                    return l;
                };
                runner = (spec, p) -> {
                    try {
                        return Experiment.run(spec, p);
                    } finally {
                        Integer i = index.remove(p);
                        if (i != null) {
                            sp.finished(i);
                        }
                    }
                };
                log = sp.log();
            }
            if (slice != null) {
                ShardManifest m = ShardedSweep.run(src, scaled, slice, dir, runner, progress, log, jobs,
                        new JFreeCharts());
                long errors = m.results().stream().filter(r -> r.metrics().containsKey("error")).count();
                if (json != null) {
                    json.done(m.experiment(), "ran", m.results().size(), (System.nanoTime() - t0) / 1e9,
                            dir.toAbsolutePath().toString(), m.results().stream()
                                    .filter(r -> r.metrics().containsKey("error"))
                                    .map(r -> String.valueOf(r.metrics().get("error"))).toList());
                }
                human.printf(Locale.ROOT, "%n%s shard %s: %d of %d points (%.1f s%s) in %s%n"
                                + "merge every shard with: metaroce sim merge DIR... --out DIR%n", m.experiment(),
                        slice, m.results().size(), m.points(), (System.nanoTime() - t0) / 1e9,
                        errors == 0 ? "" : ", " + errors + " with errors", dir.toAbsolutePath());
                return 0; // point errors are the merge's verdict: a batch system must still run the merge
            }
            ExperimentRunner.Summary s = ExperimentRunner.run(f, scaled, dir, runner, progress, log, jobs,
                    new JFreeCharts());
            if (json != null) {
                json.done(s.name(), s.verdict(), s.points().size(), (System.nanoTime() - t0) / 1e9,
                        s.out().toAbsolutePath().toString(), failures(s));
            }
            return report(s, t0, human);
        }
    }

    /** The values of {@code --progress} as people type them, for shell completion. */
    static final class ProgressModeNames extends ArrayList<String> {
        private static final long serialVersionUID = 1L;

        ProgressModeNames() {
            super(List.of("auto", "none", "json"));
        }
    }

    /** How {@code sim run} shows progress. */
    enum ProgressMode {
        /** A bar on a terminal, a plain line every few seconds otherwise. */
        AUTO,
        /** Nothing. */
        NONE,
        /** JSON lines on standard output ({@link JsonProgress}). */
        JSON
    }

    /** The point errors and failed checks of {@code s}, one line each. */
    static List<String> failures(ExperimentRunner.Summary s) {
        List<String> lines = new ArrayList<>();
        for (ExperimentRunner.PointOutcome o : s.points()) {
            if (o.verdict().equals("error")) {
                lines.add(String.format(Locale.ROOT, "ERROR %s: %s", o.label(), o.result().metrics.get("error")));
            }
            for (ExperimentRunner.CheckResult c : o.checks()) {
                if (!c.pass()) {
                    lines.add(String.format(Locale.ROOT, "FAIL %s: %s %s, got %s", o.label(), c.metric(),
                            c.require(), c.actual()));
                }
            }
        }
        return lines;
    }

    /** Prints the verdict, errors and failed checks of {@code s} to {@code out}; returns the exit code (0 pass, 1 fail). */
    static int report(ExperimentRunner.Summary s, long t0, PrintStream out) {
        out.printf(Locale.ROOT, "%n%s: %s (%d points, %.1f s). Records, CSVs and plots in %s%n",
                s.name(), s.verdict().toUpperCase(Locale.ROOT), s.points().size(), (System.nanoTime() - t0) / 1e9,
                s.out().toAbsolutePath());
        for (String line : failures(s)) {
            out.println("  " + line);
        }
        return s.verdict().equals("fail") ? 1 : 0;
    }
}
