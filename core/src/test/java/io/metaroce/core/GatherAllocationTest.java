package io.metaroce.core;

import org.junit.jupiter.api.Test;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A gathering driver with thousands of QPs sends from as many regions: the CRC of a gathered payload must not cost
 * an allocation per packet (a per-engine cache of 128 byte-buffer views made one for nearly every packet of 4,000
 * QPs, and the young collections that followed paused the test bed's agents long enough for the peer to time out).
 */
class GatherAllocationTest {
    private static final int MTU = 1024;
    private static final int REGIONS = 512;

    @Test
    void sendingFromManyRegionsAllocatesNothingPerPacket() {
        EnginePair ends = new EnginePair(new EngineConfig().mtu(MTU).paths(2).planes(1).pacingGain(0),
                Arena.ofAuto().allocate(MTU, 64), Arena.ofAuto().allocate(MTU, 64));
        ends.a.gatherTransmit(true);
        Arena arena = Arena.ofAuto();
        List<MemoryRegion> regions = new ArrayList<>();
        for (int i = 0; i < REGIONS; i++) {
            regions.add(ends.a.registerMemory(ends.src.pd(), arena.allocate(MTU, 64), Access.ALL));
        }
        MemorySegment out = arena.allocate(ends.a.maxDatagramLength() + 64L, 64);
        MemorySegment d = arena.allocate(ends.a.maxDatagramLength() + 64L, 64);
        Transmit tx = new Transmit();
        long[] now = {1_000_000};
        long[] packets = {0};
        Runnable round = () -> {
            for (MemoryRegion r : regions) {
                assertEquals(QueuePair.OK, ends.qa.postWrite(7, r, 0, MTU, ends.dst.address(), ends.dst.rkey(), 0));
                now[0] += 1_000;
                int n;
                while ((n = ends.a.pollTransmit(now[0], out, tx)) > 0) {
                    packets[0] += tx.payloadLength() > 0 ? 1 : 0;
                    if (tx.payloadLength() > 0) { // the wire would carry headers, payload and CRC in one datagram
                        int h = tx.headerLength();
                        MemorySegment.copy(out, 0, d, 0, h);
                        MemorySegment.copy(tx.payloadSegment(), tx.payloadOffset(), d, h, tx.payloadLength());
                        MemorySegment.copy(out, h, d, h + tx.payloadLength(), n - h - tx.payloadLength());
                        ends.b.handleDatagram(now[0], d, n, 2);
                    }
                }
                now[0] += 10_000; // past B's ACK delay
                while ((n = ends.b.pollTransmit(now[0], out, tx)) > 0) {
                    ends.a.handleDatagram(now[0], out, n, 2);
                }
            }
        };
        round.run(); // first use: records, rings and views are made here
        com.sun.management.ThreadMXBean mx = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
        long id = Thread.currentThread().threadId();
        packets[0] = 0;
        long before = mx.getThreadAllocatedBytes(id);
        round.run();
        long allocated = mx.getThreadAllocatedBytes(id) - before;
        long sent = packets[0];
        assertEquals(REGIONS, sent, "one gathered data packet per region");
        assertTrue(allocated < 16L * REGIONS, "allocated " + allocated
                + " bytes for " + sent + " gathered packets from " + REGIONS + " regions");
    }
}
