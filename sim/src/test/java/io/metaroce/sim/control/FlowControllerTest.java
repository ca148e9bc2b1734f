package io.metaroce.sim.control;

import io.metaroce.sim.event.EventLoop;
import io.metaroce.sim.event.Units;
import io.metaroce.sim.fabric.PacketPool;
import io.metaroce.sim.fabric.SwitchPort;
import io.metaroce.sim.run.Experiment;
import io.metaroce.sim.run.ExperimentSpec;
import io.metaroce.sim.run.RunResult;
import io.metaroce.sim.transport.Host;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** E7's controller: it re-pins colliding RoCEv2 flows and MetaRoCE paths, deterministically. */
class FlowControllerTest {
    /** 4 flows from leaf 0 to leaf 1 over 4 uplinks (8 hosts, 4 per leaf, 4 spines): ECMP leaves some collide. */
    private static ExperimentSpec shift(String transport, long periodPs, long seed) {
        ExperimentSpec s = new ExperimentSpec();
        s.seed = seed;
        s.transport = transport;
        s.fabric.hosts(8).hostsPerLeaf(4).spines(4).bufferBytes(2 << 20);
        s.fabric.pfc = transport.equals("rocev2");
        s.engine.paths(4);
        s.workload.kind = "bulk";
        s.workload.bytes = 4 << 20;
        s.controller.periodPs = periodPs;
        s.controller.delayPs = Units.psFromUs(10);
        s.controller.watch = true;
        s.sampleIntervalPs = Units.psFromUs(10);
        s.limitPs = Units.psFromMs(20);
        return s;
    }

    @Test
    void collidingRoceFlowsAreMovedOffTheHotLinkAndFinishSooner() {
        // the first seed whose ECMP hashing puts two of the four QPs on one uplink
        long seed = 1;
        RunResult none = Experiment.run(shift("rocev2", 0, seed), null);
        while ((double) none.metrics.get("fabric_link_imbalance") < 1.2 && seed < 20) {
            none = Experiment.run(shift("rocev2", 0, ++seed), null);
        }
        assertTrue((double) none.metrics.get("fabric_link_imbalance") >= 1.2, "no seed up to 20 collides");
        RunResult ctl = Experiment.run(shift("rocev2", Units.psFromUs(50), seed), null);
        assertTrue((long) ctl.metrics.get("controller_moves") >= 1, ctl.metrics.toString());
        assertTrue((double) ctl.metrics.get("max_fct_us") < (double) none.metrics.get("max_fct_us"),
                ctl.metrics.get("max_fct_us") + " vs " + none.metrics.get("max_fct_us"));
        assertTrue((double) ctl.metrics.get("hot_time_us") < (double) none.metrics.get("hot_time_us"));
        assertEquals(0L, ctl.metrics.get("error_completions"));
        // deterministic: the same spec gives the same moves and times
        RunResult again = Experiment.run(shift("rocev2", Units.psFromUs(50), seed), null);
        assertEquals(ctl.metrics.get("controller_moves"), again.metrics.get("controller_moves"));
        assertEquals(ctl.metrics.get("max_fct_us"), again.metrics.get("max_fct_us"));
    }

    @Test
    void metaRocePathsCanBeSteeredWithoutHarmingTheData() {
        ExperimentSpec s = shift("metaroce", Units.psFromUs(20), 1);
        s.controller.hotQueueBytes = 20_000; // low enough that MetaRoCE's queues trip it and paths get moved
        s.verify = true;
        s.engine.elidePayload = false;
        RunResult r = Experiment.run(s, null);
        assertTrue((long) r.metrics.get("controller_moves") >= 1, r.metrics.toString());
        assertEquals(true, r.metrics.get("data_correct"));
        assertEquals(4L, r.metrics.get("flows_completed"));
    }

    @Test
    void steeringChangesOnlyTheNamedPathsEntropy() {
        Host h = new Host(0, null, new EventLoop(), new PacketPool(16), new SwitchPort[0]);
        assertEquals(3, h.entropy(5, 3));
        h.steer(5, 3, 1234);
        assertEquals(1234, h.entropy(5, 3));
        assertEquals(2, h.entropy(5, 2));
        assertEquals(3, h.entropy(4, 3));
        assertThrows(IllegalArgumentException.class, () -> h.steer(5, 256, 1));
    }

    @Test
    void aBadControllerConfigIsRefused() {
        ExperimentSpec s = shift("rocev2", Units.psFromUs(50), 1);
        s.controller.movesPerPeriod = 0;
        assertThrows(IllegalArgumentException.class, () -> Experiment.run(s, null));
    }
}
