package io.metaroce.cli.perf;

import com.fasterxml.jackson.jr.ob.JSON;
import io.metaroce.sim.experiment.ExperimentRecord;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * {@code perf ... --json}: one JSON document per run on standard output. The result fields carry perftest's
 * {@code --out_json} names ({@code MsgSize}, {@code n_iterations}, {@code BW_peak}, {@code BW_average},
 * {@code MsgRate}; {@code t_min}, {@code t_typical}, {@code t_avg}, {@code t_max}, {@code percentile_99},
 * {@code percentile_99.9}) with their units named beside them; {@code metrics} holds the experiment record's
 * metrics (snake case, units in the names), then the verdict and the exit code. A run that fails still
 * prints one document, with {@code error}.
 */
final class PerfJson {
    private PerfJson() {
    }

    /** The document of a run that finished (its acceptance may still have failed: see {@code exitCode}). */
    static String document(TestKind kind, PerfOptions o, ExperimentRecord rec, int exitCode, String error) {
        Map<String, Object> d = new LinkedHashMap<>();
        d.put("test", kind.id());
        d.put("side", o.server() ? "server" : "client");
        d.put("MsgSize", PerfRecord.bytes(rec));
        d.put("n_iterations", PerfRecord.iters(rec));
        Map<String, Object> m = rec.metrics();
        if (kind.latency()) {
            d.put("lat_unit", "usec");
            put(d, "t_min", m.get("lat_min_us"));
            put(d, "t_typical", m.get("lat_p50_us"));
            put(d, "t_avg", m.get("lat_avg_us"));
            put(d, "t_max", m.get("lat_max_us"));
            put(d, "percentile_99", m.get("lat_p99_us"));
            put(d, "percentile_99.9", m.get("lat_p999_us"));
        } else {
            d.put("bw_unit", o.reportGbits ? "Gbit/sec" : "MB/sec");
            put(d, "BW_peak", bw(m.get("bw_peak_gbps"), o.reportGbits));
            put(d, "BW_average", bw(m.get("goodput_gbps"), o.reportGbits));
        }
        d.put("msg_rate_unit", "Mpps");
        put(d, "MsgRate", m.get("msg_rate_mpps"));
        d.put("metrics", m);
        d.put("verdict", rec.verdict());
        d.put("exit_code", exitCode);
        if (error != null) {
            d.put("error", error);
        }
        return write(d);
    }

    /** The document of a run that stopped before it had results. */
    static String failure(TestKind kind, PerfOptions o, int exitCode, String error) {
        Map<String, Object> d = new LinkedHashMap<>();
        d.put("test", kind.id());
        d.put("side", o.host == null ? "server" : "client");
        d.put("exit_code", exitCode);
        d.put("error", error);
        return write(d);
    }

    private static void put(Map<String, Object> d, String key, Object v) {
        if (v != null) {
            d.put(key, v);
        }
    }

    /** Gb/s to perftest's unit: Gb/sec, or MB/sec (2^20 bytes per second). */
    private static Object bw(Object gbps, boolean gbits) {
        if (!(gbps instanceof Number n)) {
            return null;
        }
        return gbits ? n.doubleValue() : n.doubleValue() * 1e9 / 8 / (1 << 20);
    }

    private static String write(Map<String, Object> d) {
        try {
            return JSON.std.with(JSON.Feature.PRETTY_PRINT_OUTPUT).asString(d);
        } catch (IOException e) {
            throw new UncheckedIOException(e); // not reachable: maps of numbers and strings into a String
        }
    }
}
