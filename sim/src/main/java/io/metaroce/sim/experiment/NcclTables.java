package io.metaroce.sim.experiment;

import io.metaroce.sim.experiment.ExperimentRunner.PointOutcome;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The nccl-tests view of a sweep of collectives for summary.md: one table per combination of the axes other than
 * {@code workload.bytes} (collective, transport, loss model and rate, ...), headed by the loss model and the
 * measured end-to-end loss rate, with one row per size: nccl-tests' columns (size, count, type, time, algbw,
 * busbw) then error completions, retransmissions, tail recovery, the file's derived metrics and the verdict. A
 * collective still running at the time limit shows the limit as a lower bound of its time ("&gt; T") and the
 * bandwidths it would have had then as upper bounds ("&lt; B").
 */
final class NcclTables {
    private static final String SIZE_AXIS = "workload.bytes";

    private NcclTables() {
    }

    /** The tables, or "" when no point ran a collective. */
    static String markdown(ExperimentFile file, List<PointOutcome> points) {
        Map<String, List<PointOutcome>> groups = new LinkedHashMap<>();
        for (PointOutcome o : points) {
            if (!o.result().metrics.containsKey("busbw_GBps")) {
                continue;
            }
            List<String> parts = new ArrayList<>();
            o.point().forEach((k, v) -> {
                if (!k.equals(SIZE_AXIS)) {
                    parts.add(ExperimentRunner.shortKey(k) + "=" + v);
                }
            });
            groups.computeIfAbsent(String.join(", ", parts), k -> new ArrayList<>()).add(o);
        }
        if (groups.isEmpty()) {
            return "";
        }
        List<String> derived = new ArrayList<>();
        file.derived().forEach(d -> derived.add(d.name()));
        StringBuilder sb = new StringBuilder("\n## nccl-tests tables\n\n");
        sb.append("A collective still running at the time limit shows \"> limit\" as its time and the bandwidths"
                + " it would have had then as upper bounds (\"< B\"). ");
        sb.append("Sizes are the buffer per rank (nccl-tests' size); count is in float elements; time from the first"
                + " rank's start to the last rank's end; algbw = size / time and busbw = algbw x 2(n-1)/n"
                + " (all-reduce) or (n-1)/n (all-to-all), in GB/s (1e9 bytes/s), as nccl-tests' PERFORMANCE.md. "
                + "Tail recovery: p50/p99 time from a message's last original packet to its completion, messages"
                + " with a resent packet only.\n");
        for (Map.Entry<String, List<PointOutcome>> g : groups.entrySet()) {
            List<PointOutcome> rows = new ArrayList<>(g.getValue());
            rows.sort(Comparator.comparingDouble(o -> number(o.result().metrics.get("size_bytes"))));
            Map<String, Object> first = rows.get(0).result().metrics;
            sb.append("\n### ").append(g.getKey().isEmpty() ? "all points" : g.getKey()).append("\n\n");
            sb.append("Loss: ").append(lossLabel(first)).append(".\n\n");
            sb.append("| size (B) | count | type | time (us) | algbw (GB/s) | busbw (GB/s) | #err compl |"
                    + " retransmits | tail p50/p99 (us) | loss e2e |");
            derived.forEach(d -> sb.append(' ').append(d).append(" |"));
            sb.append(" verdict |\n|---:|---:|---|---:|---:|---:|---:|---:|---:|---:|");
            derived.forEach(d -> sb.append("---:|"));
            sb.append("---|\n");
            for (PointOutcome o : rows) {
                Map<String, Object> m = o.result().metrics;
                sb.append("| ").append(m.get("size_bytes"))
                        .append(" | ").append(m.get("count"))
                        .append(" | ").append(m.get("type"))
                        .append(" | ").append(unfinished(m) ? "> " + fixed(m.get("sim_time_us"), 0)
                                : fixed(m.get("time_us"), 1))
                        .append(" | ").append(unfinished(m) ? "< " + fixed(bound(m, 1), 2) : fixed(m.get("algbw_GBps"), 2))
                        .append(" | ").append(unfinished(m) ? "< " + fixed(bound(m, busFactor(m)), 2)
                                : fixed(m.get("busbw_GBps"), 2))
                        .append(" | ").append(m.getOrDefault("error_completions", ""))
                        .append(" | ").append(m.getOrDefault("retransmits", ""))
                        .append(" | ").append(m.containsKey("tail_recovery_us_p50")
                                ? fixed(m.get("tail_recovery_us_p50"), 1) + " / " + fixed(m.get("tail_recovery_us_p99"), 1)
                                : "-")
                        .append(" | ").append(percent(m.get("loss_e2e_rate")));
                for (String d : derived) {
                    sb.append(" | ").append(fixed(m.get(d), 3));
                }
                sb.append(" | ").append(o.verdict()).append(" |\n");
            }
        }
        return sb.toString();
    }

    /** True when the collective was still running at the time limit (no error completion ended it). */
    private static boolean unfinished(Map<String, Object> m) {
        return Double.isNaN(number(m.get("time_us"))) && number(m.get("error_completions")) == 0;
    }

    /** algbw (factor 1) or busbw had the collective ended at the time limit: an upper bound. */
    private static double bound(Map<String, Object> m, double factor) {
        return number(m.get("size_bytes")) / (number(m.get("sim_time_us")) * 1e3) * factor;
    }

    /** busbw / algbw of the point's collective (2(n-1)/n or (n-1)/n), from its Gb/s metrics. */
    private static double busFactor(Map<String, Object> m) {
        String kind = String.valueOf(m.get("collective"));
        double n = number(m.get("ranks"));
        return kind.startsWith("allreduce") ? 2 * (n - 1) / n : (n - 1) / n;
    }

    /** "end-to-end 1% (measured end to end 1.002%)", or "none" at rate 0. */
    static String lossLabel(Map<String, Object> m) {
        double rate = number(m.get("loss_rate"));
        if (!(rate > 0)) {
            return "none (" + m.getOrDefault("loss_model", "?") + " model at 0)";
        }
        return m.get("loss_model") + " " + percent(rate) + " (measured end to end " + percent(m.get("loss_e2e_rate"))
                + ")";
    }

    private static double number(Object v) {
        return v instanceof Number n ? n.doubleValue() : Double.NaN;
    }

    private static String fixed(Object v, int digits) {
        double d = number(v);
        return Double.isNaN(d) ? "-" : String.format(Locale.ROOT, "%." + digits + "f", d);
    }

    private static String percent(Object v) {
        double d = number(v);
        return Double.isNaN(d) ? "-" : Csv.brief(d * 100) + "%";
    }
}
