package io.metaroce.sim.run;

import io.metaroce.core.EngineConfig;
import io.metaroce.sim.event.Units;
import io.metaroce.sim.fabric.FabricConfig;
import io.metaroce.sim.fabric.Link;
import io.metaroce.sim.topology.FabricHarness;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class FaultsTest {
    @Test
    void aPlaneDownDropsItsTrafficOnlyUntilItComesBack() {
        FabricHarness h = new FabricHarness(new FabricConfig().fatTree(4).planes(2), 1);
        h.fabric.setPlaneUp(1, false);
        for (int i = 0; i < 10; i++) {
            h.send(2, 9, 0, i, 1000, true);
            h.send(2, 9, 1, i, 1000, true);
        }
        h.drain();
        assertEquals(10, h.received[9]);
        long lost = 0;
        for (Link l : h.fabric.planeLinks(1)) {
            assertTrue(!l.isUp(), l.name());
            lost += l.dropped();
        }
        assertEquals(10, lost);
        h.fabric.setPlaneUp(1, true);
        h.send(2, 9, 1, 0, 1000, true);
        h.drain();
        assertEquals(11, h.received[9]);
        assertThrows(IllegalArgumentException.class, () -> h.fabric.setPlaneUp(2, false));
    }

    @Test
    void lossOnAChosenLinkAndOnEveryLink() {
        FabricHarness h = new FabricHarness(new FabricConfig().fatTree(4), 2);
        Link chosen = h.fabric.link("p0.pod0.agg0>p0.pod0.edge1");
        chosen.setLoss(1.0);
        for (int i = 0; i < 64; i++) {
            h.send(0, 2, 0, i, 1000, true); // edge0 -> agg0|agg1 -> edge1
        }
        h.drain();
        assertEquals(chosen.packets(), chosen.dropped());
        assertTrue(chosen.dropped() > 0 && h.received[2] > 0, "some paths avoid agg0");
        assertEquals(64, h.received[2] + chosen.dropped());
        assertThrows(IllegalArgumentException.class, () -> h.fabric.link("nope"));
        assertThrows(IllegalArgumentException.class, () -> chosen.setLoss(1.5));

        h.fabric.setLinkLoss(0.5);
        long before = h.received[13];
        for (int i = 0; i < 200; i++) {
            h.send(1, 13, 0, i, 1000, true); // 6 links each way: delivery probability 1/64
        }
        h.drain();
        assertTrue(h.received[13] - before < 20, "delivered " + (h.received[13] - before));
    }

    @Test
    void thePlaneFailingMidTransferIsRoutedAroundByTheEngine() {
        FabricConfig fc = new FabricConfig().fatTree(4).planes(2);
        Simulation sim = new Simulation(5, fc, new EngineConfig().paths(8), true);
        sim.addFlow(0, 15, 2 << 20, 4);
        sim.addFlow(5, 10, 2 << 20, 4);
        sim.at(Units.psFromUs(40), () -> sim.fabric().setPlaneUp(1, false));
        sim.at(Units.psFromUs(400), () -> sim.fabric().setPlaneUp(1, true));
        Simulation.Result r = sim.run(Units.psFromMs(500));
        assertEquals(2, r.completed(), r.toString());
        assertTrue(r.dataCorrect(), r.toString());
        assertTrue(r.linkDrops() > 0, r.toString());
    }
}
