package io.metaroce.cli.perf;

import io.metaroce.core.Counter;
import io.metaroce.net.DeviceStats;
import io.metaroce.sim.experiment.ExperimentRecord;

import java.io.PrintWriter;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.Supplier;

/** Runs one perf test on one side, prints its report, writes its record and returns the exit code. */
final class PerfRun {
    private PerfRun() {
    }

    static int run(TestKind kind, PerfOptions o, PrintWriter stdout, PrintWriter err) {
        // --run_infinitely: Ctrl-C (SIGINT) or SIGTERM interrupts the run, which then closes cleanly before exit
        java.util.concurrent.CountDownLatch finished = new java.util.concurrent.CountDownLatch(1);
        Thread hook = null;
        if (o.runInfinitely && !o.server()) {
            Thread main = Thread.currentThread();
            hook = new Thread(() -> {
                main.interrupt();
                try {
                    finished.await(STOP_WAIT_S, java.util.concurrent.TimeUnit.SECONDS);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }, "perf-stop");
            Runtime.getRuntime().addShutdownHook(hook);
        }
        try {
            return runOnce(kind, o, stdout, err);
        } finally {
            finished.countDown();
            if (hook != null) {
                try {
                    Runtime.getRuntime().removeShutdownHook(hook);
                } catch (IllegalStateException e) {
                    // the JVM is shutting down (the hook is running): nothing to remove
                }
            }
        }
    }

    /** How long a stopped --run_infinitely client may take to close before the JVM exits anyway, s. */
    private static final long STOP_WAIT_S = 10;

    private static int runOnce(TestKind kind, PerfOptions o, PrintWriter stdout, PrintWriter err) {
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
            Measured m = measure(kind, o, out, err);
            Result r = m.result();
            DeviceStats stats = m.stats();
            Map<String, Long> cm = m.cmCounters();
            if (o.stats) {
                out.print(stats.format());
                out.flush();
            }
            rec = record(kind, o, r, stats, cm.getOrDefault("CM_DISCONNECTS", 0L));
            if (o.record != null) {
                try {
                    rec.write(o.record);
                } catch (java.io.IOException e) {
                    throw new PerfException(PerfException.ERROR, "cannot write the record to " + o.record + ": "
                            + e.getMessage());
                }
                out.println("record: " + o.record + " (verdict: " + rec.verdict() + ")");
                out.flush();
            }
            if (r.verifyFailure != null) {
                throw new PerfException(PerfException.ERROR, r.verifyFailure);
            }
            List<String> failures = PerfRecord.failures(rec);
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

    /** What one session measured, with its device's statistics and connection-manager counters at the end. */
    private record Measured(Result result, DeviceStats stats, Map<String, Long> cmCounters) {
    }

    /**
     * One session: open the device, connect (or accept), run the test at {@code o.size()}, close. With -a the
     * session runs every size, each over new connections of the same device (the server keeps listening, so the
     * client's next connection cannot reach a device that is closing), one table line each.
     */
    private static Measured measure(TestKind kind, PerfOptions o, PrintWriter out, PrintWriter err) {
        // receive queue: the send-bw server's data receives; otherwise the control receives and the latency tests'
        // (1,024 for every test made each QP's work ring 2,048 slots, ~92 KiB per QP: 370 MB at 4,000 QPs)
        int rq = kind == TestKind.SEND_BW && o.server() ? o.rxDepthValue() + Endpoint.CTRL_RECV_SLOTS + 8
                : Endpoint.CTRL_RECV_SLOTS + LatTest.RECVS + 8;
        int cq = o.qps * (o.txDepth + (kind == TestKind.SEND_BW ? o.rxDepthValue() : 0)
                + Endpoint.CTRL_RECV_SLOTS + 16) + 64;
        try (Session s = new Session(kind, o, out, err, rq, cq)) {
            Result r = null;
            int first = o.allSizes ? 2 : o.size();
            int last = o.allSizes ? PerfOptions.ALL_SIZES_MAX : o.size();
            for (int size = first; size <= last && size > 0; size *= 2) {
                if (o.allSizes) {
                    o.size(size);
                    o.continuesTable = size > first;
                    o.tableGoesOn = size < last;
                    s.nextTest();
                }
                r = kind.latency() ? new LatTest(s).run() : new BwTest(s).run();
                if (r.verifyFailure != null) {
                    break;
                }
                if (o.warmupDefaulted) {
                    o.warmup = 0L; // the JIT is warm: the next sizes of -a measure at once
                }
            }
            return new Measured(r, s.stats(), s.cmCounters());
        }
    }

    private static void json(PrintWriter stdout, PerfOptions o, Supplier<String> doc) {
        if (o.json) {
            stdout.println(doc.get());
            stdout.flush();
        }
    }

    /** The run's record: its metrics, the device's counters and the acceptance the options ask for. */
    static ExperimentRecord record(TestKind kind, PerfOptions o, Result r, DeviceStats stats, long cmDisconnects) {
        Map<String, Object> metrics = new LinkedHashMap<>(r.metrics);
        Map<String, String> acceptance = new LinkedHashMap<>();
        metrics.put("auth", o.authKey == null ? 0 : o.encrypt ? 2 : 1); // AUTH-9: 0 none, 1 tag, 2 encrypt too
        Map<Counter, Long> c = stats.counters();
        metrics.put("retransmits", c.getOrDefault(Counter.RETRANSMITS, 0L));
        metrics.put("timeouts", c.getOrDefault(Counter.TIMEOUTS, 0L));
        metrics.put("ecn_echoes", c.getOrDefault(Counter.ECN_ECHOES, 0L));
        metrics.put("path_failovers", c.getOrDefault(Counter.PATH_FAILOVERS, 0L));
        long drops = stats.injectedDrops() + stats.txSendDrops();
        for (Map.Entry<Counter, Long> e : c.entrySet()) {
            if (e.getKey().name().startsWith("DROP_")) {
                drops += e.getValue();
            }
        }
        metrics.put("drops", drops);
        metrics.put("injected_drops", stats.injectedDrops());
        metrics.put("tx_data_packets", c.getOrDefault(Counter.TX_DATA_PACKETS, 0L));
        DeviceStats.Datapath dp = stats.datapath();
        metrics.put("datagrams_per_sendmmsg", dp.datagramsPerCall());
        metrics.put("gso_messages", dp.gsoMessages());
        metrics.put("gso_segments_per_message", dp.segmentsPerGsoMessage());
        metrics.put("rx_datagrams_per_buffer", dp.datagramsPerRxBuffer(stats.rxDatagrams()));
        metrics.put("agent_stalls", dp.stalls());
        metrics.put("agent_longest_stall_ms", dp.longestStallNs() / 1e6);
        long hwm = peakRssKib();
        if (hwm > 0) {
            metrics.put("peak_rss_kib", hwm);
        }
        metrics.put("cm_disconnects", cmDisconnects);
        if (r.verified) {
            metrics.put("data_verified", r.verifyFailure == null);
            acceptance.put("data_verified", "true");
        }
        if (o.expectGbps != null) {
            acceptance.put("goodput_gbps", ">= " + PerfRecord.format(o.expectGbps));
        }
        if (o.expectP99Us != null) {
            acceptance.put("lat_p99_us", "<= " + PerfRecord.format(o.expectP99Us));
        }
        return PerfRecord.of(kind, o, r, metrics, acceptance);
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
