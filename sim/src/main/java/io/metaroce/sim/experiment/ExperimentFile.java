package io.metaroce.sim.experiment;

import io.metaroce.sim.run.ExperimentSpec;
import org.yaml.snakeyaml.LoaderOptions;
import org.yaml.snakeyaml.Yaml;
import org.yaml.snakeyaml.constructor.SafeConstructor;
import org.yaml.snakeyaml.error.Mark;
import org.yaml.snakeyaml.error.MarkedYAMLException;
import org.yaml.snakeyaml.error.YAMLException;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * An experiment file ({@code experiments/*.yaml}): the base point (any {@link ExperimentSpec} field, nested by
 * group), plus the keys of the experiment itself:
 * <pre>
 * name: e1-loss
 * claim: "..."                       # what the experiment checks, for the record and the summary
 * sweep:                             # axes; the points are their cartesian product, first axis outermost
 *   transport: [metaroce, rocev2]
 *   workload.bytes: "1MiB..1GiB x4"  # a size range as nccl-tests' -b 1M -e 1G -f 4: 1, 4, 16, ... 1024 MiB
 *   fabric.linkLoss: [0, 0.001, 0.01]
 * derived:                           # metrics computed against another point of the sweep
 *   goodput_ratio_vs_lossless: {of: goodput_gbps, baseline: {fabric.linkLoss: 0}}
 *   vs_linear: {of: goodput_gbps, baseline: {fabric.planes: 1}, scaleBy: fabric.planes}
 * acceptance:                        # criteria, each for the points matching "when"
 *   - {metric: goodput_ratio_vs_lossless, require: "&gt;= 0.86", when: {transport: metaroce, fabric.linkLoss: 0.01}}
 * plot: {x: fabric.linkLoss, y: goodput_gbps, series: transport}
 *   # or a list of them; each may be named (sweep-NAME.png), limited to the points matching "when", and split
 *   # into one chart per value of its "facets" axes:
 *   # - {name: size, x: workload.bytes, y: busbw_GBps, series: fabric.linkLoss, facets: [transport], logX: true}
 *   # x may be a metric; "along" lists the axes that then vary along a line:
 *   # - {name: loss, x: loss_e2e_rate, y: busbw_GBps, series: transport, along: [fabric.linkLoss]}
 * skip:                              # points of the cartesian product left out (each entry a "when" map)
 *   - {fabric.lossModel: end-to-end, fabric.linkLoss: 0}
 * scaled: {fabric.hosts: 16, workload.bytes: 1MiB,  # overrides for the scaled-down (test) run,
 *          sweep: {workload.senders: [8, 16]}}     # which may also replace axes' values
 * overrides:                         # settings for the points matching "when" (e.g. the fabric a transport needs)
 *   - {when: {transport: rocev2}, set: {fabric.pfc: true}}
 * </pre>
 * A point's spec is built from the base, then {@code scaled} (when scaled down), then the point's axis values,
 * then the matching {@code overrides} (except for the keys the point sweeps: an override of a swept key would make
 * every point of that axis the same run), then command-line {@code --set} values.
 */
public final class ExperimentFile {
    /** Most points a sweep may have (each is a full simulation). */
    static final int MAX_POINTS = 10_000;
    private static final Set<String> OWN_KEYS = Set.of("claim", "sweep", "derived", "acceptance", "plot", "scaled",
            "description", "overrides", "skip");

    /** Settings applied to the points whose values match {@code when}. */
    public record Conditional(Map<String, Object> when, Map<String, Object> set) {
    }

    /**
     * A derived metric: {@code of} at this point divided by {@code of} at the baseline point; with
     * {@code scaleBy} (a field such as {@code fabric.planes}) also divided by the ratio of that field's values, so
     * 1.0 means linear scaling.
     */
    public record Derived(String name, String of, Map<String, Object> baseline, String scaleBy) {
    }

    /** An acceptance criterion: {@code metric op value} for the points matching {@code when}. */
    public record Criterion(String metric, String require, Map<String, Object> when) {
    }

    /**
     * How to plot a sweep: {@code y} metrics against axis {@code x}, one line per value of {@code series} (and of
     * every other axis not a facet), only the points matching {@code when}, one chart per combination of the
     * {@code facets} axes' values; {@code name} names the files ({@code sweep-NAME*.png}, or {@code sweep.png}).
     * When {@code x} is a metric (e.g. the measured {@code loss_e2e_rate}), the axes in {@code along} vary along
     * a line instead of splitting it (e.g. {@code fabric.linkLoss}). {@code panels}: an axis whose values get a
     * chart each, side by side (null: one column); {@code separate}: one chart per y metric, one under the other;
     * {@code bars}: a bar chart per y metric with the values of {@code x} as categories (for an axis of names, such
     * as a workload kind), bars grouped by series.
     */
    public record PlotSpec(String name, String x, List<String> y, String series, boolean logX, List<String> facets,
                           Map<String, Object> when, List<String> along, String panels, boolean separate,
                           boolean bars) {
        /** A plot of {@code y} against {@code x} by {@code series}, over every point, in {@code sweep.png}. */
        public PlotSpec(String x, List<String> y, String series, boolean logX) {
            this(null, x, y, series, logX, List.of(), Map.of(), List.of(), null, false, false);
        }

        /** Whether this plot is a grid or bar chart ({@code panels}, {@code separate} or {@code bars}). */
        public boolean gridded() {
            return panels != null || separate || bars;
        }
    }

    private final String name;
    private final String claim;
    private final Map<String, Object> base;
    private final LinkedHashMap<String, List<Object>> sweep = new LinkedHashMap<>();
    private final Map<String, List<Object>> scaledSweep = new LinkedHashMap<>();
    private final List<Derived> derived = new ArrayList<>();
    private final List<Criterion> acceptance = new ArrayList<>();
    private final Map<String, Object> scaled;
    private final Map<String, Object> overrides = new LinkedHashMap<>();
    private final List<Conditional> conditionals = new ArrayList<>();
    private final List<PlotSpec> plots = new ArrayList<>();
    private final List<Map<String, Object>> skip = new ArrayList<>();

    private ExperimentFile(String name, Map<String, Object> tree) {
        this.name = String.valueOf(tree.getOrDefault("name", name));
        this.claim = String.valueOf(tree.getOrDefault("claim", ""));
        this.base = new LinkedHashMap<>();
        for (Map.Entry<String, Object> e : tree.entrySet()) {
            if (!OWN_KEYS.contains(e.getKey())) {
                base.put(e.getKey(), e.getValue());
            }
        }
        base.put("name", this.name);
        Object sw = tree.get("sweep");
        if (sw != null) {
            for (Map.Entry<String, Object> e : map("sweep", sw).entrySet()) {
                sweep.put(e.getKey(), SizeRange.expand(e.getKey(), values("sweep." + e.getKey(), e.getValue())));
            }
        }
        Object dv = tree.get("derived");
        if (dv != null) {
            for (Map.Entry<String, Object> e : map("derived", dv).entrySet()) {
                Map<String, Object> d = map("derived." + e.getKey(), e.getValue());
                derived.add(new Derived(e.getKey(), String.valueOf(required(d, "of", "derived." + e.getKey())),
                        map("derived." + e.getKey() + ".baseline", required(d, "baseline", "derived." + e.getKey())),
                        d.containsKey("scaleBy") ? String.valueOf(d.get("scaleBy")) : null));
            }
        }
        Object ac = tree.get("acceptance");
        if (ac != null) {
            if (!(ac instanceof List<?> list)) {
                throw new SpecFields.SpecException("acceptance", "expected a list of {metric, require, when}");
            }
            for (int i = 0; i < list.size(); i++) {
                String k = "acceptance[" + i + "]";
                Map<String, Object> c = map(k, list.get(i));
                String req = String.valueOf(required(c, "require", k));
                Acceptance.parse(k, req); // fail early on a bad criterion
                acceptance.add(new Criterion(String.valueOf(required(c, "metric", k)), req,
                        c.containsKey("when") ? map(k + ".when", c.get("when")) : Map.of()));
            }
        }
        Object pl = tree.get("plot");
        if (pl instanceof List<?> list) {
            for (int i = 0; i < list.size(); i++) {
                plots.add(plot("plot[" + i + "]", map("plot[" + i + "]", list.get(i))));
            }
        } else if (pl != null) {
            plots.add(plot("plot", map("plot", pl)));
        }
        Object sk = tree.get("skip");
        if (sk != null) {
            if (!(sk instanceof List<?> list)) {
                throw new SpecFields.SpecException("skip", "expected a list of {key: value} maps");
            }
            for (int i = 0; i < list.size(); i++) {
                skip.add(map("skip[" + i + "]", list.get(i)));
            }
        }
        scaled = new LinkedHashMap<>(tree.containsKey("scaled") ? map("scaled", tree.get("scaled")) : Map.of());
        Object ssw = scaled.remove("sweep");
        if (ssw != null) {
            for (Map.Entry<String, Object> e : map("scaled.sweep", ssw).entrySet()) {
                scaledSweep.put(e.getKey(), SizeRange.expand(e.getKey(), values("scaled.sweep." + e.getKey(),
                        e.getValue())));
            }
        }
        Object ov = tree.get("overrides");
        if (ov != null) {
            if (!(ov instanceof List<?> list)) {
                throw new SpecFields.SpecException("overrides", "expected a list of {when, set}");
            }
            for (int i = 0; i < list.size(); i++) {
                String k = "overrides[" + i + "]";
                Map<String, Object> c = map(k, list.get(i));
                conditionals.add(new Conditional(map(k + ".when", required(c, "when", k)),
                        map(k + ".set", required(c, "set", k))));
            }
        }
        checkPoints(); // a typo or a bad value fails now, before any run, as an input error
    }

    private static final List<String> PLOT_KEYS = List.of("name", "x", "y", "series", "logX", "facets", "when",
            "along", "panels", "separate", "bars");

    private static PlotSpec plot(String where, Map<String, Object> p) {
        List<String> ys = strings(required(p, "y", where));
        List<String> facets = p.containsKey("facets") ? strings(p.get("facets")) : List.of();
        String name = p.containsKey("name") ? String.valueOf(p.get("name")) : null;
        if (name != null && !name.matches("[A-Za-z0-9_-]+")) {
            throw new SpecFields.SpecException(where + ".name", "letters, digits, - and _ only, got '" + name + "'");
        }
        for (String key : p.keySet()) {
            if (!PLOT_KEYS.contains(key)) {
                throw new SpecFields.SpecException(where + "." + key, "not a plot setting ("
                        + String.join(", ", PLOT_KEYS) + ")");
            }
        }
        boolean bars = Boolean.TRUE.equals(p.get("bars"));
        return new PlotSpec(name, String.valueOf(required(p, "x", where)), ys,
                p.containsKey("series") ? String.valueOf(p.get("series")) : null,
                Boolean.TRUE.equals(p.get("logX")), facets,
                p.containsKey("when") ? map(where + ".when", p.get("when")) : Map.of(),
                p.containsKey("along") ? strings(p.get("along")) : List.of(),
                p.containsKey("panels") ? String.valueOf(p.get("panels")) : null,
                Boolean.TRUE.equals(p.get("separate")) || bars, bars);
    }

    private static List<String> strings(Object v) {
        List<String> out = new ArrayList<>();
        if (v instanceof List<?> l) {
            l.forEach(o -> out.add(String.valueOf(o)));
        } else {
            out.add(String.valueOf(v));
        }
        return out;
    }

    /** Builds and checks every point, full size and scaled down (PointChecks). */
    private void checkPoints() {
        long n = 1;
        for (List<Object> values : sweep.values()) {
            n = Math.min(Long.MAX_VALUE / 2, n * Math.max(1, values.size()));
        }
        if (n > MAX_POINTS) {
            throw new SpecFields.SpecException("sweep", n + " points (the product of the axes' sizes); at most "
                    + MAX_POINTS);
        }
        for (boolean scaledDown : new boolean[] {false, true}) {
            for (Map<String, Object> p : points(scaledDown)) {
                PointChecks.check(spec(p, scaledDown));
            }
        }
    }

    /** Loads an experiment file; errors name the file and the key or the YAML line. */
    public static ExperimentFile load(Path file) throws IOException {
        String fileName = file.getFileName().toString().replaceFirst("\\.ya?ml$", "");
        try {
            return parse(fileName, Files.readString(file));
        } catch (MarkedYAMLException e) {
            // one line: FILE:LINE:COLUMN: the parser's problem (its context and snippet would take eight lines)
            Mark at = e.getProblemMark() != null ? e.getProblemMark() : e.getContextMark();
            String where = at == null ? file.toString() : file + ":" + (at.getLine() + 1) + ":" + (at.getColumn() + 1);
            String problem = e.getProblem() != null ? e.getProblem() : e.getContext();
            throw new SpecFields.SpecException(where, "YAML error: " + problem);
        } catch (YAMLException e) {
            throw new SpecFields.SpecException(file.toString(), "YAML error: " + e.getMessage());
        } catch (SpecFields.SpecException e) {
            throw new SpecFields.SpecException(file.toString(), e.getMessage());
        }
    }

    /** Parses experiment YAML text; {@code defaultName} is used when the file has no {@code name}. */
    public static ExperimentFile parse(String defaultName, String yaml) {
        Object root;
        try {
            root = new Yaml(new SafeConstructor(new LoaderOptions())).load(yaml);
        } catch (NumberFormatException e) {
            // SnakeYAML's integer constructor throws this for some out-of-range integers instead of a YAMLException
            throw new SpecFields.SpecException(defaultName, "YAML error: a number out of range: " + e.getMessage());
        }
        if (!(root instanceof Map<?, ?> m)) {
            throw new SpecFields.SpecException(defaultName, "an experiment file is a map of fields");
        }
        return new ExperimentFile(defaultName, map(defaultName, m));
    }

    /** The experiment's name (the file's {@code name}, else the file name without extension). */
    public String name() { return name; }
    /** The claim the experiment tests, in prose (empty when the file has none). */
    public String claim() { return claim; }
    /** The sweep axes: field name to its values, in file order. */
    public Map<String, List<Object>> sweep() { return sweep; }
    /** Metrics derived from other points (ratios to a baseline point, scaled values). */
    public List<Derived> derived() { return derived; }
    /** The acceptance criteria every point is judged by. */
    public List<Criterion> acceptance() { return acceptance; }
    /** The first plot, or null. */
    public PlotSpec plot() { return plots.isEmpty() ? null : plots.get(0); }
    /** Every plot of the file (in order). */
    public List<PlotSpec> plots() { return plots; }
    /** The {@code scaled} overrides applied with {@code --scaled} (field name to value). */
    public Map<String, Object> scaled() { return scaled; }

    /** Replaces (or adds) a sweep axis, e.g. from {@code --sweep key=v1,v2}. */
    public void setAxis(String key, List<Object> given) {
        List<Object> values = SizeRange.expand(key, given);
        spec(Map.of(key, values.get(0)), false); // validates the key and the first value
        sweep.put(key, values);
        scaledSweep.remove(key); // the command line wins over the file's scaled-down values too
        checkPoints();
    }

    /**
     * Adds an override, e.g. from {@code --set key=value}, validated now; it wins over the file and its scaled
     * overrides and replaces a sweep axis of the same key.
     */
    public void set(String key, Object value) {
        spec(Map.of(key, value), false);
        overrides.put(key, value);
        sweep.remove(key);
        checkPoints();
    }

    /**
     * The spec of one point: base, then scaled overrides (when {@code scaledDown}), then {@code point}'s axis
     * values, then the file's matching conditional overrides of keys the point does not sweep, then command-line
     * overrides.
     */
    public ExperimentSpec spec(Map<String, Object> point, boolean scaledDown) {
        ExperimentSpec s = new ExperimentSpec();
        Map<String, Object> nested = new LinkedHashMap<>();
        Map<String, Object> dotted = new LinkedHashMap<>();
        for (Map.Entry<String, Object> e : base.entrySet()) {
            (e.getKey().contains(".") ? dotted : nested).put(e.getKey(), e.getValue());
        }
        SpecFields.apply(s, "", nested);
        dotted.forEach((k, v) -> SpecFields.set(s, k, v));
        if (scaledDown) {
            scaled.forEach((k, v) -> SpecFields.set(s, k, v));
        }
        point.forEach((k, v) -> SpecFields.set(s, k, v));
        for (Conditional c : conditionals) {
            if (matches(c.when(), s)) {
                c.set().forEach((k, v) -> {
                    if (!point.containsKey(k)) { // a swept key keeps the point's value: it is what the sweep varies
                        SpecFields.set(s, k, v);
                    }
                });
            }
        }
        overrides.forEach((k, v) -> SpecFields.set(s, k, v));
        return s;
    }

    /** Every point of the sweep in order (one empty point without a sweep). */
    public List<Map<String, Object>> points() {
        return points(false);
    }

    /**
     * Every point, with the scaled-down axis values when {@code scaledDown}, less those matching an entry of
     * {@code skip}.
     */
    public List<Map<String, Object>> points(boolean scaledDown) {
        List<Map<String, Object>> all = product(scaledDown);
        if (skip.isEmpty()) {
            return all;
        }
        List<Map<String, Object>> out = new ArrayList<>();
        for (Map<String, Object> p : all) {
            if (!skipped(spec(p, scaledDown))) {
                out.add(p);
            }
        }
        return out;
    }

    private boolean skipped(ExperimentSpec s) {
        for (Map<String, Object> when : skip) {
            if (matches(when, s)) {
                return true;
            }
        }
        return false;
    }

    /** True when every key of {@code when} has its value in {@code s} (every key is looked up: a typo fails). */
    private static boolean matches(Map<String, Object> when, ExperimentSpec s) {
        boolean match = true;
        for (Map.Entry<String, Object> w : when.entrySet()) {
            match &= Acceptance.same(SpecFields.normalized(w.getKey(), w.getValue()), SpecFields.get(s, w.getKey()));
        }
        return match;
    }

    private List<Map<String, Object>> product(boolean scaledDown) {
        List<Map<String, Object>> out = new ArrayList<>();
        out.add(new LinkedHashMap<>());
        for (Map.Entry<String, List<Object>> axis : sweep.entrySet()) {
            List<Object> values = scaledDown && scaledSweep.containsKey(axis.getKey())
                    && !overrides.containsKey(axis.getKey()) ? scaledSweep.get(axis.getKey()) : axis.getValue();
            List<Map<String, Object>> next = new ArrayList<>();
            for (Map<String, Object> p : out) {
                for (Object v : values) {
                    Map<String, Object> q = new LinkedHashMap<>(p);
                    q.put(axis.getKey(), v);
                    next.add(q);
                }
            }
            out = next;
        }
        return out;
    }

    private static Object required(Map<String, Object> m, String key, String where) {
        Object v = m.get(key);
        if (v == null) {
            throw new SpecFields.SpecException(where, "missing '" + key + "'");
        }
        return v;
    }

    private static List<Object> values(String key, Object v) {
        List<Object> out = new ArrayList<>();
        if (v instanceof List<?> l) {
            out.addAll(l);
        } else {
            out.add(v);
        }
        if (out.isEmpty()) {
            throw new SpecFields.SpecException(key, "a sweep axis needs at least one value");
        }
        return out;
    }

    @SuppressWarnings("unchecked")
    private static Map<String, Object> map(String key, Object v) {
        if (!(v instanceof Map<?, ?> m)) {
            throw new SpecFields.SpecException(key, "expected a map, got " + v);
        }
        for (Object k : m.keySet()) {
            if (!(k instanceof String)) {
                throw new SpecFields.SpecException(key, "keys must be names, got " + k);
            }
        }
        return (Map<String, Object>) m;
    }
}
