package io.metaroce.cli.perf;

import io.metaroce.sim.experiment.ExperimentRecord;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The experiment record of one perf run: the same {@link ExperimentRecord} type, keys and SnakeYAML writer as a
 * simulated point's, with {@code world} {@code loopback} or {@code testbed}. The verdict is pass when every
 * acceptance criterion holds (or there is none), fail otherwise.
 */
final class PerfRecord {
    private PerfRecord() {
    }

    /** The record of a run of {@code kind} with options {@code o} that measured {@code metrics}. */
    static ExperimentRecord of(TestKind kind, PerfOptions o, Result r, Map<String, Object> metrics,
                               Map<String, String> acceptance) {
        Map<String, Object> exp = new LinkedHashMap<>();
        exp.put("name", o.name);
        exp.put("world", o.world);
        Map<String, Object> topology = new LinkedHashMap<>();
        topology.put("planes", o.planes.size());
        topology.put("paths", o.paths);
        topology.put("mtu", o.payloadMtu());
        exp.put("topology", topology);
        exp.put("transport", "metaroce");
        Map<String, Object> workload = new LinkedHashMap<>();
        workload.put("kind", kind.id());
        workload.put("bytes", r.size > 0 ? r.size : o.size());
        workload.put("iters", r.iters);
        workload.put("qps", o.qps);
        workload.put("tx_depth", o.txDepth);
        if (o.durationS != null) {
            workload.put("duration_s", o.durationS);
        }
        if (o.omitS > 0) {
            workload.put("omit_s", o.omitS); // left out of every figure; the counters cover the whole run
        }
        workload.put("side", o.server() ? "server" : "client");
        exp.put("workload", workload);
        List<Map<String, Object>> faults = new ArrayList<>();
        if (o.injectLoss > 0) {
            Map<String, Object> f = new LinkedHashMap<>();
            f.put("kind", "receiver_drop"); // --inject-loss: this side drops received datagrams (test only)
            f.put("fraction", o.injectLoss);
            faults.add(f);
        }
        exp.put("faults", faults);
        exp.put("seed", o.seed);
        List<ExperimentRecord.Check> checks = ExperimentRecord.judge(acceptance, metrics);
        boolean pass = checks.stream().allMatch(ExperimentRecord.Check::pass);
        return new ExperimentRecord(exp, metrics, checks, pass ? "pass" : "fail", List.of());
    }

    /** The message size of the run the record describes, bytes. */
    static long bytes(ExperimentRecord rec) {
        return ((Number) workload(rec).get("bytes")).longValue();
    }

    /** The iterations of the run the record describes. */
    static long iters(ExperimentRecord rec) {
        return ((Number) workload(rec).get("iters")).longValue();
    }

    @SuppressWarnings("unchecked")
    private static Map<String, Object> workload(ExperimentRecord rec) {
        return (Map<String, Object>) rec.experiment().get("workload");
    }

    /** The criteria that do not hold, each as a sentence; empty for a pass. */
    static List<String> failures(ExperimentRecord rec) {
        List<String> l = new ArrayList<>();
        for (ExperimentRecord.Check c : rec.checks()) {
            if (!c.pass()) {
                l.add(c.metric() + " " + (c.actual() == null ? "missing" : format(c.actual())) + " does not satisfy "
                        + c.require());
            }
        }
        return l;
    }

    /** A number without needless digits (6 significant decimals at most); anything else as text. */
    static String format(Object v) {
        if (v instanceof Double || v instanceof Float) {
            String s = String.format(Locale.ROOT, "%.6f", ((Number) v).doubleValue()).replaceAll("0+$", "");
            return s.endsWith(".") ? s + "0" : s;
        }
        return String.valueOf(v);
    }
}
