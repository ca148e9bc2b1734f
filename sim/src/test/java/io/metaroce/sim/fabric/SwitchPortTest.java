package io.metaroce.sim.fabric;

import io.metaroce.core.wire.Ecn;
import io.metaroce.sim.event.EventLoop;
import io.metaroce.sim.event.Units;
import org.junit.jupiter.api.Test;

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
        Link link = new Link(loop, pool, 100_000_000_000L, Units.psFromNs(700), new SplittableRandom(1), "l");
        link.connect((p, in) -> {
            arrivals.add(loop.nowPs() * 4096 + p.seq * 2L + (p.ecn == Ecn.CE ? 1 : 0));
            pool.release(p);
        }, 0);
        SwitchPort port = new SwitchPort(loop, pool, link, 60_000, 10_000, 40_000, 0.5, new SplittableRandom(2));
        port.setPfc(packetByPacket);
        port.setWireSize(24, 64);
        SplittableRandom r = new SplittableRandom(seed);
        long t = 0;
        for (int i = 0; i < 2_000; i++) {
            t += r.nextInt(4) == 0 ? r.nextLong(Units.psFromNs(2_000)) : 0; // bursts, then gaps
            int tag = i;
            int len = r.nextInt(10) == 0 ? 40 : 100 + r.nextInt(8000);
            boolean data = len > 40;
            loop.schedule(t, arg -> {
                Packet p = pool.alloc();
                p.length = len;
                p.data = data;
                p.ecn = 1;
                p.seq = tag;
                port.enqueue(p);
            }, 0);
        }
        loop.run(Long.MAX_VALUE);
        return new Outcome(arrivals, port.dropped(), port.ecnMarked(), port.maxQueuedBytes());
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
