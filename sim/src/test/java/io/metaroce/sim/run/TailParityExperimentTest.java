package io.metaroce.sim.run;

import io.metaroce.sim.event.Units;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * REL-18 in the simulator: a pipelined ring all-reduce over 16 hosts at 1% loss per link, with every byte verified,
 * runs with and without tail parity; with it, lost segments of a step's tail are rebuilt at the receiver and the
 * collective finishes sooner.
 */
class TailParityExperimentTest {
    private static RunResult allReduce(int tail) {
        ExperimentSpec s = new ExperimentSpec();
        s.seed = 3;
        s.fabric.hosts(16).hostsPerLeaf(4).spines(4).planes(2).linkLoss(0.01);
        s.engine.paths(16).minRtoNs(50_000).parityTailSegments(tail);
        s.workload.kind = "allreduce";
        s.workload.bytes = 2 << 20;
        s.workload.qpsPerPair = 2;
        s.verify = true;
        s.limitPs = Units.psFromMs(100);
        RunResult r = Experiment.run(s, null);
        assertEquals(r.metrics.get("flows"), r.metrics.get("flows_completed"), r.metrics.toString());
        assertEquals(0L, r.metrics.get("error_completions"), r.metrics.toString());
        assertEquals(true, r.metrics.get("data_correct"), r.metrics.toString());
        return r;
    }

    @Test
    void tailParityRebuildsLostSegmentsAndShortensTheCollective() {
        RunResult off = allReduce(0);
        RunResult on = allReduce(16);
        assertTrue(!off.metrics.containsKey("parity_sent"), "no parity counters without parity");
        assertTrue((Long) on.metrics.get("parity_rebuilt") > 0, on.metrics.toString());
        double offUs = ((Number) off.metrics.get("completion_time_us")).doubleValue();
        double onUs = ((Number) on.metrics.get("completion_time_us")).doubleValue();
        assertTrue(onUs < offUs, "with parity " + onUs + " us, without " + offUs + " us");
    }
}
