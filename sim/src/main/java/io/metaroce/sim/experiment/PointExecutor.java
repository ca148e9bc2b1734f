package io.metaroce.sim.experiment;

import io.metaroce.sim.metrics.Series;
import io.metaroce.sim.run.ExperimentSpec;
import io.metaroce.sim.run.RunResult;

import java.io.IOException;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Runs the points of a sweep (all of them or one {@link Shard}'s) on up to {@code jobs} threads and writes each
 * point's series (one CSV and one PNG per series) into its directory as soon as it is done. Points are independent
 * worlds built from their own spec and seed, so the results do not depend on how many run at once or in which
 * order they finish; outcomes are returned in point order.
 *
 * <p>After writing, a point's series keep their names and labels but drop their data (it is in the CSV), so a
 * long sweep does not hold every point's time series in memory.
 */
final class PointExecutor {
    private final ExperimentFile file;
    private final boolean scaled;
    private final Path out;
    private final ExperimentRunner.PointRunner runner;
    private final ExperimentRunner.ProgressFactory progress;
    private final PrintStream log;
    private final Charts charts;

    PointExecutor(ExperimentFile file, boolean scaled, Path out, ExperimentRunner.PointRunner runner,
                  ExperimentRunner.ProgressFactory progress, PrintStream log, Charts charts) {
        this.file = file;
        this.scaled = scaled;
        this.out = out;
        this.runner = runner;
        this.progress = progress;
        this.log = log;
        this.charts = charts;
    }

    /** The directory of point {@code index} (0-based) with {@code label} under {@code out}. */
    static Path pointDir(Path out, int index, String label) {
        return out.resolve("points").resolve(String.format(Locale.ROOT, "%02d%s", index,
                label.isEmpty() ? "" : "-" + label.replaceAll("[^A-Za-z0-9_.=-]+", "_")));
    }

    /**
     * Runs the points of {@code shard} with up to {@code jobs} at once (1: one after another on this thread).
     *
     * @return the outcomes (not yet judged) in point order
     */
    List<ExperimentRunner.PointOutcome> run(Shard shard, int jobs) throws IOException {
        List<Map<String, Object>> points = file.points(scaled);
        List<ExperimentRunner.PointOutcome> todo = new ArrayList<>();
        for (int i = 0; i < points.size(); i++) {
            if (shard.contains(i)) {
                Map<String, Object> point = points.get(i);
                String label = ExperimentRunner.label(point);
                ExperimentSpec spec = file.spec(point, scaled);
                todo.add(new ExperimentRunner.PointOutcome(i, label, point, spec, null, new ArrayList<>(), "n/a",
                        pointDir(out, i, label)));
            }
        }
        int threads = Math.max(1, Math.min(jobs, todo.size()));
        List<ExperimentRunner.PointOutcome> done = new ArrayList<>();
        if (threads == 1) {
            for (ExperimentRunner.PointOutcome p : todo) {
                done.add(runOne(p, points.size(), false));
            }
            return done;
        }
        AtomicInteger thread = new AtomicInteger();
        ExecutorService pool = Executors.newFixedThreadPool(threads, r -> {
            Thread t = new Thread(r, "sim-point-" + thread.incrementAndGet());
            t.setDaemon(true); // a failed sweep must not keep the JVM alive
            return t;
        });
        try {
            List<Future<ExperimentRunner.PointOutcome>> futures = new ArrayList<>();
            for (ExperimentRunner.PointOutcome p : todo) {
                futures.add(pool.submit(() -> runOne(p, points.size(), true)));
            }
            for (Future<ExperimentRunner.PointOutcome> f : futures) {
                done.add(f.get());
            }
            return done;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted while running points", e);
        } catch (ExecutionException e) {
            switch (e.getCause()) {
                case UncheckedIOException io -> throw io.getCause();
                case RuntimeException re -> throw re;
                case Error err -> throw err;
                default -> throw new IllegalStateException(e.getCause());
            }
        } finally {
            pool.shutdownNow();
        }
    }

    private ExperimentRunner.PointOutcome runOne(ExperimentRunner.PointOutcome p, int count, boolean concurrent) {
        String head = String.format(Locale.ROOT, "[%d/%d] %s %s", p.index() + 1, count, file.name(), p.label());
        synchronized (log) {
            log.println(head.strip());
        }
        RunResult r;
        String error = null;
        try {
            r = runner.run(p.spec(), progress.forPoint(p.index(), count, p.label()));
        } catch (RuntimeException e) {
            // a point the simulator refuses (e.g. more senders than hosts) is reported, not fatal to the sweep
            r = new RunResult();
            r.metrics.put("error", e.getClass().getSimpleName() + ": " + e.getMessage());
            error = e.getMessage();
        }
        try {
            writeSeries(r, p.dir(), charts, file.name() + "  " + p.label(), FaultWindows.of(p.spec().faults));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        String indent = concurrent ? String.format(Locale.ROOT, "[%d/%d] done: ", p.index() + 1, count) : "      ";
        synchronized (log) {
            if (error != null) {
                log.println(indent + "error: " + error);
            }
            log.println(indent + ExperimentRunner.headline(r));
        }
        return new ExperimentRunner.PointOutcome(p.index(), p.label(), p.point(), p.spec(), r, p.checks(),
                p.verdict(), p.dir());
    }

    /** Writes the series of {@code r} into {@code dir}, then keeps only their names and labels. */
    private static void writeSeries(RunResult r, Path dir, Charts charts, String subtitle, List<FaultWindows.Window> faults)
            throws IOException {
        Files.createDirectories(dir);
        for (int i = 0; i < r.series.size(); i++) {
            Series s = r.series.get(i);
            Csv.series(s, dir.resolve(s.name() + ".csv"));
            charts.line(s, dir.resolve(s.name() + ".png"), false, false, subtitle, faults);
            r.series.set(i, nameOnly(s.name()));
        }
    }

    /** A series that stands for its written files: the name, no data. */
    static Series nameOnly(String name) {
        return new Series(name, name, "", "", List.of(), new double[0], new double[0][]);
    }
}
