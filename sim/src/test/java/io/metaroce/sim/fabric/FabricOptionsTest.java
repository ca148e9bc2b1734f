package io.metaroce.sim.fabric;

import io.metaroce.sim.event.EventLoop;
import io.metaroce.sim.event.Units;
import io.metaroce.sim.run.Experiment;
import io.metaroce.sim.run.ExperimentSpec;
import io.metaroce.sim.run.RunResult;
import io.metaroce.sim.topology.FabricHarness;
import io.metaroce.sim.topology.LeafSpine;

import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Fabric options users comparing against UET and modern switches ask for: ECN marked at dequeue, failed links
 * withdrawn from ECMP groups after a detection delay, adaptive routing that skips paused and down ports.
 */
class FabricOptionsTest {
    /** Ten 1,000-byte packets at once into a port marking every ECT packet on a queue of 3,001 bytes or more. */
    private static List<Integer> markedOfABurst(boolean atDequeue, List<Long> arrivals) {
        EventLoop loop = new EventLoop();
        PacketPool pool = new PacketPool(2000);
        Link link = new Link(loop, pool, 8_000_000_000L, Units.psFromNs(100), new SplittableRandom(1), "l");
        List<Integer> marked = new ArrayList<>();
        link.connect((p, in) -> {
            if (p.ecn == Packet.ECN_CE) {
                marked.add(p.seq);
            }
            arrivals.add(loop.nowPs());
            pool.release(p);
        }, 0);
        SwitchPort port = new SwitchPort(loop, pool, link, 1 << 20, 3_000, 3_001, 1.0, new SplittableRandom(2));
        port.setEcnAtDequeue(atDequeue);
        for (int i = 0; i < 10; i++) {
            Packet p = pool.alloc();
            p.length = 1000;
            p.data = true;
            p.ecn = 1;
            p.seq = i;
            port.enqueue(p);
        }
        loop.run(Long.MAX_VALUE);
        assertEquals(marked.size(), port.ecnMarked());
        return marked;
    }

    @Test
    void ecnAtEnqueueMarksTheTailOfABurstAtDequeueItsHead() {
        List<Long> enqueueTimes = new ArrayList<>();
        List<Long> dequeueTimes = new ArrayList<>();
        // at enqueue packet i finds i * 1,000 bytes ahead of it: marked from i = 4
        assertEquals(List.of(4, 5, 6, 7, 8, 9), markedOfABurst(false, enqueueTimes));
        // at dequeue packet i leaves (9 - i) * 1,000 bytes behind it: marked up to i = 5
        assertEquals(List.of(0, 1, 2, 3, 4, 5), markedOfABurst(true, dequeueTimes));
        assertEquals(enqueueTimes, dequeueTimes, "the marking point does not move any packet in time");
    }

    @Test
    void badOptionsAreNamed() {
        var e = assertThrows(IllegalArgumentException.class, () -> new FabricConfig().ecnMarkAt("egress").validate());
        assertTrue(e.getMessage().contains("fabric.ecnMarkAt must be enqueue or dequeue"), e.getMessage());
        e = assertThrows(IllegalArgumentException.class, () -> new FabricConfig().linkFailureDetectPs(-5).validate());
        assertTrue(e.getMessage().contains("fabric.linkFailureDetectPs"), e.getMessage());
    }

    /** 8 hosts on 2 leaves and 4 spines; leaf 0's cable to spine 1 is cut at time 0. */
    private static FabricHarness cutCable(long detectPs, String routing) {
        FabricHarness h = new FabricHarness(new FabricConfig().hosts(8).hostsPerLeaf(4).spines(4).routing(routing)
                .linkFailureDetectPs(detectPs), 3);
        h.fabric.link("p0.leaf0>p0.spine1").setUp(false);
        h.fabric.link("p0.spine1>p0.leaf0").setUp(false);
        return h;
    }

    /** Sends 64 packets from hosts 0-3 to hosts 4-7 over many paths at {@code atPs}; returns how many arrived. */
    private static long burst(FabricHarness h, long atPs) {
        long before = java.util.Arrays.stream(h.received).sum();
        h.loop.schedule(atPs, arg -> {
            for (int i = 0; i < 64; i++) {
                h.send(i % 4, 4 + (i / 4) % 4, 0, i, 500, true);
            }
        }, 0);
        h.drain();
        return java.util.Arrays.stream(h.received).sum() - before;
    }

    @Test
    void aFailedUplinkLeavesTheEcmpGroupAfterTheDetectionDelayAndRejoinsWhenBackUp() {
        LeafSpine ls;
        FabricHarness h = cutCable(Units.psFromUs(10), FabricConfig.ECMP);
        ls = (LeafSpine) h.fabric;
        Switch leaf0 = ls.leaf(0, 0);
        long early = burst(h, Units.psFromUs(5)); // not detected yet: the dead uplink keeps its share
        assertTrue(early < 64 && early > 0, "before detection some packets die on the cut cable: " + early);
        assertEquals(3, leaf0.groupSize());
        assertEquals(1, leaf0.withdrawals());
        assertEquals(64, burst(h, Units.psFromUs(20)), "after detection every packet takes a live spine");
        // back up at 30 us: rejoins 10 us later and carries traffic again
        h.loop.schedule(Units.psFromUs(30), arg -> {
            h.fabric.link("p0.leaf0>p0.spine1").setUp(true);
            h.fabric.link("p0.spine1>p0.leaf0").setUp(true);
        }, 0);
        long carried = ls.leafUplink(0, 0, 1).packets();
        assertEquals(64, burst(h, Units.psFromUs(35)));
        assertEquals(carried, ls.leafUplink(0, 0, 1).packets(), "not back in the group before the delay");
        assertEquals(64, burst(h, Units.psFromUs(50)));
        assertEquals(4, leaf0.groupSize());
        assertTrue(ls.leafUplink(0, 0, 1).packets() > carried, "back in the group");

        // without detection the dead uplink keeps losing its share
        FabricHarness never = cutCable(-1, FabricConfig.ECMP);
        assertTrue(burst(never, Units.psFromUs(20)) < 64);
        assertEquals(4, ((LeafSpine) never.fabric).leaf(0, 0).groupSize());
    }

    @Test
    void adaptiveRoutingSkipsADownUplinkAtOnce() {
        FabricHarness h = cutCable(-1, FabricConfig.ADAPTIVE);
        assertEquals(64, burst(h, 0));
        assertEquals(0, ((LeafSpine) h.fabric).leafUplink(0, 0, 1).packets());
    }

    @Test
    void adaptiveRoutingSkipsAPausedUplink() {
        EventLoop loop = new EventLoop();
        PacketPool pool = new PacketPool(2000);
        Switch sw = new Switch("s", 7, pool, loop);
        SwitchPort[] ports = new SwitchPort[2];
        for (int i = 0; i < 2; i++) {
            Link l = new Link(loop, pool, 100_000_000_000L, Units.psFromNs(100), new SplittableRandom(i), "u" + i);
            l.connect((p, in) -> pool.release(p), 0);
            ports[i] = new SwitchPort(loop, pool, l, 1 << 20, -1, 0, 0, new SplittableRandom(i));
            ports[i].setPfc(true);
            sw.addPort(ports[i]);
        }
        sw.setRoutes(0, 0, 1, 0, new int[] {0, 1}); // every destination goes up over ports 0 and 1
        sw.setAdaptive(true);
        ports[0].onEvent(SwitchPort.PFC_PAUSE);
        assertTrue(ports[0].isPaused());
        for (int i = 0; i < 20; i++) {
            Packet p = pool.alloc();
            p.dst = 5;
            p.length = 100;
            sw.receive(p, 0);
        }
        assertEquals(0, ports[0].enqueued(), "the paused uplink gets nothing");
        assertEquals(20, ports[1].enqueued());
        // with both paused, the least queued is used again (nothing better to do)
        ports[1].onEvent(SwitchPort.PFC_PAUSE);
        Packet p = pool.alloc();
        p.dst = 5;
        p.length = 100;
        sw.receive(p, 0);
        assertEquals(1, ports[0].enqueued());
        loop.run(Long.MAX_VALUE);
    }

    /**
     * Ten 1,000-byte data packets at once into a port with room for three (and 375 bytes, an eighth, for trimmed
     * headers: five of 64 bytes); returns them as they arrive.
     */
    private static List<String> burstIntoASmallBuffer(boolean trimming) {
        EventLoop loop = new EventLoop();
        PacketPool pool = new PacketPool(2000);
        Link link = new Link(loop, pool, 8_000_000_000L, Units.psFromNs(100), new SplittableRandom(1), "l");
        List<String> arrived = new ArrayList<>();
        link.connect((p, in) -> {
            arrived.add(p.seq + (p.isTrimmed() ? "t" + p.length : ""));
            pool.release(p);
        }, 0);
        SwitchPort port = new SwitchPort(loop, pool, link, 3_000, -1, 0, 0, new SplittableRandom(2));
        port.setTrimming(trimming);
        for (int i = 0; i < 10; i++) {
            Packet p = pool.alloc();
            p.length = 1000;
            p.data = true;
            p.seq = i;
            port.enqueue(p);
        }
        loop.run(Long.MAX_VALUE);
        assertEquals(trimming ? 5 : 0, port.trimmed());
        assertEquals(trimming ? 2 : 7, port.dropped()); // the priority queue is full after five headers
        return arrived;
    }

    @Test
    void trimmingCutsWhatTheBufferCannotTakeAndSendsTheHeadersFirst() {
        assertEquals(List.of("0", "1", "2"), burstIntoASmallBuffer(false));
        // packet 0 is on the wire when the others arrive; the trimmed headers overtake the queued 1 and 2
        assertEquals(List.of("0", "3t64", "4t64", "5t64", "6t64", "7t64", "1", "2"),
                burstIntoASmallBuffer(true));
    }

    /** A 7-to-1 incast of 512 KiB with verified data into 64 KB switch buffers. */
    private static RunResult incast(String transport, boolean trimming) {
        ExperimentSpec spec = new ExperimentSpec();
        spec.transport = transport;
        spec.verify = transport.equals("metaroce");
        spec.fabric.hosts(8).hostsPerLeaf(4).spines(2).bufferBytes(64 << 10).trimming(trimming);
        spec.workload.kind = "incast";
        spec.workload.senders = 7;
        spec.workload.bytes = 512 << 10;
        spec.limitPs = Units.psFromMs(50);
        return Experiment.run(spec, null);
    }

    @Test
    void trimmedPacketsAreNakedByMetaRoceAndDroppedByRoce() {
        for (String transport : List.of("metaroce", "rocev2")) {
            RunResult off = incast(transport, false);
            RunResult on = incast(transport, true);
            for (RunResult r : List.of(off, on)) {
                assertEquals(r.metrics.get("flows"), r.metrics.get("flows_completed"), r.metrics.toString());
                assertEquals(0L, r.metrics.get("error_completions"), r.metrics.toString());
            }
            if (transport.equals("metaroce")) {
                assertEquals(true, on.metrics.get("data_correct"));
                // REL-17: the receiver NAKs every trimmed packet and its sender resends it; nothing is dropped
                assertEquals(on.metrics.get("trimmed"), on.metrics.get("trim_naks"), on.metrics.toString());
                long losses = (Long) on.metrics.get("trim_losses"); // (a NAK for a PSN a copy settled is stale)
                assertTrue(losses > 0 && losses <= (Long) on.metrics.get("trimmed"), on.metrics.toString());
                assertEquals(0L, on.metrics.get("engine_drops"), on.metrics.toString());
                assertEquals(0L, on.metrics.get("timeouts"), on.metrics.toString());
                assertTrue(!off.metrics.containsKey("trim_naks"), "no trimming counters without trimming");
            } else {
                assertTrue((Long) on.metrics.get("trimmed_drops") > 0, on.metrics.toString());
            }
            assertTrue((Long) off.metrics.get("drops_buffer") > 0, "the incast overflows the buffer");
            assertTrue((Long) on.metrics.get("trimmed") > 0, on.metrics.toString());
            assertTrue(!off.metrics.containsKey("trimmed"), "no trimming metric without trimming");
            assertTrue((Long) on.metrics.get("drops_buffer") < (Long) off.metrics.get("drops_buffer"),
                    "trimming turns buffer drops into trimmed headers");
        }
    }
}
