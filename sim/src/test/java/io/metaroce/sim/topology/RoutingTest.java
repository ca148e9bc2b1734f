package io.metaroce.sim.topology;

import io.metaroce.core.EngineConfig;
import io.metaroce.sim.event.Units;
import io.metaroce.sim.fabric.FabricConfig;
import io.metaroce.sim.run.Simulation;
import io.metaroce.sim.workload.Derangement;
import org.junit.jupiter.api.Test;

import java.util.Arrays;
import java.util.SplittableRandom;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

class RoutingTest {
    /** A k=4 fat-tree whose fabric links run at a quarter of the host rate, so uplink queues build. */
    private static FabricConfig slowFabric(String routing) {
        return new FabricConfig().fatTree(4).fabricRateBps(25_000_000_000L).routing(routing);
    }

    /** Host 0 sends {@code n} packets of one 5-tuple to host 15; returns the packets each pod-0 agg received. */
    private static long[] burst(String routing, long seed, int n) {
        FabricHarness h = new FabricHarness(slowFabric(routing), seed);
        for (int i = 0; i < n; i++) {
            h.send(0, 15, 0, 3, 4000, true);
        }
        h.drain();
        assertEquals(n, h.received[15]);
        FatTree ft = (FatTree) h.fabric;
        long[] perCore = new long[4];
        for (int c = 0; c < 4; c++) {
            perCore[c] = ft.core(0, c).received();
        }
        return new long[] {ft.agg(0, 0, 0).received(), ft.agg(0, 0, 1).received(), perCore[0], perCore[1],
            perCore[2], perCore[3]};
    }

    @Test
    void ecmpPinsOneFiveTupleToOnePath() {
        long[] r = burst(FabricConfig.ECMP, 1, 40);
        assertTrue(r[0] == 40 && r[1] == 0 || r[0] == 0 && r[1] == 40, Arrays.toString(r));
        assertEquals(1, Arrays.stream(r, 2, 6).filter(c -> c > 0).count(), Arrays.toString(r));
    }

    @Test
    void adaptiveSpreadsOneFiveTupleOverTheLeastQueuedUplinks() {
        long[] r = burst(FabricConfig.ADAPTIVE, 1, 40);
        assertEquals(40, r[0] + r[1]);
        // with uplinks 4x slower than the host, each packet finds the other uplink shorter
        assertTrue(Math.abs(r[0] - r[1]) <= 2, Arrays.toString(r));
        for (int c = 2; c < 6; c++) {
            assertTrue(r[c] > 0, Arrays.toString(r));
        }
        assertArrayEquals(r, burst(FabricConfig.ADAPTIVE, 1, 40), "same seed, same choices");
    }

    @Test
    void adaptiveBreaksTiesBySeededRandomness() {
        // packets spaced out so every uplink queue is empty on arrival: every choice is a tie
        long[][] agg = new long[2][];
        for (int seed = 0; seed < 2; seed++) {
            FabricHarness h = new FabricHarness(new FabricConfig().fatTree(4).routing(FabricConfig.ADAPTIVE), seed);
            FatTree ft = (FatTree) h.fabric;
            for (int i = 0; i < 64; i++) {
                h.send(0, 15, 0, 3, 1000, true);
                h.drain();
            }
            agg[seed] = new long[] {ft.agg(0, 0, 0).received(), ft.agg(0, 0, 1).received()};
            assertTrue(agg[seed][0] > 16 && agg[seed][1] > 16, Arrays.toString(agg[seed]));
        }
        assertFalse(Arrays.equals(agg[0], agg[1]), "different seeds break ties differently");
    }

    @Test
    void ecmpChoicesDependOnTheSeed() {
        long[][] cores = new long[2][4];
        for (int seed = 0; seed < 2; seed++) {
            FabricHarness h = new FabricHarness(new FabricConfig().fatTree(4), 100 + seed);
            for (int path = 0; path < 32; path++) {
                h.send(0, 15, 0, path, 1000, true);
            }
            h.drain();
            for (int c = 0; c < 4; c++) {
                cores[seed][c] = ((FatTree) h.fabric).core(0, c).received();
            }
        }
        assertFalse(Arrays.equals(cores[0], cores[1]), Arrays.deepToString(cores));
    }

    @Test
    void engineTrafficCompletesUnderPerPacketAdaptiveRouting() {
        FabricConfig fc = new FabricConfig().fatTree(4).routing(FabricConfig.ADAPTIVE);
        Simulation sim = new Simulation(3, fc, new EngineConfig().paths(4), true);
        int[] perm = Derangement.byReshuffling(16, new SplittableRandom(3));
        for (int i = 0; i < 16; i++) {
            sim.addFlow(i, perm[i], 256 << 10, 2);
        }
        Simulation.Result r = sim.run(Units.psFromMs(200));
        assertEquals(16, r.completed(), r.toString());
        assertTrue(r.dataCorrect(), r.toString());
        assertEquals(0, r.internalErrors(), r.toString());
    }
}
