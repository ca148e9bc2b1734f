package io.metaroce.core;

import io.metaroce.core.wire.Ecn;
import org.junit.jupiter.api.Test;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Engine.gatherTransmit: a data packet's payload leaves from its region; the datagram on the wire is unchanged. */
class GatherTransmitTest {
    private static final int MTU = 1024;
    private static final int LEN = 2 * MTU + 300; // three packets, the last one short

    /** The datagrams engine A sends for one WRITE, as they would be on the wire, and whether each was gathered. */
    private static List<byte[]> wire(boolean gather, List<Boolean> gathered, Engine[] pair, MemorySegment src,
                                     MemorySegment dst) {
        EnginePair ends = new EnginePair(new EngineConfig().mtu(MTU).paths(2).planes(1).pacingGain(0), src, dst);
        Engine a = ends.a;
        a.gatherTransmit(gather);
        assertEquals(QueuePair.OK, ends.qa.postWrite(1, ends.src, 100, LEN, ends.dst.address(), ends.dst.rkey(),
                QueuePair.SIGNALED));
        Arena arena = Arena.ofAuto();
        MemorySegment out = arena.allocate(a.maxDatagramLength() + 64L, 64);
        Transmit tx = new Transmit();
        List<byte[]> sent = new ArrayList<>();
        long now = 1_000_000;
        int n;
        while ((n = a.pollTransmit(now, out, tx)) > 0) {
            byte[] d = new byte[n];
            int payload = tx.payloadLength();
            gathered.add(payload > 0);
            if (payload == 0) {
                MemorySegment.copy(out, ValueLayout.JAVA_BYTE, 0, d, 0, n);
            } else {
                int h = tx.headerLength();
                MemorySegment.copy(out, ValueLayout.JAVA_BYTE, 0, d, 0, h);
                MemorySegment.copy(tx.payloadSegment(), ValueLayout.JAVA_BYTE, tx.payloadOffset(), d, h, payload);
                MemorySegment.copy(out, ValueLayout.JAVA_BYTE, h, d, h + payload, n - h - payload);
            }
            sent.add(d);
        }
        pair[0] = a;
        pair[1] = ends.b;
        return sent;
    }

    private static MemorySegment filled(MemorySegment s) {
        SplittableRandom r = new SplittableRandom(9);
        for (long i = 0; i < s.byteSize(); i += 8) {
            s.set(ValueLayout.JAVA_LONG_UNALIGNED, i, r.nextLong());
        }
        return s;
    }

    @Test
    void aGatheredDatagramIsTheCopiedOneByteForByteAndLandsAtTheReceiver() {
        List<Boolean> copiedFlags = new ArrayList<>();
        List<Boolean> gatheredFlags = new ArrayList<>();
        Engine[] pair = new Engine[2];
        MemorySegment src = filled(Arena.ofAuto().allocate(8192, 64));
        MemorySegment dst = Arena.ofAuto().allocate(8192, 64);
        List<byte[]> copied = wire(false, copiedFlags, pair, src, dst);
        List<byte[]> gathered = wire(true, gatheredFlags, pair, src, dst);
        assertEquals(3, copied.size());
        assertEquals(copied.size(), gathered.size());
        for (int i = 0; i < copied.size(); i++) {
            assertArrayEquals(copied.get(i), gathered.get(i), "datagram " + i);
        }
        assertTrue(copiedFlags.stream().noneMatch(g -> g));
        assertTrue(gatheredFlags.stream().allMatch(g -> g), "every data packet left from the region");
        Engine b = pair[1];
        for (byte[] d : gathered) {
            b.handleDatagram(2_000_000, MemorySegment.ofArray(d), d.length, Ecn.ECT0);
        }
        assertEquals(3, b.counters().get(Counter.RX_DATA_PACKETS));
        assertEquals(0, b.counters().drops());
        assertEquals(-1, src.asSlice(100, LEN).mismatch(dst.asSlice(0, LEN)));
    }

    @Test
    void aHeapRegionIsCopiedEvenWhenTheDriverGathers() {
        List<Boolean> flags = new ArrayList<>();
        List<byte[]> sent = wire(true, flags, new Engine[2], filled(MemorySegment.ofArray(new byte[8192])),
                Arena.ofAuto().allocate(8192, 64));
        assertEquals(3, sent.size());
        assertTrue(flags.stream().noneMatch(g -> g), "a heap payload cannot be handed to the kernel");
    }
}
