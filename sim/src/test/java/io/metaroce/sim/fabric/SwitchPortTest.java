package io.metaroce.sim.fabric;

import io.metaroce.core.wire.Ecn;
import io.metaroce.sim.event.EventLoop;
import io.metaroce.sim.event.Units;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

class SwitchPortTest {
    private record Outcome(List<Long> arrivals, long dropped, long marked, long maxQueued) {
    }

    /**
     * Random bursts of random-size packets into one port with a small buffer and ECN, recorded at the far end
     * as (arrival time, packet tag, CE) words.
     */
    private static Outcome run(boolean packetByPacket, long seed) {
        EventLoop loop = new EventLoop();
        PacketPool pool = new PacketPool(9000);
        List<Long> arrivals = new ArrayList<>();
        Link link = recordedLink(loop, pool, 1, arrivals);
        SwitchPort port = testPort(loop, pool, link, packetByPacket);
        SplittableRandom r = new SplittableRandom(seed);
        long t = 0;
        for (int i = 0; i < 2_000; i++) {
            t += r.nextInt(4) == 0 ? r.nextLong(Units.psFromNs(2_000)) : 0; // bursts, then gaps
            enqueueAt(loop, pool, port, t, i, r.nextInt(10) == 0 ? 40 : 100 + r.nextInt(8000), null);
        }
        loop.run(Long.MAX_VALUE);
        return new Outcome(arrivals, port.dropped(), port.ecnMarked(), port.maxQueuedBytes());
    }

    /** A 100 Gb/s link of 700 ns drawing loss from {@code seed}, recording arrivals as (time, tag, CE) words. */
    private static Link recordedLink(EventLoop loop, PacketPool pool, long seed, List<Long> arrivals) {
        Link link = new Link(loop, pool, 100_000_000_000L, Units.psFromNs(700), new SplittableRandom(seed), "l");
        link.connect((p, in) -> {
            arrivals.add(loop.nowPs() * 4096 + p.seq * 2L + (p.ecn == Ecn.CE ? 1 : 0));
            pool.release(p);
        }, 0);
        return link;
    }

    /**
     * Schedules at {@code t} a packet tagged {@code tag} of {@code len} bytes (data unless 40 bytes, ECT) into
     * {@code port}; {@code queues}, if not null, gets the port's queued bytes after it.
     */
    private static void enqueueAt(EventLoop loop, PacketPool pool, SwitchPort port, long t, int tag, int len,
                                  List<Long> queues) {
        loop.schedule(t, arg -> {
            Packet p = pool.alloc();
            p.length = len;
            p.data = len > 40;
            p.ecn = 1;
            p.seq = tag;
            port.enqueue(p);
            if (queues != null) {
                queues.add(port.queuedBytes());
            }
        }, 0);
    }

    @Test
    void departuresComputedAtEnqueueEqualPacketByPacketSerialization() {
        for (long seed = 1; seed <= 3; seed++) {
            Outcome computed = run(false, seed);
            Outcome serialized = run(true, seed);
            assertTrue(computed.dropped() > 0 && computed.marked() > 0, computed.toString());
            assertEquals(serialized.dropped(), computed.dropped());
            assertEquals(serialized.marked(), computed.marked());
            assertEquals(serialized.maxQueued(), computed.maxQueued());
            assertEquals(serialized.arrivals(), computed.arrivals());
        }
    }

    /**
     * The port's queue lives in its link's ring (no serial mode): packets the link loses at random, or drops while
     * down, still count in the queue until their last bit leaves, exactly as on a port that serializes packet by
     * packet and only then loses them. The link goes down in the middle of a burst and stays down while a long run
     * of small packets fills the buffer, so that the ring grows while every entry of the port's queue has already
     * left the link's flight.
     */
    @Test
    @Timeout(value = 60, threadMode = Timeout.ThreadMode.SEPARATE_THREAD) // a broken queue may never empty
    void aQueueInTheLinksRingCountsWhatTheLinkLoses() {
        for (long seed = 1; seed <= 3; seed++) {
            List<Long> computedQueues = new ArrayList<>();
            List<Long> serializedQueues = new ArrayList<>();
            Outcome computed = runWithLoss(false, seed, computedQueues);
            Outcome serialized = runWithLoss(true, seed, serializedQueues);
            assertTrue(computed.dropped() > 0 && computed.arrivals().size() > 100, computed.toString());
            assertEquals(serialized.dropped(), computed.dropped());
            assertEquals(serialized.marked(), computed.marked());
            assertEquals(serialized.maxQueued(), computed.maxQueued());
            assertEquals(serialized.arrivals(), computed.arrivals());
            assertEquals(serializedQueues, computedQueues, "the queue behind each packet");
        }
    }

    /**
     * A port sending into a link that stays down (it keeps serializing, as a real port does): the entries the link
     * keeps for the port's queue are skipped at once, so the ring stays as small as the queue, however long the
     * outage.
     */
    @Test
    void aLinkDownForLongKeepsItsRingAsSmallAsThePortsQueue() {
        EventLoop loop = new EventLoop();
        PacketPool pool = new PacketPool(16);
        Link link = recordedLink(loop, pool, 1, new ArrayList<>());
        SwitchPort port = new SwitchPort(loop, pool, link, 60_000, -1, 0, 0, new SplittableRandom(2));
        port.setWireSize(24, 64);
        link.setUp(false);
        int ringBefore = link.ring.length;
        for (int i = 0; i < 10_000; i++) {
            enqueueAt(loop, pool, port, Units.psFromNs(10) * i, i, 40, null); // 64 B every 10 ns at 100 Gb/s
        }
        loop.run(Long.MAX_VALUE);
        assertEquals(10_000, port.enqueued());
        assertEquals(10_000, link.dropped());
        assertEquals(ringBefore, link.ring.length, "ring words after 10,000 packets into a down link");
    }

    /** The port both runs compare: 60 KB buffer, ECN between 10 and 40 KB, serial when {@code packetByPacket}. */
    private static SwitchPort testPort(EventLoop loop, PacketPool pool, Link link, boolean packetByPacket) {
        SwitchPort port = new SwitchPort(loop, pool, link, 60_000, 10_000, 40_000, 0.5, new SplittableRandom(2));
        port.setPfc(packetByPacket);
        port.setWireSize(24, 64);
        return port;
    }

    private static Outcome runWithLoss(boolean packetByPacket, long seed, List<Long> queues) {
        EventLoop loop = new EventLoop();
        PacketPool pool = new PacketPool(4000);
        List<Long> arrivals = new ArrayList<>();
        Link link = recordedLink(loop, pool, seed, arrivals);
        link.setLoss(0.2);
        SwitchPort port = testPort(loop, pool, link, packetByPacket);
        SplittableRandom r = new SplittableRandom(seed);
        long t = 0;
        for (int i = 0; i < 3_000; i++) {
            int len;
            if (i < 1_980) { // bursts, then gaps
                t += r.nextInt(4) == 0 ? r.nextLong(Units.psFromNs(2_000)) : 0;
                len = r.nextInt(10) == 0 ? 40 : 100 + r.nextInt(8000);
            } else if (i < 2_000) { // a burst that fills the buffer; the link goes down in its middle
                len = 8000;
            } else { // small packets a little faster than the line: the queue of them grows behind the burst
                t += Units.psFromNs(4);
                len = 40;
            }
            if (i == 1_990) {
                loop.schedule(t, arg -> link.setUp(false), 0);
            }
            enqueueAt(loop, pool, port, t, i, len, queues);
        }
        loop.run(Long.MAX_VALUE);
        return new Outcome(arrivals, port.dropped(), port.ecnMarked(), port.maxQueuedBytes());
    }

    @Test
    void controlPacketsUseTheirFixedWireSize() {
        EventLoop loop = new EventLoop();
        PacketPool pool = new PacketPool(100);
        Link link = new Link(loop, pool, 8_000_000_000L, 0, new SplittableRandom(1), "l"); // 1 ns per byte
        link.connect((p, in) -> pool.release(p), 0);
        SwitchPort port = new SwitchPort(loop, pool, link, 1 << 20, -1, 0, 0, new SplittableRandom(2));
        port.setWireSize(-4, 64);
        Packet data = pool.alloc();
        data.length = 100;
        data.data = true;
        Packet ack = pool.alloc();
        ack.length = 92;
        assertEquals(96, port.wireLength(data));
        assertEquals(64, port.wireLength(ack));
        port.enqueue(data);
        port.enqueue(ack);
        assertEquals(160, port.queuedBytes());
        loop.run(Units.psFromNs(96));
        assertEquals(64, port.queuedBytes());
        loop.run(Long.MAX_VALUE);
        assertEquals(Units.psFromNs(160), loop.nowPs());
        assertEquals(160, link.bytes());
    }
}
