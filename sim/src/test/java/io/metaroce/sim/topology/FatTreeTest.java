package io.metaroce.sim.topology;

import io.metaroce.core.EngineConfig;
import io.metaroce.sim.event.EventLoop;
import io.metaroce.sim.event.Units;
import io.metaroce.sim.fabric.FabricConfig;
import io.metaroce.sim.fabric.PacketPool;
import io.metaroce.sim.fabric.Switch;
import io.metaroce.sim.run.Simulation;
import io.metaroce.sim.workload.Derangement;
import org.junit.jupiter.api.Test;

import java.util.SplittableRandom;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class FatTreeTest {
    private static FabricConfig k4(int planes) {
        return new FabricConfig().fatTree(4).planes(planes);
    }

    @Test
    void k4HasTwentySwitchesAndNinetySixLinksPerPlane() {
        FabricHarness h = new FabricHarness(k4(2), 1);
        FatTree ft = (FatTree) h.fabric;
        assertEquals(16, ft.hosts());
        assertEquals(2 * 20, ft.switches().size());
        assertEquals(2 * (2 * 16 + 2 * 8 * 2 + 2 * 8 * 2), ft.links().size());
        assertEquals(96, ft.planeLinks(1).size());
        for (Switch s : ft.switches()) {
            assertEquals(4, s.portCount(), s.name());
        }
        assertEquals(1.0, ft.config().oversubscription());
        assertEquals(3, ft.podOf(13));
        assertEquals(0, ft.edgeOf(13));
        assertEquals("p1.pod3.edge0>p1.pod3.agg1", ft.edgeUplink(1, 3, 0, 1).name());
        assertEquals("p0.pod2.agg1>p0.core3", ft.aggUplink(0, 2, 1, 1).name());
        assertEquals("p0.core3>p0.pod2.agg1", ft.coreDownlink(0, 3, 2).name());
        assertEquals("p0.pod2.agg1>p0.pod2.edge0", ft.aggDownlink(0, 2, 1, 0).name());
    }

    @Test
    void everyPairIsRoutedUpToTheLowestCommonAncestorOnly() {
        FabricHarness h = new FabricHarness(k4(1), 2);
        FatTree ft = (FatTree) h.fabric;
        for (int s = 0; s < 16; s++) {
            for (int d = 0; d < 16; d++) {
                if (s == d) {
                    continue;
                }
                long before = h.switchPackets();
                h.send(s, d, 0, s * 16 + d, 1000, true);
                h.drain();
                int hops = ft.podOf(s) != ft.podOf(d) ? 5 : ft.edgeOf(s) != ft.edgeOf(d) ? 3 : 1;
                assertEquals(hops, h.switchPackets() - before, s + "->" + d);
                assertEquals(1, h.receivedFrom[d][s], s + "->" + d);
            }
        }
        assertEquals(0, h.misdelivered);
        for (Switch sw : ft.switches()) {
            assertEquals(0, sw.unroutable(), sw.name());
        }
    }

    @Test
    void pathIdsSpreadOneHostPairOverEveryCore() {
        FabricHarness h = new FabricHarness(k4(1), 3);
        FatTree ft = (FatTree) h.fabric;
        for (int path = 0; path < 64; path++) {
            h.send(0, 15, 0, path, 1000, true);
        }
        h.drain();
        assertEquals(64, h.received[15]);
        for (int c = 0; c < 4; c++) {
            assertTrue(ft.core(0, c).received() > 4, "core " + c + " carried " + ft.core(0, c).received());
        }
        // the same 5-tuple always takes the same path
        long[] before = new long[4];
        for (int c = 0; c < 4; c++) {
            before[c] = ft.core(0, c).received();
        }
        for (int i = 0; i < 10; i++) {
            h.send(0, 15, 0, 7, 1000, true);
        }
        h.drain();
        int changed = 0;
        for (int c = 0; c < 4; c++) {
            long d = ft.core(0, c).received() - before[c];
            assertTrue(d == 0 || d == 10, "core " + c + " got " + d);
            changed += d > 0 ? 1 : 0;
        }
        assertEquals(1, changed);
    }

    @Test
    void planesAreIndependentFabrics() {
        FabricHarness h = new FabricHarness(k4(2), 4);
        for (int i = 0; i < 20; i++) {
            h.send(1, 14, 1, i, 1000, true);
        }
        h.drain();
        assertEquals(20, h.received[14]);
        for (Switch s : h.fabric.switches()) {
            if (s.name().startsWith("p0.")) {
                assertEquals(0, s.received(), s.name());
            }
        }
        assertEquals(0, h.fabric.hostUplink(1, 0).packets());
        assertEquals(20, h.fabric.hostUplink(1, 1).packets());
    }

    @Test
    void moreHostsPerEdgeOversubscribesAndStillRoutes() {
        FabricConfig cfg = new FabricConfig().topology(FabricConfig.FAT_TREE).k(4).hostsPerEdge(4).hosts(30);
        assertEquals(32, cfg.fatTreeCapacity());
        assertEquals(2.0, cfg.oversubscription());
        FabricHarness h = new FabricHarness(cfg, 5);
        FatTree ft = (FatTree) h.fabric;
        assertEquals(6, ft.edge(0, 0, 0).portCount());
        assertEquals(4, ft.edge(0, 3, 1).portCount()); // the last edge holds hosts 28, 29 only
        for (int s = 0; s < 30; s++) {
            h.send(s, 29 - s, 0, s, 1000, true);
        }
        h.drain();
        for (int d = 0; d < 30; d++) {
            assertEquals(1, h.received[d], "host " + d);
        }
        assertEquals(0, h.misdelivered);
    }

    @Test
    void invalidConfigurationsAreRejectedByName() {
        EventLoop loop = new EventLoop();
        PacketPool pool = new PacketPool(100);
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> Topologies.build(
                new FabricConfig().fatTree(4).hosts(17), loop, pool, new SplittableRandom(1)));
        assertTrue(e.getMessage().contains("capacity"), e.getMessage());
        e = assertThrows(IllegalArgumentException.class, () -> Topologies.build(
                new FabricConfig().topology(FabricConfig.FAT_TREE).k(5), loop, pool, new SplittableRandom(1)));
        assertTrue(e.getMessage().contains("fabric.k"), e.getMessage());
        e = assertThrows(IllegalArgumentException.class, () -> Topologies.build(
                new FabricConfig().topology("torus"), loop, pool, new SplittableRandom(1)));
        assertTrue(e.getMessage().contains("fabric.topology"), e.getMessage());
        e = assertThrows(IllegalArgumentException.class, () -> Topologies.build(
                new FabricConfig().routing("random"), loop, pool, new SplittableRandom(1)));
        assertTrue(e.getMessage().contains("fabric.routing"), e.getMessage());
    }

    @Test
    void largeTreesBuild() {
        // the benchmark's 8,192-host tree and 1,024 hosts x 8 planes: built fast, every host reachable
        FabricHarness big = new FabricHarness(new FabricConfig().fatTree(32), 6);
        assertEquals(8192, big.fabric.hosts());
        assertEquals(1280, big.fabric.switches().size());
        big.send(0, 8191, 0, 1, 1000, true);
        big.send(8191, 4096, 0, 2, 1000, true);
        big.drain();
        assertEquals(1, big.received[8191]);
        assertEquals(1, big.received[4096]);
        FabricHarness planes = new FabricHarness(new FabricConfig().fatTree(16).planes(8), 7);
        assertEquals(8 * 320, planes.fabric.switches().size());
        planes.send(3, 1000, 7, 9, 1000, true);
        planes.drain();
        assertEquals(1, planes.received[1000]);
    }

    private static Simulation.Result permutation(long seed, FabricConfig fc, long bytes) {
        Simulation sim = new Simulation(seed, fc, new EngineConfig().paths(16), true);
        int[] perm = Derangement.byReshuffling(fc.hosts, new SplittableRandom(seed));
        for (int i = 0; i < fc.hosts; i++) {
            sim.addFlow(i, perm[i], bytes, 2);
        }
        return sim.run(Units.psFromMs(200));
    }

    @Test
    void engineTrafficCompletesOnAFatTreeDeterministically() {
        FabricConfig fc = k4(2).linkLoss(0.002);
        Simulation.Result a = permutation(11, fc, 256 << 10);
        assertEquals(16, a.completed(), a.toString());
        assertTrue(a.dataCorrect(), a.toString());
        assertEquals(0, a.internalErrors(), a.toString());
        assertTrue(a.linkDrops() > 0, a.toString());
        Simulation.Result b = permutation(11, k4(2).linkLoss(0.002), 256 << 10);
        assertEquals(a.withoutWall(), b.withoutWall());
        assertNotEquals(a.withoutWall(), permutation(12, k4(2).linkLoss(0.002), 256 << 10).withoutWall());
    }
}
