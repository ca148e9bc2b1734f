package io.metaroce.sim.experiment;

import org.yaml.snakeyaml.DumperOptions;
import org.yaml.snakeyaml.LoaderOptions;
import org.yaml.snakeyaml.Yaml;
import org.yaml.snakeyaml.constructor.SafeConstructor;
import org.yaml.snakeyaml.error.YAMLException;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * {@code shard.yaml}: what one shard of a sweep ran and measured, enough for {@code sim merge} to rebuild the
 * experiment's records as a single run would have written them. It holds the {@link ExperimentSource} (file text
 * and overrides) with its hash, the master seed, whether the run was scaled down, the slice, and per point its
 * index, label, raw metrics (before derived metrics, which need every point) and series names. The series' CSV and
 * PNG files sit beside it under {@code points/}.
 *
 * @param experiment the experiment's name
 * @param source     what defines the sweep
 * @param scaled     scaled-down run
 * @param seed       the base point's master seed
 * @param shard      the slice this shard ran
 * @param points     number of points of the whole sweep
 * @param results    this shard's points, in point order
 */
public record ShardManifest(String experiment, ExperimentSource source, boolean scaled, long seed, Shard shard,
                            int points, List<PointResult> results) {
    /** The manifest's file name inside a shard directory. */
    public static final String FILE = "shard.yaml";
    /** Version of the manifest format. */
    static final int FORMAT = 1;

    /**
     * One point a shard ran.
     *
     * @param index   0-based point index in the whole sweep
     * @param label   the point's label ("k=v,k=v")
     * @param dir     its directory name under {@code points/}
     * @param metrics its metrics as the simulator returned them (Long, Double, Boolean or String)
     * @param series  names of its series (files {@code NAME.csv} and {@code NAME.png} in {@code dir})
     */
    public record PointResult(int index, String label, String dir, Map<String, Object> metrics,
                              List<String> series) {
    }

    /** Writes this manifest into {@code dir}. */
    public void write(Path dir) throws IOException {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("format", FORMAT);
        m.put("experiment", experiment);
        m.put("shard", shard.toString());
        m.put("points", points);
        m.put("seed", seed);
        m.put("scaled", scaled);
        Map<String, Object> src = new LinkedHashMap<>();
        src.put("file", source.fileName());
        src.put("sha256", source.sha256());
        src.put("set", source.sets());
        src.put("sweep", source.sweeps());
        src.put("text", source.text());
        m.put("source", src);
        List<Map<String, Object>> rs = new ArrayList<>();
        for (PointResult r : results) {
            Map<String, Object> p = new LinkedHashMap<>();
            p.put("index", r.index());
            p.put("label", r.label());
            p.put("dir", r.dir());
            p.put("metrics", r.metrics());
            p.put("series", r.series());
            rs.add(p);
        }
        m.put("results", rs);
        DumperOptions opt = new DumperOptions();
        opt.setDefaultFlowStyle(DumperOptions.FlowStyle.BLOCK);
        opt.setWidth(120);
        Path tmp = dir.resolve(FILE + ".tmp");
        Files.writeString(tmp, new Yaml(opt).dump(m));
        Files.move(tmp, dir.resolve(FILE), java.nio.file.StandardCopyOption.REPLACE_EXISTING,
                java.nio.file.StandardCopyOption.ATOMIC_MOVE); // a half-written manifest is never seen
    }

    /**
     * Reads the manifest of shard directory {@code dir}.
     *
     * @throws IllegalArgumentException with a one-line message naming {@code dir} when it is not a shard directory
     *                                  or the manifest is damaged
     */
    public static ShardManifest read(Path dir) throws IOException {
        String text;
        try {
            text = Files.readString(dir.resolve(FILE));
        } catch (NoSuchFileException e) {
            throw new IllegalArgumentException(dir + ": not a shard directory (no " + FILE
                    + "; run 'sim run FILE --shard I/N --out " + dir + "' first)");
        }
        try {
            Map<String, Object> m = map(new Yaml(new SafeConstructor(new LoaderOptions())).load(text), "top level");
            int format = (int) number(m, "format");
            if (format != FORMAT) {
                throw new IllegalArgumentException("manifest format " + format + ", this version reads " + FORMAT);
            }
            Map<String, Object> src = map(m.get("source"), "source");
            ExperimentSource source = new ExperimentSource(string(src, "file"), string(src, "text"),
                    strings(src.get("set"), "source.set"), strings(src.get("sweep"), "source.sweep"));
            if (!source.sha256().equals(string(src, "sha256"))) {
                throw new IllegalArgumentException("source does not match its sha256 (edited by hand?)");
            }
            List<PointResult> results = new ArrayList<>();
            if (!(m.get("results") instanceof List<?> list)) {
                throw new IllegalArgumentException("'results' is not a list");
            }
            for (Object o : list) {
                Map<String, Object> p = map(o, "results[]");
                Map<String, Object> metrics = new LinkedHashMap<>();
                // YAML reads whole numbers as Integer where they fit; the simulator's counters are Long
                map(p.get("metrics"), "metrics").forEach((k, v) -> metrics.put(k, v instanceof Integer i
                        ? Long.valueOf(i) : v));
                results.add(new PointResult((int) number(p, "index"), string(p, "label"), string(p, "dir"), metrics,
                        strings(p.get("series"), "series")));
            }
            return new ShardManifest(string(m, "experiment"), source, Boolean.TRUE.equals(m.get("scaled")),
                    number(m, "seed"), Shard.parse(string(m, "shard")), (int) number(m, "points"), results);
        } catch (YAMLException | IllegalArgumentException | ClassCastException e) {
            throw new IllegalArgumentException(dir.resolve(FILE) + ": damaged shard manifest: "
                    + e.getMessage().lines().findFirst().orElse(""));
        }
    }

    @SuppressWarnings("unchecked")
    private static Map<String, Object> map(Object o, String what) {
        if (!(o instanceof Map<?, ?>)) {
            throw new IllegalArgumentException("'" + what + "' is not a map");
        }
        return (Map<String, Object>) o;
    }

    private static String string(Map<String, Object> m, String key) {
        if (!(m.get(key) instanceof String s)) {
            throw new IllegalArgumentException("'" + key + "' missing or not text");
        }
        return s;
    }

    private static long number(Map<String, Object> m, String key) {
        if (!(m.get(key) instanceof Number n)) {
            throw new IllegalArgumentException("'" + key + "' missing or not a number");
        }
        return n.longValue();
    }

    private static List<String> strings(Object o, String what) {
        if (!(o instanceof List<?> l)) {
            throw new IllegalArgumentException("'" + what + "' is not a list");
        }
        List<String> out = new ArrayList<>();
        l.forEach(x -> out.add(String.valueOf(x)));
        return out;
    }
}
