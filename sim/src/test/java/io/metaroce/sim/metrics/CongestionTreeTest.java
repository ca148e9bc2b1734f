package io.metaroce.sim.metrics;

import io.metaroce.sim.event.EventLoop;
import io.metaroce.sim.event.Units;
import io.metaroce.sim.fabric.Fabric;
import io.metaroce.sim.fabric.FabricConfig;
import io.metaroce.sim.fabric.PacketPool;
import io.metaroce.sim.run.Experiment;
import io.metaroce.sim.run.ExperimentSpec;
import io.metaroce.sim.run.RunResult;
import io.metaroce.sim.topology.Topologies;
import io.metaroce.sim.workload.HostRanges;

import org.junit.jupiter.api.Test;

import java.util.SplittableRandom;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** E6's pieces: ports by hop upstream of a host, host lists, hotspot and storm runs on PFC and without it. */
class CongestionTreeTest {
    @Test
    void portsAreCountedByHopsUpstreamOfTheHost() {
        FabricConfig fc = new FabricConfig().hosts(16).hostsPerLeaf(4).spines(4);
        Fabric f = Topologies.build(fc, new EventLoop(), new PacketPool(64), new SplittableRandom(1));
        PauseHops hops = new PauseHops(f, 0);
        int[] perHop = new int[hops.maxHop() + 1];
        for (int i = 0; i < hops.size(); i++) {
            perHop[hops.hop(i)]++;
        }
        // 1: leaf 0's port to host 0; 2: the 4 spines' ports to leaf 0 and the NICs of hosts 0-3; 3: every leaf's 4
        // uplinks; 4: the spines' ports to leaves 1-3 and the NICs of hosts 4-15. Ports down to other hosts: none.
        assertArrayEquals(new int[] {0, 1, 8, 16, 24}, perHop);
    }

    @Test
    void hostListsTakeNumbersAndRanges() {
        assertArrayEquals(new int[] {8, 9, 10, 3}, HostRanges.parse("k", "8..10, 3,9", 16));
        assertThrows(IllegalArgumentException.class, () -> HostRanges.parse("k", "4..2", 16));
        assertThrows(IllegalArgumentException.class, () -> HostRanges.parse("k", "15..16", 16));
        assertThrows(IllegalArgumentException.class, () -> HostRanges.parse("k", "x", 16));
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> HostRanges.parse("k", " ,", 16));
        assertTrue(e.getMessage().startsWith("k:"), e.getMessage());
    }

    /**
     * E6's scaled layout: 32 hosts, 8 per leaf, 4 spines; 8 hot senders on leaves 1-2 into host 0 from 200 us;
     * victims from leaves 1-2 to leaf 3 and from leaf 3 to leaf 0.
     */
    private static ExperimentSpec hotspot(String kind, String transport) {
        ExperimentSpec s = new ExperimentSpec();
        s.transport = transport;
        s.fabric.hosts(32).hostsPerLeaf(8).spines(4).bufferBytes(2 << 20);
        if (transport.equals("rocev2")) {
            s.fabric.pfc = true;
            s.fabric.ecn(400_000, 1_600_000, 0.2);
        }
        s.engine.paths(8).initialWindowPackets(2);
        s.engine.inboundCapacityBps = 100_000_000_000L;
        s.workload.kind = kind;
        s.workload.bytes = 8 << 20; // victims outlast the hot spot
        s.workload.hotBytes = 512 << 10;
        s.workload.hotStartPs = Units.psFromUs(200);
        s.workload.hotSenders = "8..11,16..19";
        s.workload.pairs = "12-24,13-25,20-26,21-27,24-1,25-2";
        s.sampleIntervalPs = Units.psFromUs(20);
        s.limitPs = Units.psFromMs(3);
        return s;
    }

    @Test
    void aHotspotOnPfcPausesUpstreamHopsAndSlowsVictimsMetaRoceVictimsKeepTheirGoodput() {
        RunResult roce = Experiment.run(hotspot("hotspot", "rocev2"), null);
        RunResult meta = Experiment.run(hotspot("hotspot", "metaroce"), null);
        assertTrue((long) roce.metrics.get("pfc_pauses_hop2") > 0, roce.metrics.toString());
        assertTrue((long) roce.metrics.get("pause_reach_hops") >= 3, roce.metrics.toString());
        assertEquals(0L, meta.metrics.get("pause_reach_hops"));
        assertEquals(6L, meta.metrics.get("victims"));
        assertTrue((double) meta.metrics.get("victim_goodput_kept") >= 0.9, meta.metrics.toString());
        assertTrue((double) roce.metrics.get("victim_goodput_kept") < (double) meta.metrics.get("victim_goodput_kept"),
                "RoCEv2 " + roce.metrics.get("victim_goodput_kept") + " vs MetaRoCE "
                        + meta.metrics.get("victim_goodput_kept"));
        assertTrue(roce.series.stream().anyMatch(s -> s.name().equals("pause_spread")));
        assertTrue(roce.series.stream().anyMatch(s -> s.name().equals("paused_ports_per_hop")));
    }

    @Test
    void aStuckReceiverPausesItsPortForeverWithPfcAndDropsWithout() {
        RunResult roce = Experiment.run(hotspot("storm", "rocev2"), null);
        assertEquals(1L, roce.metrics.get("ports_paused_hop1"), roce.metrics.toString());
        // paused from 200 us to the end of the run (3 ms)
        assertEquals(2800.0, (double) roce.metrics.get("pfc_paused_us_hop1"), 1e-6);
        RunResult meta = Experiment.run(hotspot("storm", "metaroce"), null);
        assertEquals(0L, meta.metrics.get("pfc_pauses_hop1"));
        assertTrue((long) meta.metrics.get("drops_link") > 0, meta.metrics.toString());
        assertEquals(6L, meta.metrics.get("victims_completed"));
    }

    @Test
    void aHotSenderMayNotBeTheReceiver() {
        ExperimentSpec s = hotspot("hotspot", "metaroce");
        s.workload.hotSenders = "0..2";
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> Experiment.run(s, null));
        assertTrue(e.getMessage().contains("hot receiver"), e.getMessage());
    }
}
