package io.metaroce.cli.sim;

import io.metaroce.sim.Experiment;
import io.metaroce.sim.experiment.ExperimentFile;
import io.metaroce.sim.experiment.ExperimentRunner;
import io.metaroce.sim.experiment.SpecFields;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;

/** {@code metaroce sim}: the fabric simulator. */
@Command(name = "sim", mixinStandardHelpOptions = true,
        description = "The discrete-event fabric simulator (the same engine code as the real datapath).",
        subcommands = {SimCommand.Run.class})
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
                    + "0 when every acceptance check passes, 1 when one fails, 2 on a bad file or option.")
    public static final class Run implements Callable<Integer> {
        @Parameters(index = "0", paramLabel = "FILE", description = "experiment file (YAML)")
        Path file;
        @Option(names = "--out", paramLabel = "DIR",
                description = "output directory (default: results/sim/<experiment name>)")
        Path out;
        @Option(names = "--set", paramLabel = "KEY=VALUE",
                description = "override a field, e.g. --set fabric.linkLoss=0.01 --set workload.bytes=4MiB")
        List<String> sets = new ArrayList<>();
        @Option(names = "--sweep", paramLabel = "KEY=V1,V2,...",
                description = "sweep a field (replaces the file's axis for that key; several multiply)")
        List<String> sweeps = new ArrayList<>();
        @Option(names = "--scaled", description = "apply the file's 'scaled' overrides (the small version CI runs)")
        boolean scaled;
        @Option(names = "--quiet", description = "no progress display")
        boolean quiet;

        public Run() {
        }

        @Override
        public Integer call() throws Exception {
            ExperimentFile f;
            try {
                f = ExperimentFile.load(file);
                for (String s : sets) {
                    String[] kv = keyValue(s, "--set");
                    f.set(kv[0], kv[1]);
                }
                for (String s : sweeps) {
                    String[] kv = keyValue(s, "--sweep");
                    f.setAxis(kv[0], new ArrayList<>(Arrays.asList((Object[]) kv[1].split(","))));
                }
            } catch (SpecFields.SpecException | IllegalArgumentException e) {
                System.err.println("metaroce sim run: " + e.getMessage());
                return 2;
            } catch (java.nio.file.NoSuchFileException e) {
                System.err.println("metaroce sim run: no such file: " + file);
                return 2;
            }
            Path dir = out != null ? out : Path.of("results", "sim", f.name());
            Files.createDirectories(dir);
            boolean terminal = ProgressBar.isTerminal();
            List<ProgressBar> bars = new ArrayList<>();
            long t0 = System.nanoTime();
            ExperimentRunner.Summary s = ExperimentRunner.run(f, scaled, dir, (spec, p) -> {
                try {
                    return Experiment.run(spec, p);
                } finally {
                    bars.forEach(ProgressBar::finish);
                }
            }, (i, n, label) -> {
                if (quiet) {
                    return (now, limit, ev, wall) -> { };
                }
                ProgressBar b = new ProgressBar(System.out, terminal, "      ");
                bars.clear();
                bars.add(b);
                return b;
            }, System.out);
            System.out.printf(Locale.ROOT, "%n%s: %s (%d points, %.1f s). Records, CSVs and plots in %s%n",
                    s.name(), s.verdict().toUpperCase(Locale.ROOT), s.points().size(), (System.nanoTime() - t0) / 1e9,
                    dir.toAbsolutePath());
            for (ExperimentRunner.PointOutcome o : s.points()) {
                if (o.verdict().equals("error")) {
                    System.out.printf(Locale.ROOT, "  ERROR %s: %s%n", o.label(), o.result().metrics.get("error"));
                }
                for (ExperimentRunner.CheckResult c : o.checks()) {
                    if (!c.pass()) {
                        System.out.printf(Locale.ROOT, "  FAIL %s: %s %s, got %s%n", o.label(), c.metric(),
                                c.require(), c.actual());
                    }
                }
            }
            return s.verdict().equals("fail") ? 1 : 0;
        }

        private static String[] keyValue(String s, String option) {
            int eq = s.indexOf('=');
            if (eq <= 0 || eq == s.length() - 1) {
                throw new IllegalArgumentException(option + " expects KEY=VALUE, got '" + s + "'");
            }
            return new String[] {s.substring(0, eq).trim(), s.substring(eq + 1).trim()};
        }
    }
}
