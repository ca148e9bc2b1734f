package io.metaroce.cli.perf;

import io.metaroce.core.Counter;
import io.metaroce.net.DeviceStats;

import java.io.PrintWriter;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.Supplier;

/** Runs one perf test on one side, prints its report, writes its record and returns the exit code. */
final class PerfRun {
    private PerfRun() {
    }

    static int run(TestKind kind, PerfOptions o, PrintWriter stdout, PrintWriter err) {
        // With --json, standard output carries the one JSON document and the text report moves to stderr.
        PrintWriter out = o.json ? err : stdout;
        ExperimentRecord rec = null;
        try {
            o.applyDefaults(kind);
            o.validate(kind);
            for (String w : o.deprecations()) {
                err.println("perf " + kind.id() + ": warning: " + w);
                err.flush();
            }
            if (o.injectLoss > 0) {
                err.printf(Locale.ROOT, "perf %s: --inject-loss %s is a TEST-ONLY receiver-side drop: this device "
                        + "discards that fraction of the protocol datagrams it receives before the engine sees them "
                        + "(seeded); it is not network loss.%n", kind.id(), o.injectLoss);
                err.flush();
            }
            int rq = kind == TestKind.SEND_BW && o.server() ? o.rxDepthValue() + Endpoint.CTRL_RECV_SLOTS + 8 : 1024;
            int cq = o.qps * (o.txDepth + (kind == TestKind.SEND_BW ? o.rxDepthValue() : 0)
                    + Endpoint.CTRL_RECV_SLOTS + 16) + 64;
            Result r;
            DeviceStats stats;
            Map<String, Long> cm;
            try (Session s = new Session(kind, o, out, err, rq, cq)) {
                r = kind.latency() ? new LatTest(s).run() : new BwTest(s).run();
                stats = s.stats();
                cm = s.cmCounters();
            }
            if (o.stats) {
                out.print(stats.format());
                out.flush();
            }
            rec = record(kind, o, r, stats);
            rec.metrics.put("cm_disconnects", cm.getOrDefault("CM_DISCONNECTS", 0L));
            if (o.record != null) {
                rec.write(o.record);
                out.println("record: " + o.record + " (verdict: " + rec.verdict() + ")");
                out.flush();
            }
            if (r.verifyFailure != null) {
                throw new PerfException(PerfException.ERROR, r.verifyFailure);
            }
            List<String> failures = rec.failures();
            if (!failures.isEmpty()) {
                throw new PerfException(PerfException.ACCEPTANCE, "verdict: fail: " + String.join("; ", failures));
            }
            ExperimentRecord finished = rec;
            json(stdout, o, () -> PerfJson.document(kind, o, finished, 0, null));
            return 0;
        } catch (PerfException e) {
            err.println("perf " + kind.id() + ": error: " + e.getMessage());
            err.flush();
            out.flush();
            ExperimentRecord done = rec;
            json(stdout, o, () -> done == null ? PerfJson.failure(kind, o, e.exitCode(), e.getMessage())
                    : PerfJson.document(kind, o, done, e.exitCode(), e.getMessage()));
            return e.exitCode();
        }
    }

    private static void json(PrintWriter stdout, PerfOptions o, Supplier<String> doc) {
        if (o.json) {
            stdout.println(doc.get());
            stdout.flush();
        }
    }

    static ExperimentRecord record(TestKind kind, PerfOptions o, Result r, DeviceStats stats) {
        ExperimentRecord rec = new ExperimentRecord();
        rec.name = o.name;
        rec.world = o.world;
        rec.planes = o.planes.size();
        rec.paths = o.paths;
        rec.mtu = o.payloadMtu();
        rec.kind = kind.id();
        rec.bytes = r.size > 0 ? r.size : o.size();
        rec.iters = r.iters;
        rec.qps = o.qps;
        rec.txDepth = o.txDepth;
        rec.durationS = o.durationS;
        rec.side = o.server() ? "server" : "client";
        rec.injectLoss = o.injectLoss;
        rec.seed = o.seed;
        rec.metrics.putAll(r.metrics);
        rec.metrics.put("auth", o.authKey == null ? 0 : o.encrypt ? 2 : 1); // AUTH-9: 0 none, 1 tag, 2 encrypt too
        Map<Counter, Long> c = stats.counters();
        rec.metrics.put("retransmits", c.getOrDefault(Counter.RETRANSMITS, 0L));
        rec.metrics.put("timeouts", c.getOrDefault(Counter.TIMEOUTS, 0L));
        rec.metrics.put("ecn_echoes", c.getOrDefault(Counter.ECN_ECHOES, 0L));
        rec.metrics.put("path_failovers", c.getOrDefault(Counter.PATH_FAILOVERS, 0L));
        long drops = stats.injectedDrops() + stats.txSendDrops();
        for (Map.Entry<Counter, Long> e : c.entrySet()) {
            if (e.getKey().name().startsWith("DROP_")) {
                drops += e.getValue();
            }
        }
        rec.metrics.put("drops", drops);
        rec.metrics.put("injected_drops", stats.injectedDrops());
        rec.metrics.put("tx_data_packets", c.getOrDefault(Counter.TX_DATA_PACKETS, 0L));
        DeviceStats.Datapath dp = stats.datapath();
        rec.metrics.put("datagrams_per_sendmmsg", dp.datagramsPerCall());
        rec.metrics.put("gso_messages", dp.gsoMessages());
        rec.metrics.put("gso_segments_per_message", dp.segmentsPerGsoMessage());
        rec.metrics.put("rx_datagrams_per_buffer", dp.datagramsPerRxBuffer(stats.rxDatagrams()));
        rec.metrics.put("agent_stalls", dp.stalls());
        long hwm = peakRssKib();
        if (hwm > 0) {
            rec.metrics.put("peak_rss_kib", hwm);
        }
        if (r.verified) {
            rec.metrics.put("data_verified", r.verifyFailure == null);
            rec.acceptance.put("data_verified", "== true");
        }
        if (o.expectGbps != null) {
            rec.acceptance.put("goodput_gbps", ">= " + ExperimentRecord.format(o.expectGbps));
        }
        if (o.expectP99Us != null) {
            rec.acceptance.put("lat_p99_us", "<= " + ExperimentRecord.format(o.expectP99Us));
        }
        return rec;
    }

    /** The process's peak resident set (VmHWM) in KiB, or -1 where /proc is missing. */
    static long peakRssKib() {
        try {
            for (String line : java.nio.file.Files.readAllLines(java.nio.file.Path.of("/proc/self/status"))) {
                if (line.startsWith("VmHWM:")) {
                    return Long.parseLong(line.replaceAll("[^0-9]", ""));
                }
            }
        } catch (java.io.IOException | RuntimeException e) {
            return -1;
        }
        return -1;
    }
}
