package io.metaroce.sim.run;

import io.metaroce.sim.event.EventLoop;
import io.metaroce.sim.event.Units;
import io.metaroce.sim.fabric.FabricConfig;
import io.metaroce.sim.fabric.Link;
import io.metaroce.sim.fabric.PacketPool;
import io.metaroce.sim.fabric.Switch;
import io.metaroce.sim.metrics.Series;
import io.metaroce.sim.topology.LeafSpine;
import io.metaroce.sim.topology.Topologies;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.util.LinkedHashMap;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class ExperimentTest {
    /** 16 hosts, 4 per leaf, 4 spines, 2 planes, small flows, data verified. */
    private static ExperimentSpec small(String kind) {
        ExperimentSpec s = new ExperimentSpec();
        s.fabric.hosts(16).hostsPerLeaf(4).spines(4).planes(2);
        s.engine.paths(16);
        s.workload.kind = kind;
        s.workload.bytes = 128 << 10;
        s.verify = true;
        s.limitPs = Units.psFromMs(50);
        return s;
    }

    /** A fabric built like the one {@code s} runs on, to look up link and port names. */
    private static LeafSpine twin(ExperimentSpec s) {
        return (LeafSpine) Topologies.build(s.fabric, new EventLoop(), new PacketPool(64), new java.util.SplittableRandom(1));
    }

    /** The name of the port of {@code sw} sending on {@code link}, as watchPorts and crossPort take it. */
    private static String portName(Switch sw, Link link) {
        for (int i = 0; i < sw.portCount(); i++) {
            if (sw.port(i).link() == link) {
                return sw.name() + ":" + i;
            }
        }
        throw new AssertionError("no port of " + sw.name() + " on " + link.name());
    }

    private static double num(RunResult r, String metric) {
        Object v = r.metrics.get(metric);
        assertTrue(v instanceof Number, metric + " missing or not a number in " + r.metrics);
        return ((Number) v).doubleValue();
    }

    private static void assertComplete(RunResult r) {
        assertEquals(r.metrics.get("flows"), r.metrics.get("flows_completed"), r.metrics.toString());
        assertEquals(Boolean.TRUE, r.metrics.get("data_correct"), r.metrics.toString());
        assertEquals(0L, r.metrics.get("error_completions"), r.metrics.toString());
        assertEquals(0L, r.metrics.get("internal_errors"), r.metrics.toString());
        assertTrue(num(r, "goodput_gbps") > 0, r.metrics.toString());
    }

    @ParameterizedTest
    @ValueSource(strings = {"bulk", "incast", "permutation", "alltoall", "alltoall-pairwise", "allreduce",
        "allreduce-stepwise"})
    void everyWorkloadCompletesWithCorrectData(String kind) {
        ExperimentSpec s = small(kind);
        s.workload.ranks = 8;
        s.workload.messages = 2;
        if (kind.startsWith("allreduce")) {
            s.workload.bytes = 1 << 20;
        }
        RunResult r = Experiment.run(s, null);
        assertComplete(r);
        long flows = (Long) r.metrics.get("flows");
        long expected = switch (kind) {
            case "bulk" -> 8;
            case "incast" -> s.workload.senders;
            case "permutation" -> 16;
            case "alltoall", "alltoall-pairwise" -> 8 * 7;
            default -> 8;
        };
        assertEquals(expected, flows);
        assertTrue(num(r, "fabric_link_imbalance") >= 1 && num(r, "fabric_link_min_gbps") > 0
                && num(r, "fabric_link_min_gbps") <= num(r, "fabric_link_max_gbps"), r.metrics.toString());
        assertTrue(num(r, "mean_fct_us") > 0 && num(r, "mean_fct_us") <= num(r, "max_fct_us"));
        assertTrue(num(r, "p99_completion_latency_us") <= num(r, "max_fct_us"));
        if (kind.startsWith("alltoall") || kind.startsWith("allreduce")) {
            assertTrue(num(r, "completion_time_us") > 0 && num(r, "algbw_gbps") > 0, r.metrics.toString());
            // nccl-tests' columns: GB/s (1e9 bytes/s) where the older metrics are Gb/s
            assertEquals(num(r, "algbw_gbps") / 8, num(r, "algbw_GBps"), 1e-9);
            assertEquals(num(r, "busbw_gbps") / 8, num(r, "busbw_GBps"), 1e-9);
            assertEquals(num(r, "completion_time_us"), num(r, "time_us"), 1e-9);
            assertEquals(s.workload.bytes / 4, num(r, "count"));
            assertEquals("float", r.metrics.get("type"));
            assertEquals(kind, r.metrics.get("collective"));
        }
    }

    @Test
    void allReduceTakesItsStepsInTurn() {
        // 8 ranks x 14 steps of 128 KiB, each a full message the next step waits for: well above 14 x the time
        // to serialize a step at both planes' rate, and the goodput is the steps' bytes over the time
        ExperimentSpec s = small("allreduce-stepwise");
        s.workload.ranks = 8;
        s.workload.bytes = 1 << 20;
        RunResult r = Experiment.run(s, null);
        assertComplete(r);
        double stepUs = (128 << 10) * 8.0 / 200e9 * 1e6;
        assertTrue(num(r, "completion_time_us") > 14 * stepUs, r.metrics.toString());
        assertEquals(num(r, "completion_time_us"), num(r, "sim_time_us"), 1e-9);
        assertEquals((1 << 20) * 8.0 / (num(r, "completion_time_us") * 1e3), num(r, "algbw_gbps"), 1e-9);
        assertEquals(num(r, "algbw_gbps") * 2 * 7 / 8, num(r, "busbw_gbps"), 1e-9);
    }

    /** Metrics without the wall-clock ones. */
    private static Map<String, Object> modelMetrics(RunResult r) {
        Map<String, Object> m = new LinkedHashMap<>(r.metrics);
        m.keySet().removeIf(k -> k.contains("wall"));
        return m;
    }

    @Test
    void sameSeedSameMetricsAndSeries() {
        ExperimentSpec s = small("permutation");
        s.fabric.linkLoss(0.002);
        s.workload.bytes = 256 << 10;
        RunResult a = Experiment.run(s, null);
        RunResult b = Experiment.run(s, null);
        assertComplete(a);
        assertEquals(modelMetrics(a), modelMetrics(b));
        assertEquals(a.series.size(), b.series.size());
        for (int i = 0; i < a.series.size(); i++) {
            assertTrue(java.util.Arrays.deepEquals(a.series.get(i).y(), b.series.get(i).y()), a.series.get(i).name());
        }
        s.seed = 2;
        RunResult c = Experiment.run(s, null);
        assertNotEquals(modelMetrics(a), modelMetrics(c));
    }

    @Test
    void seriesHaveOneRowPerIntervalUntilTheEnd() {
        ExperimentSpec s = small("incast");
        s.watchPorts.add("receiver");
        LeafSpine names = twin(s);
        s.watchPorts.add(portName(names.leaf(1, 0), names.hostDownlink(0, 1)));
        s.sampleIntervalPs = Units.psFromUs(5);
        RunResult r = Experiment.run(s, null);
        assertComplete(r);
        long end = Math.round(num(r, "sim_time_us") * Units.PS_PER_US);
        long samples = (Long) r.metrics.get("samples");
        assertTrue(samples == end / s.sampleIntervalPs || samples == end / s.sampleIntervalPs - 1,
                samples + " samples for " + end + " ps");
        Map<String, Series> byName = new LinkedHashMap<>();
        for (Series se : r.series) {
            byName.put(se.name(), se);
            assertEquals(samples, se.x().length, se.name());
            for (double[] col : se.y()) {
                assertEquals(samples, col.length, se.name());
            }
            for (int i = 0; i < se.x().length; i++) {
                assertEquals((i + 1) * 5.0, se.x()[i], 1e-9, se.name());
            }
        }
        assertEquals(java.util.List.of("goodput", "goodput_per_sender", "goodput_per_receiver", "goodput_per_plane",
                "queue_depth", "fairness", "counters", "path_cwnd"), java.util.List.copyOf(byName.keySet()));
        assertEquals(16, byName.get("path_cwnd").columns().size());
        assertEquals(8, byName.get("goodput_per_sender").columns().size());
        assertEquals(3, byName.get("queue_depth").columns().size()); // receiver on 2 planes + one by name
        // the per-sender columns add up to the aggregate, and so does the one receiver
        Series agg = byName.get("goodput");
        Series per = byName.get("goodput_per_sender");
        Series recv = byName.get("goodput_per_receiver");
        double total = 0;
        for (int i = 0; i < samples; i++) {
            double sum = 0;
            for (double[] col : per.y()) {
                sum += col[i];
            }
            assertEquals(agg.y()[0][i], sum, 1e-6);
            assertEquals(agg.y()[0][i], recv.y()[0][i], 1e-6);
            total += agg.y()[0][i];
        }
        // nearly all bytes arrive inside sampled intervals (the last partial interval is not sampled)
        double bytes = total * 1e9 / 8 * 5e-6;
        assertTrue(bytes > 0.8 * 8 * (128 << 10) && bytes <= 8 * (128 << 10) + 1, "sampled bytes " + bytes);
        Series q = byName.get("queue_depth");
        double maxQ = 0;
        for (double v : q.y()[0]) {
            maxQ = Math.max(maxQ, v);
        }
        assertTrue(maxQ > 0, "the incast should queue at the receiver's port");
    }

    /**
     * 8 x 256 KiB into one host, sampled every {@code sampleIntervalPs}: they fit the receiver's port buffer, so no
     * drop, and no sender waits out a timeout.
     */
    private static ExperimentSpec eightSenderIncast(long sampleIntervalPs) {
        ExperimentSpec s = small("incast");
        s.workload.bytes = 256 << 10;
        s.workload.senders = 8;
        s.sampleIntervalPs = sampleIntervalPs;
        return s;
    }

    @Test
    void incastOfEightSendersBecomesFair() {
        RunResult r = Experiment.run(eightSenderIncast(Units.psFromUs(10)), null);
        assertComplete(r);
        assertTrue(num(r, "jain_fairness") >= 0.95, r.metrics.toString());
        double fairUs = num(r, "time_to_fair_us");
        assertTrue(fairUs > 0 && fairUs <= 100, r.metrics.toString());
        assertEquals(fairUs / num(r, "base_rtt_us"), num(r, "time_to_fair_rtts"), 1e-9);
        // the metric agrees with the fairness series it was computed from
        Series f = r.series.stream().filter(x -> x.name().equals("fairness")).findFirst().orElseThrow();
        int firstFair = (int) Math.round(fairUs / 10) - 1;
        assertTrue(f.y()[0][firstFair] >= Experiment.FAIR_JAIN);
        assertTrue(firstFair == 0 || f.y()[0][firstFair - 1] < Experiment.FAIR_JAIN);
    }

    @Test
    void aFairnessWindowSlidesOverTheSamples() {
        ExperimentSpec s = eightSenderIncast(Units.psFromUs(5));
        s.fairWindowPs = Units.psFromUs(20);
        RunResult r = Experiment.run(s, null);
        assertComplete(r);
        Series f = r.series.stream().filter(x -> x.name().equals("fairness")).findFirst().orElseThrow();
        Series g = r.series.stream().filter(x -> x.name().equals("goodput_per_sender")).findFirst().orElseThrow();
        int checked = 0;
        for (int i = 3; i < f.x().length; i++) {
            double jain = f.y()[0][i];
            if (Double.isNaN(jain)) {
                continue;
            }
            double[] sums = new double[8];
            boolean allSent = i + 1 < f.x().length;
            for (int k = 0; k < 8 && allSent; k++) {
                for (int j = i - 3; j <= i; j++) {
                    sums[k] += g.y()[k][j];
                }
                allSent = sums[k] > 0 && g.y()[k][i + 1] > 0; // still sending after the window: not done in it
            }
            if (!allSent) {
                continue;
            }
            assertEquals(Experiment.jain(sums), jain, 1e-9, "window ending at " + f.x()[i] + " us");
            checked++;
        }
        assertTrue(checked >= 5, "windows checked: " + checked);
        double fairUs = num(r, "time_to_fair_us");
        assertTrue(fairUs >= 20 && fairUs <= 100, "a window that starts after the last start ends 20 us after it at"
                + " the earliest: " + fairUs);
    }

    @Test
    void timeToFairIsTheStartOfTheLastFairRun() {
        double[] x = {10, 20, 30, 40, 50, 60, 70};
        double[] all = {8, 8, 8, 8, 8, 8, 7};
        long interval = Units.psFromUs(10);
        long last = Units.psFromUs(10);
        // unfair, fair, unfair, fair, fair, fair, then a sender finished (ignored)
        double[] jain = {0.3, 0.99, 0.5, 0.96, 0.97, 0.99, 0.2};
        assertEquals(Units.psFromUs(30), Experiment.timeToFair(x, jain, all, 8, last, interval));
        // the interval ending at 20 us is the first one starting at or after the last start
        double[] early = {0.3, 0.99, 0.99, 0.99, 0.99, 0.99, 0.2};
        assertEquals(Units.psFromUs(10), Experiment.timeToFair(x, early, all, 8, last, interval));
        double[] never = {0.3, 0.99, 0.5, 0.96, 0.97, 0.5, 0.99};
        assertEquals(-1, Experiment.timeToFair(x, never, all, 8, last, interval));
        assertEquals(1.0, Experiment.jain(new double[] {3, 3, 3}), 1e-12);
        assertEquals(0.25, Experiment.jain(new double[] {4, 0, 0, 0}), 1e-12);
    }

    @Test
    void planeFailureMidTransferRecoversWithoutErrorCompletions() {
        ExperimentSpec s = small("permutation");
        s.fabric.planes(4);
        s.workload.bytes = 4 << 20;
        s.workload.messages = 4;
        s.verify = false;
        FaultSpec down = new FaultSpec();
        down.kind = "plane-down";
        down.plane = 2;
        down.atPs = Units.psFromUs(60);
        FaultSpec up = new FaultSpec();
        up.kind = "plane-up";
        up.plane = 2;
        up.atPs = Units.psFromUs(400);
        s.faults.add(up);
        s.faults.add(down);
        RunResult r = Experiment.run(s, null);
        assertEquals(r.metrics.get("flows"), r.metrics.get("flows_completed"), r.metrics.toString());
        assertEquals(0L, r.metrics.get("error_completions"));
        assertTrue(num(r, "drops_link") > 0, "the plane going down loses what was in flight");
        double before = num(r, "goodput_before_gbps");
        double during = num(r, "goodput_during_gbps");
        assertTrue(during < before, r.metrics.toString());
        double rec = num(r, "recovery_time_us");
        assertTrue(rec > 0 && rec < 340, r.metrics.toString());
        assertEquals(rec / num(r, "base_rtt_us"), num(r, "recovery_time_rtts"), 1e-9);
        Series planes = r.series.stream().filter(x -> x.name().equals("goodput_per_plane")).findFirst().orElseThrow();
        assertEquals(4, planes.columns().size());
        int i = (int) (Units.psFromUs(90) / s.sampleIntervalPs) - 1; // an interval inside the outage
        assertEquals(0.0, planes.y()[2][i], 0.0);
        assertTrue(planes.y()[1][i] > 0);
    }

    @Test
    void crossTrafficCongestsOnePathOnly() {
        ExperimentSpec s = small("bulk");
        s.fabric.planes(1);
        s.workload.pairs = "0-12";
        s.workload.bytes = 4 << 20;
        LeafSpine names = twin(s);
        s.workload.crossPort = portName(names.spine(0, 1), names.spineDownlink(0, 1, 3)); // towards host 12's leaf
        s.workload.crossGbps = 90;
        s.workload.crossDst = 13;
        s.watchLinks.add("cross-peers");
        s.workload.crossGbps = 0;
        RunResult base = Experiment.run(s, null); // the same paths without the filler
        s.workload.crossGbps = 90;
        RunResult r = Experiment.run(s, null);
        assertComplete(r);
        assertComplete(base);
        assertEquals(0.0, num(base, "cross_offered_gbps"));
        assertEquals(90.0, num(r, "cross_offered_gbps"), 2.0);
        assertTrue(num(r, "cross_carried_gbps") > 80, r.metrics.toString());
        double congested = num(r, "congested_path_gbps");
        double others = num(r, "other_paths_mean_gbps");
        assertTrue(congested < others, r.metrics.toString());
        assertTrue(congested < num(base, "congested_path_gbps"), base.metrics + " vs " + r.metrics);
        assertTrue(num(base, "other_paths_min_gbps") > 0);
        Series links = r.series.stream().filter(x -> x.name().equals("link_throughput")).findFirst().orElseThrow();
        java.util.List<String> peers = new java.util.ArrayList<>();
        for (int spine = 0; spine < 4; spine++) {
            peers.add(names.spineDownlink(0, spine, 3).name());
        }
        assertEquals(peers, links.columns());
    }

    @Test
    void linkFaultsByName() {
        ExperimentSpec s = small("bulk");
        s.workload.pairs = "0-15,1-14";
        s.workload.bytes = 2 << 20;
        FaultSpec cut = new FaultSpec();
        cut.kind = "link-down";
        LeafSpine names = twin(s);
        cut.link = names.leafUplink(0, 0, 1).name();
        cut.atPs = Units.psFromUs(20);
        FaultSpec lossy = new FaultSpec();
        lossy.kind = "link-loss";
        lossy.link = names.hostDownlink(15, 1).name();
        lossy.loss = 0.05;
        s.faults.add(cut);
        s.faults.add(lossy);
        RunResult r = Experiment.run(s, null);
        assertComplete(r);
        assertTrue(num(r, "drops_link") > 0 && num(r, "retransmits") > 0, r.metrics.toString());
    }

    @Test
    void badInputIsAClearError() {
        ExperimentSpec kind = small("broadcast");
        assertTrue(assertThrows(IllegalArgumentException.class, () -> Experiment.run(kind, null))
                .getMessage().contains("broadcast"));
        ExperimentSpec transport = small("bulk");
        transport.transport = "tcp";
        assertThrows(IllegalArgumentException.class, () -> Experiment.run(transport, null));
        ExperimentSpec link = small("bulk");
        FaultSpec f = new FaultSpec();
        f.kind = "link-down";
        f.link = "nowhere";
        link.faults.add(f);
        assertTrue(assertThrows(IllegalArgumentException.class, () -> Experiment.run(link, null))
                .getMessage().contains("nowhere"));
        ExperimentSpec port = small("bulk");
        port.watchPorts.add("p0.leaf9:0"); // there are 4 leaves
        assertThrows(IllegalArgumentException.class, () -> Experiment.run(port, null));
        ExperimentSpec pairs = small("bulk");
        pairs.workload.pairs = "0-0";
        assertThrows(IllegalArgumentException.class, () -> Experiment.run(pairs, null));
        ExperimentSpec incast = small("incast");
        incast.workload.senders = 16;
        assertThrows(IllegalArgumentException.class, () -> Experiment.run(incast, null));
        ExperimentSpec interval = small("bulk");
        interval.sampleIntervalPs = 0;
        assertThrows(IllegalArgumentException.class, () -> Experiment.run(interval, null));
    }

    @Test
    void aRunCutAtTheLimitCountsItsFlowsIncomplete() {
        ExperimentSpec s = small("permutation");
        s.verify = false;
        s.workload.bytes = 64 << 20;
        s.limitPs = Units.psFromUs(100);
        int[] calls = {0};
        RunResult r = Experiment.run(s, (now, limit, events, wall) -> calls[0]++);
        assertEquals(0L, r.metrics.get("flows_completed"));
        assertEquals(100.0, num(r, "sim_time_us"), 1e-9);
        assertTrue(Double.isNaN(num(r, "mean_fct_us")));
        assertTrue(num(r, "goodput_gbps") > 0);
        assertTrue(calls[0] >= 1, "progress is reported at least at the end");
        assertFalse(r.metrics.containsKey("completion_time_us"));
    }

    @Test
    void pipelinedAllReduceBeatsTheStepwiseRing() {
        // the same 4 MiB over 8 ranks: slices forwarded as they arrive finish well before steps that wait
        double[] busbw = new double[2];
        String[] kinds = {"allreduce", "allreduce-stepwise"};
        for (int i = 0; i < 2; i++) {
            ExperimentSpec s = small(kinds[i]);
            s.verify = false;
            s.workload.ranks = 8;
            s.workload.bytes = 4 << 20;
            s.workload.qpsPerPair = 2;
            s.workload.sliceBytes = 64 << 10;
            RunResult r = Experiment.run(s, null);
            assertEquals(0L, r.metrics.get("error_completions"), r.metrics.toString());
            busbw[i] = num(r, "busbw_GBps");
        }
        assertTrue(busbw[0] > 1.3 * busbw[1], "pipelined " + busbw[0] + " GB/s vs stepwise " + busbw[1]);
    }

    @Test
    void lossModelsSayWhatTheyDo() {
        // end-to-end: every packet is lost with the configured rate whatever its path; per link: more, as a packet
        // between leaves crosses 4 links
        double[] e2e = new double[2];
        String[] models = {FabricConfig.END_TO_END, FabricConfig.PER_LINK};
        for (int i = 0; i < 2; i++) {
            ExperimentSpec s = small("permutation");
            s.verify = false;
            s.workload.bytes = 4 << 20;
            s.fabric.linkLoss = 0.02;
            s.fabric.lossModel = models[i];
            RunResult r = Experiment.run(s, null);
            assertEquals(models[i], r.metrics.get("loss_model"));
            assertEquals(0.02, num(r, "loss_rate"));
            assertEquals(0L, r.metrics.get("error_completions"), r.metrics.toString());
            assertTrue(num(r, "tail_recovery_messages") > 0 && num(r, "tail_recovery_us_p50") > 0
                    && num(r, "tail_recovery_us_p99") >= num(r, "tail_recovery_us_p50"), r.metrics.toString());
            assertEquals(0L, r.metrics.get("tail_unmatched_packets"));
            e2e[i] = num(r, "loss_e2e_rate");
        }
        assertEquals(0.02, e2e[0], 0.002, "end-to-end");
        assertTrue(e2e[1] > 0.03 && e2e[1] < 1 - Math.pow(0.98, 4) + 0.003, "per-link " + e2e[1]);
        ExperimentSpec bad = small("permutation");
        bad.fabric.lossModel = "per-hop";
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> Experiment.run(bad, null));
        assertTrue(e.getMessage().contains("fabric.lossModel"), e.getMessage());
    }
}
