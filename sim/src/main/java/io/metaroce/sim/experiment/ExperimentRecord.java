package io.metaroce.sim.experiment;

import org.yaml.snakeyaml.DumperOptions;
import org.yaml.snakeyaml.Yaml;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The experiment record of EXPERIMENTS.md, one type for every world: a simulated point ({@code sim run}) and a run
 * on the real datapath ({@code perf --record}) write the same keys through the same SnakeYAML writer:
 * {@code experiment} (name, world, topology, transport, workload, faults, seed, ...), {@code metrics},
 * {@code acceptance} (metric to criterion), {@code checks} (each criterion with the actual value and whether it
 * held), {@code verdict} and {@code series} (the files of the point's time series; empty when there are none).
 *
 * @param experiment what ran, as nested maps in the order written
 * @param metrics    metric name to value (Long, Double, Boolean or String); NaN and infinities are written as text
 * @param checks     every acceptance criterion and its outcome, in order
 * @param verdict    {@code pass}, {@code fail}, {@code n/a} or {@code error}
 * @param series     names of the files holding the point's time series
 */
public record ExperimentRecord(Map<String, Object> experiment, Map<String, Object> metrics, List<Check> checks,
                               String verdict, List<String> series) {
    /**
     * One acceptance criterion and its outcome.
     *
     * @param metric  the metric it judges
     * @param require the criterion as written ({@code ">= 0.86"}, {@code "true"}, ...; see {@link Acceptance})
     * @param actual  the metric's value (null when missing)
     * @param pass    whether it held
     */
    public record Check(String metric, String require, Object actual, boolean pass) {
    }

    /** The checks of {@code acceptance} (metric to criterion) against {@code metrics}, in order. */
    public static List<Check> judge(Map<String, String> acceptance, Map<String, Object> metrics) {
        List<Check> out = new ArrayList<>();
        acceptance.forEach((metric, require) -> {
            Object actual = metrics.get(metric);
            out.add(new Check(metric, require, actual, Acceptance.parse(metric, require).test(actual, metrics)));
        });
        return out;
    }

    /** The record as nested maps, YAML-ready: what {@link #toYaml()} writes. */
    public Map<String, Object> toMap() {
        Map<String, Object> rec = new LinkedHashMap<>();
        rec.put("experiment", experiment);
        Map<String, Object> m = new LinkedHashMap<>();
        metrics.forEach((k, v) -> m.put(k, yamlValue(v)));
        rec.put("metrics", m);
        Map<String, Object> acc = new LinkedHashMap<>();
        List<Map<String, Object>> cs = new ArrayList<>();
        for (Check c : checks) {
            acc.put(c.metric(), c.require());
            Map<String, Object> one = new LinkedHashMap<>();
            one.put("metric", c.metric());
            one.put("require", c.require());
            one.put("actual", yamlValue(c.actual()));
            one.put("pass", c.pass());
            cs.add(one);
        }
        rec.put("acceptance", acc);
        rec.put("checks", cs);
        rec.put("verdict", verdict);
        rec.put("series", series);
        return rec;
    }

    /** NaN and infinities as text (YAML readers disagree on {@code .nan}); anything else as it is. */
    private static Object yamlValue(Object v) {
        return v instanceof Double d && (d.isNaN() || d.isInfinite()) ? String.valueOf(d) : v;
    }

    /** The record as one YAML document. */
    public String toYaml() {
        return yaml().dump(toMap());
    }

    /** Writes the record to {@code file} (creating its directory). */
    public void write(Path file) throws IOException {
        createParent(file);
        Files.writeString(file, toYaml(), StandardCharsets.UTF_8);
    }

    /** Writes {@code records} to {@code file} as a stream of YAML documents ({@code ---} between them). */
    public static void writeAll(Path file, List<ExperimentRecord> records) throws IOException {
        createParent(file);
        List<Map<String, Object>> maps = new ArrayList<>();
        records.forEach(r -> maps.add(r.toMap()));
        Files.writeString(file, yaml().dumpAll(maps.iterator()), StandardCharsets.UTF_8);
    }

    private static void createParent(Path file) throws IOException {
        Path parent = file.toAbsolutePath().getParent();
        if (parent != null) {
            Files.createDirectories(parent);
        }
    }

    private static Yaml yaml() {
        DumperOptions opt = new DumperOptions();
        opt.setDefaultFlowStyle(DumperOptions.FlowStyle.BLOCK);
        opt.setWidth(120);
        return new Yaml(opt);
    }
}
