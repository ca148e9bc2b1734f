package io.metaroce.cli.perf;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The experiment record of EXPERIMENTS.md for one perf run, written as YAML by hand (the format is small and
 * flat): experiment (name, world, topology, transport, workload, faults, seed), metrics, acceptance, verdict.
 * Acceptance entries are {@code ">= X"}, {@code "<= X"} or {@code "== X"} against the metric of the same name;
 * the verdict is pass when every entry holds (or there is none).
 */
final class ExperimentRecord {
    String name;
    String world;
    int planes;
    int paths;
    int mtu;
    String kind;
    long bytes;
    long iters;
    int qps;
    int txDepth;
    Double durationS;
    String side;
    double injectLoss;
    long seed;
    final Map<String, Object> metrics = new LinkedHashMap<>();
    final Map<String, String> acceptance = new LinkedHashMap<>();

    /** The acceptance entries that do not hold, each as a sentence; empty for a pass. */
    List<String> failures() {
        List<String> l = new ArrayList<>();
        acceptance.forEach((metric, rule) -> {
            Object v = metrics.get(metric);
            if (!holds(v, rule)) {
                l.add(metric + " " + (v == null ? "missing" : format(v)) + " does not satisfy " + rule);
            }
        });
        return l;
    }

    String verdict() {
        return failures().isEmpty() ? "pass" : "fail";
    }

    static boolean holds(Object value, String rule) {
        String r = rule.strip();
        if (value == null || r.length() < 3) {
            return false;
        }
        String op = r.substring(0, 2);
        String arg = r.substring(2).strip();
        if (op.equals("==")) {
            return format(value).equals(arg);
        }
        if (!(value instanceof Number n)) {
            return false;
        }
        double x;
        try {
            x = Double.parseDouble(arg);
        } catch (NumberFormatException e) {
            return false;
        }
        return switch (op) {
            case ">=" -> n.doubleValue() >= x;
            case "<=" -> n.doubleValue() <= x;
            default -> false;
        };
    }

    String toYaml() {
        StringBuilder b = new StringBuilder();
        b.append("experiment:\n");
        b.append("  name: ").append(scalar(name)).append('\n');
        b.append("  world: ").append(scalar(world)).append('\n');
        b.append("  topology: {planes: ").append(planes).append(", paths: ").append(paths).append(", mtu: ")
                .append(mtu).append("}\n");
        b.append("  transport: metaroce\n");
        b.append("  workload: {kind: ").append(scalar(kind)).append(", bytes: ").append(bytes).append(", iters: ")
                .append(iters).append(", qps: ").append(qps).append(", tx_depth: ").append(txDepth);
        if (durationS != null) {
            b.append(", duration_s: ").append(format(durationS));
        }
        b.append(", side: ").append(scalar(side)).append("}\n");
        b.append("  faults: {inject_loss: ").append(format(injectLoss)).append("}\n");
        b.append("  seed: ").append(seed).append('\n');
        b.append("metrics:\n");
        metrics.forEach((k, v) -> b.append("  ").append(k).append(": ").append(format(v)).append('\n'));
        if (acceptance.isEmpty()) {
            b.append("acceptance: {}\n");
        } else {
            b.append("acceptance:\n");
            acceptance.forEach((k, v) -> b.append("  ").append(k).append(": \"").append(v).append("\"\n"));
        }
        b.append("verdict: ").append(verdict()).append('\n');
        return b.toString();
    }

    void write(Path file) {
        try {
            Path parent = file.toAbsolutePath().getParent();
            if (parent != null) {
                Files.createDirectories(parent);
            }
            Files.writeString(file, toYaml(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new PerfException(PerfException.ERROR, "cannot write the record to " + file + ": " + e.getMessage());
        }
    }

    /** A number without needless digits (6 significant decimals at most), or a boolean or string as YAML. */
    static String format(Object v) {
        if (v instanceof Double || v instanceof Float) {
            double d = ((Number) v).doubleValue();
            if (Double.isNaN(d) || Double.isInfinite(d)) {
                return d > 0 ? ".inf" : d < 0 ? "-.inf" : ".nan";
            }
            String s = String.format(Locale.ROOT, "%.6f", d);
            s = s.replaceAll("0+$", "");
            return s.endsWith(".") ? s + "0" : s;
        }
        if (v instanceof Number || v instanceof Boolean) {
            return v.toString();
        }
        return scalar(String.valueOf(v));
    }

    private static String scalar(String s) {
        if (s != null && s.matches("[A-Za-z0-9_.\\-/]+") && !s.matches("(?i)true|false|null|yes|no|on|off|~")) {
            return s;
        }
        return "\"" + (s == null ? "" : s.replace("\\", "\\\\").replace("\"", "\\\"")) + "\"";
    }
}
