package io.metaroce.sim.fabric;

import io.metaroce.core.EngineConfig;
import io.metaroce.sim.event.EventLoop;
import io.metaroce.sim.event.Units;
import io.metaroce.sim.run.Simulation;
import io.metaroce.sim.topology.FabricHarness;
import io.metaroce.sim.topology.LeafSpine;
import org.junit.jupiter.api.Test;

import java.util.SplittableRandom;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

class PfcTest {
    private static final int PACKETS = 200;

    /** One leaf, four hosts: hosts 1..3 each burst PACKETS packets to host 0 at line rate (3:1 at port 0). */
    private static FabricHarness incast(boolean pfc) {
        FabricConfig cfg = new FabricConfig().hosts(4).hostsPerLeaf(4).spines(1).bufferBytes(200_000).pfc(pfc);
        FabricHarness h = new FabricHarness(cfg, 1);
        for (int i = 0; i < PACKETS; i++) {
            for (int s = 1; s <= 3; s++) {
                h.send(s, 0, 0, i, 4000, true);
            }
        }
        h.drain();
        return h;
    }

    @Test
    void withoutPfcAnIncastOverflowsTheBuffer() {
        FabricHarness h = incast(false);
        long drops = h.fabric.bufferDrops();
        assertTrue(drops > 0, "drops " + drops);
        assertEquals(3 * PACKETS, h.received[0] + drops);
        assertEquals(0, h.fabric.pfcPauses());
    }

    @Test
    void withPfcAnIncastIsLosslessAndPausesTheSenders() {
        FabricHarness h = incast(true);
        LeafSpine ls = (LeafSpine) h.fabric;
        Switch leaf = ls.leaf(0, 0);
        assertEquals(0, h.fabric.bufferDrops());
        assertEquals(3 * PACKETS, h.received[0]);
        long nicPauses = 0;
        for (int s = 1; s <= 3; s++) {
            SwitchPort nic = h.fabric.nics(s)[0];
            assertTrue(nic.pfcPauses() > 0, "host " + s);
            assertTrue(nic.pfcPausedPs() > 0, "host " + s);
            assertFalse(nic.isPaused(), "host " + s + " resumed at the end");
            nicPauses += nic.pfcPauses();
            assertEquals(0, leaf.ingressBytes(s), "ingress " + s + " drained");
        }
        assertEquals(leaf.pfcPausesSent(), nicPauses);
        assertEquals(leaf.pfcPausesSent(), leaf.pfcResumesSent());
        assertEquals(0, h.fabric.nics(0)[0].pfcPauses(), "host 0 sent nothing, so was never paused");
        // the automatic XOFF leaves the headroom: the port never came near its buffer
        assertTrue(leaf.port(0).maxQueuedBytes() <= 200_000);
        assertTrue(leaf.pfcXoffBytes() > 0 && leaf.pfcXonBytes() < leaf.pfcXoffBytes());
    }

    @Test
    void samePfcRunSameCounters() {
        FabricHarness a = incast(true);
        FabricHarness b = incast(true);
        for (int s = 1; s <= 3; s++) {
            assertEquals(a.fabric.nics(s)[0].pfcPausedPs(), b.fabric.nics(s)[0].pfcPausedPs());
            assertEquals(a.fabric.nics(s)[0].pfcPauses(), b.fabric.nics(s)[0].pfcPauses());
        }
        assertEquals(a.loop.nowPs(), b.loop.nowPs());
    }

    @Test
    void aPausedPortFinishesTheCurrentPacketThenHolds() {
        EventLoop loop = new EventLoop();
        PacketPool pool = new PacketPool(2000);
        long[] arrivals = new long[3];
        int[] n = new int[1];
        Link link = new Link(loop, pool, 100_000_000_000L, Units.psFromNs(100), new SplittableRandom(1), "l");
        link.connect((p, in) -> {
            arrivals[n[0]++] = loop.nowPs();
            pool.release(p);
        }, 0);
        SwitchPort port = new SwitchPort(loop, pool, link, 1 << 20, -1, 0, 0, new SplittableRandom(2));
        port.setPfc(true);
        for (int i = 0; i < 3; i++) {
            Packet p = pool.alloc();
            p.length = 1250; // 100 ns at 100 Gb/s
            port.enqueue(p);
        }
        loop.schedule(Units.psFromNs(50), port, SwitchPort.PFC_PAUSE); // halfway through the first packet
        loop.schedule(Units.psFromNs(60), port, SwitchPort.PFC_PAUSE); // a repeated XOFF changes nothing
        loop.run(Units.psFromNs(1_000));
        assertEquals(1, n[0]);
        assertEquals(Units.psFromNs(200), arrivals[0]);
        assertTrue(port.isPaused());
        assertEquals(2, port.queuedPackets());
        assertEquals(Units.psFromNs(950), port.pfcPausedPs());
        loop.schedule(Units.psFromNs(1_000), port, SwitchPort.PFC_RESUME);
        loop.run(Long.MAX_VALUE);
        assertEquals(3, n[0]);
        assertEquals(Units.psFromNs(1_200), arrivals[1]);
        assertEquals(Units.psFromNs(1_300), arrivals[2]);
        assertEquals(1, port.pfcPauses());
        assertEquals(Units.psFromNs(950), port.pfcPausedPs());
    }

    private static Simulation engineIncast(boolean pfc) {
        FabricConfig fc = new FabricConfig().fatTree(4).bufferBytes(256 << 10).pfc(pfc);
        Simulation sim = new Simulation(21, fc, new EngineConfig().paths(16), true);
        for (int s = 8; s < 16; s++) {
            sim.addFlow(s, 0, 512 << 10, 2);
        }
        return sim;
    }

    @Test
    void engineIncastOnAFatTreeDropsWithoutPfcAndNotWithIt() {
        Simulation lossy = engineIncast(false);
        Simulation.Result r = lossy.run(Units.psFromMs(200));
        assertEquals(8, r.completed(), r.toString());
        assertTrue(r.bufferDrops() > 0, r.toString());
        assertEquals(0, lossy.fabric().pfcPauses());

        Simulation lossless = engineIncast(true);
        Simulation.Result q = lossless.run(Units.psFromMs(200));
        assertEquals(8, q.completed(), q.toString());
        assertTrue(q.dataCorrect(), q.toString());
        assertEquals(0, q.bufferDrops(), q.toString());
        assertTrue(lossless.fabric().pfcPauses() > 0, q.toString());
        long sent = 0;
        for (Switch s : lossless.fabric().switches()) {
            sent += s.pfcPausesSent();
        }
        assertEquals(sent, lossless.fabric().pfcPauses());
    }
}
