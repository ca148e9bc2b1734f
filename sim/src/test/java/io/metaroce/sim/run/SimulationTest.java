package io.metaroce.sim.run;

import io.metaroce.core.EngineConfig;
import io.metaroce.sim.event.Units;
import io.metaroce.sim.fabric.FabricConfig;
import io.metaroce.sim.fabric.Link;
import io.metaroce.sim.topology.LeafSpine;
import io.metaroce.sim.workload.Derangement;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

class SimulationTest {
    private static final long LIMIT = Units.psFromMs(200);

    private static FabricConfig fabric16x2() {
        return new FabricConfig().hosts(16).hostsPerLeaf(4).spines(4).planes(2);
    }

    private static EngineConfig engine() {
        return new EngineConfig().paths(16);
    }

    private static Simulation.Result permutation(long seed, double loss, long bytes) {
        Simulation sim = new Simulation(seed, fabric16x2().linkLoss(loss), engine(), true);
        int[] perm = Derangement.byReshuffling(16, new java.util.SplittableRandom(seed));
        for (int i = 0; i < 16; i++) {
            sim.addFlow(i, perm[i], bytes, 4);
        }
        return sim.run(LIMIT);
    }

    private static void assertComplete(Simulation.Result r) {
        assertEquals(r.flows(), r.completed(), r.toString());
        assertTrue(r.dataCorrect(), r.toString());
        assertEquals(0, r.errors(), r.toString());
        assertEquals(0, r.internalErrors(), r.toString());
    }

    @Test
    void sameSeedSameCounters() {
        Simulation.Result a = permutation(42, 0.002, 256 << 10);
        Simulation.Result b = permutation(42, 0.002, 256 << 10);
        assertComplete(a);
        assertEquals(a.withoutWall(), b.withoutWall());
        Simulation.Result c = permutation(43, 0.002, 256 << 10);
        assertTrue(!a.withoutWall().equals(c.withoutWall()), "a different seed should differ");
    }

    @Test
    void lossyLeafSpineBulkTransferDeliversCorrectData() {
        Simulation.Result r = permutation(1, 0.01, 1 << 20);
        assertComplete(r);
        assertTrue(r.linkDrops() > 0, r.toString());
        assertTrue(r.retransmits() > 0, r.toString());
    }

    @Test
    void ecmpSpreadsOneQpOverAllSpines() {
        FabricConfig fc = new FabricConfig().hosts(16).hostsPerLeaf(4).spines(4).planes(1);
        Simulation sim = new Simulation(5, fc, engine(), true);
        sim.addFlow(0, 15, 2 << 20, 1);
        Simulation.Result r = sim.run(LIMIT);
        assertComplete(r);
        for (int s = 0; s < 4; s++) {
            long n = ((LeafSpine) sim.fabric()).spine(0, s).dataReceived();
            // at least one path's even share: the 16 paths' hashes put 4 / 6 / 5 / 1 of them on the spines, and with
            // ACK bundles (ACK-11) the spray is exactly even (32 packets per path)
            assertTrue(n >= r.dataPackets() / 16, "spine " + s + " carried " + n + " of " + r.dataPackets());
        }
    }

    @Test
    void linkDownMidRunIsRoutedAroundByTheTransport() {
        Simulation sim = new Simulation(9, fabric16x2(), engine(), true);
        sim.addFlow(0, 15, 4 << 20, 8);
        sim.addFlow(1, 14, 4 << 20, 8);
        Link cut = ((LeafSpine) sim.fabric()).leafUplink(0, 0, 1);
        sim.at(Units.psFromUs(50), () -> cut.setUp(false));
        Simulation.Result r = sim.run(LIMIT);
        assertComplete(r);
        assertTrue(cut.dropped() > 0, "the cut link should have dropped packets");
    }

    @Test
    void incastMarksEcn() {
        FabricConfig fc = new FabricConfig().hosts(16).hostsPerLeaf(4).spines(4).planes(1)
                .ecn(20 << 10, 200 << 10, 0.2);
        Simulation sim = new Simulation(3, fc, engine(), true);
        for (int i = 1; i <= 8; i++) {
            sim.addFlow(i + 3, 0, 512 << 10, 2);
        }
        Simulation.Result r = sim.run(LIMIT);
        assertComplete(r);
        assertTrue(r.ecnMarks() > 0, r.toString());
        assertTrue(((LeafSpine) sim.fabric()).leaf(0, 0).port(0).maxQueuedBytes() > 20 << 10);
    }
}
