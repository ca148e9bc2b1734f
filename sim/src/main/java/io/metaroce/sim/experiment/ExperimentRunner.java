package io.metaroce.sim.experiment;

import io.metaroce.sim.metrics.Series;
import io.metaroce.sim.run.ExperimentSpec;
import io.metaroce.sim.run.FaultSpec;
import io.metaroce.sim.run.ProgressListener;
import io.metaroce.sim.run.RunResult;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * Runs every point of an {@link ExperimentFile} and writes, under the output directory: per point
 * {@code points/NN-label/record.yaml} (the EXPERIMENTS.md record), one CSV and one PNG per series; for the whole
 * experiment {@code records.yaml} (every record, one YAML document each), {@code sweep.csv} (axes and metrics of
 * every point), {@code sweep.png} (the file's {@code plot}) and {@code summary.md}. The PNGs are drawn by the
 * {@link Charts} the caller passes (none with {@link Charts#NONE}).
 */
public final class ExperimentRunner {
    /** Runs one point (the simulator's {@code Experiment::run}). */
    @FunctionalInterface
    public interface PointRunner {
        /** Runs {@code spec}, reporting to {@code progress} (may be null); returns its metrics and series. */
        RunResult run(ExperimentSpec spec, ProgressListener progress);
    }

    /** Makes the progress display of one point, given its index, the number of points and its label. */
    @FunctionalInterface
    public interface ProgressFactory {
        /** The listener of point {@code index} (0-based) of {@code count}; null for none. */
        ProgressListener forPoint(int index, int count, String label);
    }

    /** One acceptance check's outcome at one point. */
    public record CheckResult(String metric, String require, Object actual, boolean pass) {
    }

    /**
     * One point's outcome. Its {@code result().series} name the series written into {@code dir} (one CSV each, and
     * one PNG when the run's {@link Charts} draw); their data is in those files, not in memory.
     */
    public record PointOutcome(int index, String label, Map<String, Object> point, ExperimentSpec spec,
                               RunResult result, List<CheckResult> checks, String verdict, Path dir) {
    }

    /** The whole run: the experiment's verdict is {@code fail} if any point failed, else {@code pass}. */
    public record Summary(String name, List<PointOutcome> points, String verdict, Path out) {
    }

    private ExperimentRunner() {
    }

    /**
     * Runs {@code file} (scaled down when {@code scaled}), one point after another, writing into {@code out} (the
     * PNG charts drawn by {@code charts}) and a line per point to {@code log}.
     *
     * @throws IOException when a file cannot be written
     */
    public static Summary run(ExperimentFile file, boolean scaled, Path out, PointRunner runner,
                              ProgressFactory progress, PrintStream log, Charts charts) throws IOException {
        return run(file, scaled, out, runner, progress, log, 1, charts);
    }

    /**
     * Runs {@code file} with up to {@code jobs} points at once. The records are those of a serial run (each point
     * is its own world with its own seed) apart from the wall-clock metrics; {@code runner} and {@code progress}
     * are called from several threads when {@code jobs > 1}, and so is {@code charts}.
     *
     * @throws IOException when a file cannot be written
     */
    public static Summary run(ExperimentFile file, boolean scaled, Path out, PointRunner runner,
                              ProgressFactory progress, PrintStream log, int jobs, Charts charts) throws IOException {
        Files.createDirectories(out);
        deleteTree(out.resolve("points")); // points of an earlier run would mix with these
        List<PointOutcome> outcomes = new PointExecutor(file, scaled, out, runner, progress, log, charts)
                .run(Shard.ALL, jobs);
        return finish(file, scaled, out, outcomes, charts);
    }

    /** Derived metrics, acceptance and the experiment's files, from every point's outcome (in point order). */
    static Summary finish(ExperimentFile file, boolean scaled, Path out, List<PointOutcome> outcomes, Charts charts)
            throws IOException {
        addDerived(file, outcomes);
        List<PointOutcome> judged = new ArrayList<>();
        for (PointOutcome o : outcomes) {
            judged.add(judge(file, o));
        }
        String verdict = judged.stream().anyMatch(o -> o.verdict().equals("fail") || o.verdict().equals("error"))
                ? "fail" : "pass";
        Summary summary = new Summary(file.name(), judged, verdict, out);
        write(file, summary, scaled, charts);
        return summary;
    }

    static void deleteTree(Path dir) throws IOException {
        if (!Files.isDirectory(dir)) {
            return;
        }
        try (var walk = Files.walk(dir)) {
            for (Path p : walk.sorted(java.util.Comparator.reverseOrder()).toList()) {
                Files.delete(p);
            }
        }
    }
    /** "k=v,k=v" of a point's axis values. */
    public static String label(Map<String, Object> point) {
        List<String> parts = new ArrayList<>();
        point.forEach((k, v) -> parts.add(shortKey(k) + "=" + v));
        return String.join(",", parts);
    }

    static String shortKey(String k) {
        int dot = k.lastIndexOf('.');
        return dot < 0 ? k : k.substring(dot + 1);
    }

    static String headline(RunResult r) {
        StringBuilder sb = new StringBuilder();
        for (String k : List.of("goodput_gbps", "completion_time_us", "algbw_GBps", "busbw_GBps",
                "p99_completion_latency_us", "drops", "retransmits", "pfc_pauses", "path_failovers",
                "error_completions", "loss_e2e_rate", "tail_recovery_us_p99")) {
            Object v = r.metrics.get(k);
            if (v != null) {
                sb.append(k).append('=').append(format(v)).append("  ");
            }
        }
        return sb.toString().trim();
    }

    static String format(Object v) {
        if (v instanceof Double d) {
            return Csv.brief(d);
        }
        return String.valueOf(v);
    }

    private static void addDerived(ExperimentFile file, List<PointOutcome> outcomes) {
        for (ExperimentFile.Derived d : file.derived()) {
            for (PointOutcome o : outcomes) {
                Map<String, Object> want = new LinkedHashMap<>();
                o.point().keySet().forEach(k -> want.put(k, value(o, k)));
                d.baseline().forEach((k, v) -> want.put(k, SpecFields.normalized(k, v)));
                PointOutcome base = null;
                for (PointOutcome c : outcomes) {
                    if (sameValues(c, want)) {
                        base = c;
                        break;
                    }
                }
                double value = Double.NaN;
                if (base != null && o.result().metrics.get(d.of()) instanceof Number n
                        && base.result().metrics.get(d.of()) instanceof Number b && b.doubleValue() != 0) {
                    value = n.doubleValue() / b.doubleValue();
                    if (d.scaleBy() != null) {
                        double k = value(o, d.scaleBy()) instanceof Number x ? x.doubleValue() : Double.NaN;
                        double kb = value(base, d.scaleBy()) instanceof Number x ? x.doubleValue() : Double.NaN;
                        value /= k / kb;
                    }
                }
                o.result().metrics.put(d.name(), value);
            }
        }
    }

    static boolean sameValues(PointOutcome c, Map<String, Object> want) {
        for (Map.Entry<String, Object> e : want.entrySet()) {
            if (!Acceptance.same(e.getValue(), value(c, e.getKey()))) {
                return false;
            }
        }
        return true;
    }

    /** A key's value at a point: the spec's converted field value ("10%" is 0.1), else the raw axis value. */
    static Object value(PointOutcome o, String key) {
        try {
            return SpecFields.get(o.spec(), key);
        } catch (SpecFields.SpecException e) {
            return o.point().get(key);
        }
    }

    private static PointOutcome judge(ExperimentFile file, PointOutcome o) {
        List<CheckResult> checks = new ArrayList<>();
        for (ExperimentFile.Criterion c : file.acceptance()) {
            Map<String, Object> when = new LinkedHashMap<>();
            c.when().forEach((k, v) -> when.put(k, SpecFields.normalized(k, v)));
            if (!sameValues(o, when)) {
                continue;
            }
            Object actual = o.result().metrics.get(c.metric());
            checks.add(new CheckResult(c.metric(), c.require(), actual,
                    Acceptance.parse(c.metric(), c.require()).test(actual, o.result().metrics)));
        }
        String verdict = o.result().metrics.containsKey("error") ? "error"
                : checks.isEmpty() ? "n/a" : checks.stream().allMatch(CheckResult::pass) ? "pass" : "fail";
        return new PointOutcome(o.index(), o.label(), o.point(), o.spec(), o.result(), checks, verdict, o.dir());
    }

    /** The EXPERIMENTS.md record of one point. */
    public static ExperimentRecord record(ExperimentFile file, PointOutcome o, boolean scaled) {
        ExperimentSpec s = o.spec();
        Map<String, Object> exp = new LinkedHashMap<>();
        exp.put("name", file.name());
        exp.put("world", "sim");
        if (!file.claim().isEmpty()) {
            exp.put("claim", file.claim());
        }
        exp.put("scaled_down", scaled);
        exp.put("point", new LinkedHashMap<>(o.point()));
        exp.put("topology", SpecFields.fields(s.fabric));
        exp.put("transport", s.transport);
        exp.put("transport_config", SpecFields.fields(s.transport.equals("rocev2") ? s.roce : s.engine));
        exp.put("workload", SpecFields.fields(s.workload));
        if (s.controller.periodPs > 0 || s.controller.watch) {
            exp.put("controller", SpecFields.fields(s.controller));
        }
        List<Map<String, Object>> faults = new ArrayList<>();
        for (FaultSpec f : s.faults) {
            faults.add(SpecFields.fields(f));
        }
        exp.put("faults", faults);
        exp.put("seed", s.seed);
        List<ExperimentRecord.Check> checks = new ArrayList<>();
        for (CheckResult c : o.checks()) {
            checks.add(new ExperimentRecord.Check(c.metric(), c.require(), c.actual(), c.pass()));
        }
        List<String> files = new ArrayList<>();
        for (Series se : o.result().series) {
            files.add(se.name() + ".csv");
            files.add(se.name() + ".png");
        }
        return new ExperimentRecord(exp, o.result().metrics, checks, o.verdict(), files);
    }

    private static void write(ExperimentFile file, Summary summary, boolean scaled, Charts charts)
            throws IOException {
        List<ExperimentRecord> all = new ArrayList<>();
        for (PointOutcome o : summary.points()) {
            ExperimentRecord rec = record(file, o, scaled);
            all.add(rec);
            rec.write(o.dir().resolve("record.yaml"));
        }
        ExperimentRecord.writeAll(summary.out().resolve("records.yaml"), all);
        List<String> pngs = writeSweep(file, summary, charts);
        Files.writeString(summary.out().resolve("summary.md"), markdown(file, summary, pngs));
    }

    /** Writes sweep.csv and the plots; returns the PNG names. */
    private static List<String> writeSweep(ExperimentFile file, Summary summary, Charts charts) throws IOException {
        Set<String> axes = new LinkedHashSet<>(file.sweep().keySet());
        Set<String> metrics = new LinkedHashSet<>();
        for (PointOutcome o : summary.points()) {
            o.result().metrics.forEach((k, v) -> {
                if (v instanceof Number || v instanceof Boolean) {
                    metrics.add(k);
                }
            });
        }
        List<String> header = new ArrayList<>(axes);
        header.addAll(metrics);
        header.add("verdict");
        List<List<Object>> rows = new ArrayList<>();
        for (PointOutcome o : summary.points()) {
            List<Object> row = new ArrayList<>();
            axes.forEach(a -> row.add(o.point().get(a)));
            metrics.forEach(m -> {
                Object v = o.result().metrics.get(m);
                row.add(v instanceof Boolean b ? (b ? 1 : 0) : v == null ? "" : v);
            });
            row.add(o.verdict());
            rows.add(row);
        }
        Csv.table(header, rows, summary.out().resolve("sweep.csv"));
        return SweepPlots.write(file, summary.points(), summary.out(), charts);
    }

    /** The summary page: claim, a table of points with headline metrics, checks and verdicts. */
    static String markdown(ExperimentFile file, Summary summary, List<String> pngs) {
        StringBuilder sb = new StringBuilder();
        sb.append("# ").append(file.name()).append(": ").append(summary.verdict()).append("\n\n");
        if (!file.claim().isEmpty()) {
            sb.append(file.claim()).append("\n\n");
        }
        sb.append("| point | loss | goodput Gb/s | completion us | drops | retransmits | checks | verdict |\n");
        sb.append("|---|---|---|---|---|---|---|---|\n");
        for (PointOutcome o : summary.points()) {
            Map<String, Object> m = o.result().metrics;
            Object ct = m.containsKey("completion_time_us") ? m.get("completion_time_us") : m.get("max_fct_us");
            List<String> checks = new ArrayList<>();
            for (CheckResult c : o.checks()) {
                checks.add(c.metric() + " " + c.require() + " (" + (c.actual() == null ? "missing"
                        : format(c.actual())) + (c.pass() ? " ok" : " FAIL") + ")");
            }
            sb.append("| ").append(o.label().isEmpty() ? "-" : o.label())
                    .append(" | ").append(m.containsKey("loss_model") ? NcclTables.lossLabel(m) : "-")
                    .append(" | ").append(format(m.getOrDefault("goodput_gbps", "")))
                    .append(" | ").append(format(ct == null ? "" : ct))
                    .append(" | ").append(format(m.getOrDefault("drops", "")))
                    .append(" | ").append(format(m.getOrDefault("retransmits", "")))
                    .append(" | ").append(String.join("; ", checks))
                    .append(" | ").append(o.verdict()).append(" |\n");
        }
        sb.append(NcclTables.markdown(file, summary.points()));
        for (String png : pngs) {
            sb.append("\n![").append(png.replaceFirst("\\.png$", "")).append("](").append(png).append(")\n");
        }
        return sb.toString();
    }
}
