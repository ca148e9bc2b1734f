package io.metaroce.cli;

import io.metaroce.sim.event.Units;
import io.metaroce.sim.run.Experiment;
import io.metaroce.sim.run.ExperimentSpec;
import io.metaroce.sim.run.RunResult;

import java.io.PrintStream;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The demo's simulated comparison: MetaRoCE and RoCEv2 on the same leaf-spine fabric (4 hosts per leaf, 4 spines,
 * 4 planes of 100 Gb/s, 1 us links), a seeded permutation workload, at each loss rate applied to every link. MetaRoCE
 * runs with {@code engine.minRtoNs} 50 us (the fabric's RTT is ~10 us), one QP per host pair spraying over every
 * plane, and verifies every delivered byte; RoCEv2 runs as deployed: PFC on, DCQCN with the ECN thresholds
 * {@link io.metaroce.sim.roce.RoceConfig} pairs it with (Kmin 400 KB, Kmax 1600 KB, Pmax 0.2, as experiments E1 and E4
 * set them), and one QP per plane per host pair (a host pair's QPs spread over its NICs), since one RoCEv2 QP
 * can only use one path of one plane.
 */
final class SimDemo {
    /** The two transports, in table order. */
    static final List<String> TRANSPORTS = List.of("metaroce", "rocev2");
    /** Virtual-time limit of one run (flows not done by then count as incomplete). */
    static final long LIMIT_PS = Units.psFromUs(200_000);
    /** MetaRoCE paths per QP (4 per plane). */
    static final int PATHS = 16;
    /** Planes of the fabric (RoCEv2 runs one QP per plane per host pair). */
    static final int PLANES = 4;
    /** The ECN marking RoCEv2's DCQCN settings go with (HPCC ns-3; experiments E1 and E4). */
    static final long ROCE_ECN_KMIN_BYTES = 400_000;
    static final long ROCE_ECN_KMAX_BYTES = 1_600_000;
    static final double ROCE_ECN_PMAX = 0.2;

    /** One transport at one loss rate. */
    record Row(String transport, double loss, double goodputGbps, double ratio, double p99FctUs, long drops,
               long retransmits, long timeouts, long errorCompletions, long flows, long flowsCompleted,
               Boolean dataCorrect, double wallSeconds) {
        /**
         * MetaRoCE's row is correct when every flow completed without an error completion and every delivered
         * message matched its source; RoCEv2's rows are shown for comparison and judged on nothing.
         */
        boolean ok() {
            return !transport.equals("metaroce")
                    || errorCompletions == 0 && flowsCompleted == flows && Boolean.TRUE.equals(dataCorrect);
        }
    }

    /** Every row, in run order, and the wall time of all runs. */
    record Result(List<Row> rows, double wallSeconds) {
        /** Whether every row is correct ({@link Row#ok()}). */
        boolean ok() {
            return rows.stream().allMatch(Row::ok);
        }

        /** The row of {@code transport} at {@code loss}, or null. */
        Row row(String transport, double loss) {
            return rows.stream().filter(r -> r.transport.equals(transport) && r.loss == loss).findFirst()
                    .orElse(null);
        }
    }

    private SimDemo() {
    }

    /** The experiment point of {@code transport} with {@code hosts} hosts, {@code bytes} per flow and link loss. */
    static ExperimentSpec spec(String transport, int hosts, long bytes, double loss, long seed) {
        ExperimentSpec s = new ExperimentSpec();
        s.name = "demo-" + transport;
        s.seed = seed;
        s.transport = transport;
        s.fabric.hosts(hosts).hostsPerLeaf(4).spines(4).planes(PLANES)
                .hostRateBps(100_000_000_000L).fabricRateBps(100_000_000_000L)
                .hostLinkDelayPs(Units.psFromUs(1)).fabricLinkDelayPs(Units.psFromUs(1))
                .linkLoss(loss).pfc(transport.equals("rocev2"));
        s.engine.paths(PATHS).minRtoNs(50_000);
        s.workload.kind = "permutation";
        s.workload.bytes = bytes;
        if (transport.equals("rocev2")) {
            s.fabric.ecn(ROCE_ECN_KMIN_BYTES, ROCE_ECN_KMAX_BYTES, ROCE_ECN_PMAX);
            s.workload.qpsPerPair = PLANES; // bytes are split over them
        }
        s.verify = transport.equals("metaroce");
        s.sampleIntervalPs = Units.psFromUs(100);
        s.limitPs = LIMIT_PS;
        return s;
    }

    /**
     * Runs both transports at every loss in {@code losses} and prints the table and what it shows to {@code out}.
     * The ratio is each run's goodput over the same transport's lossless goodput (NaN without a 0 in
     * {@code losses}).
     */
    static Result run(int hosts, long bytes, double[] losses, long seed, PrintStream out) {
        if (hosts < 2) {
            throw new IllegalArgumentException("--sim-hosts must be 0 (skip) or at least 2, got " + hosts);
        }
        if (bytes <= 0) {
            throw new IllegalArgumentException("bytes per flow must be positive, got " + bytes);
        }
        out.printf(Locale.ROOT, "%-9s %6s %13s %11s %12s %8s %12s %9s %7s %6s %6s%n", "transport", "loss",
                "goodput Gb/s", "vs 0% loss", "p99 FCT us", "drops", "retransmits", "timeouts", "errors", "flows",
                "data");
        List<Row> rows = new ArrayList<>();
        long t0 = System.nanoTime();
        for (String transport : TRANSPORTS) {
            double lossless = Double.NaN;
            for (double loss : losses) {
                RunResult r = Experiment.run(spec(transport, hosts, bytes, loss, seed), null);
                Map<String, Object> m = r.metrics;
                double goodput = number(m, "goodput_gbps");
                if (loss == 0) {
                    lossless = goodput;
                }
                Object correct = m.get("data_correct");
                Row row = new Row(transport, loss, goodput, goodput / lossless,
                        number(m, "p99_completion_latency_us"), (long) number(m, "drops"),
                        (long) number(m, "retransmits"), (long) number(m, "timeouts"),
                        (long) number(m, "error_completions"), (long) number(m, "flows"),
                        (long) number(m, "flows_completed"), correct instanceof Boolean b ? b : null,
                        number(m, "wall_s"));
                rows.add(row);
                out.printf(Locale.ROOT, "%-9s %6s %13.1f %11s %12.1f %8d %12d %9d %7d %6s %6s%n", transport,
                        String.format(Locale.ROOT, "%.1f%%", loss * 100), row.goodputGbps,
                        Double.isNaN(row.ratio) ? "-" : String.format(Locale.ROOT, "%.3f", row.ratio), row.p99FctUs,
                        row.drops, row.retransmits, row.timeouts, row.errorCompletions,
                        row.flowsCompleted + "/" + row.flows,
                        row.dataCorrect == null ? "-" : row.dataCorrect ? "ok" : "WRONG");
            }
        }
        Result result = new Result(List.copyOf(rows), (System.nanoTime() - t0) / 1e9);
        out.println();
        out.println(conclusion(result, losses));
        return result;
    }

    /** One line saying what the table shows, from its numbers. */
    static String conclusion(Result r, double[] losses) {
        double worst = 0;
        for (double l : losses) {
            worst = Math.max(worst, l);
        }
        Row meta = r.row("metaroce", worst);
        Row roce = r.row("rocev2", worst);
        if (worst == 0 || meta == null || roce == null || Double.isNaN(meta.ratio) || Double.isNaN(roce.ratio)) {
            return String.format(Locale.ROOT, "%d runs in %.1f s wall time.", r.rows.size(), r.wallSeconds);
        }
        return String.format(Locale.ROOT, "At %.1f%% loss on every link MetaRoCE keeps %.0f%% of its lossless "
                        + "goodput (selective retransmission over %d paths) while RoCEv2's go-back-N keeps %.0f%%; "
                        + "%d runs in %.1f s wall time.", worst * 100, meta.ratio * 100, PATHS, roce.ratio * 100,
                r.rows.size(), r.wallSeconds);
    }

    private static double number(Map<String, Object> m, String key) {
        Object v = m.get(key);
        if (!(v instanceof Number n)) {
            throw new IllegalStateException("simulator result has no metric " + key);
        }
        return n.doubleValue();
    }
}
