package io.metaroce.net;

import org.junit.jupiter.api.Test;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;

/** Coalesced (GRO) receive buffers split into the datagrams they hold, odd tails included. */
class GroSplitterTest {
    private record Seen(MemorySegment view, int length, int slot, byte first, byte last) {
    }

    private static List<Seen> split(GroSplitter s, int slot, int length, int seg) {
        List<Seen> out = new ArrayList<>();
        s.split(slot, length, seg, (d, len, sl) -> out.add(new Seen(d, len, sl,
                len == 0 ? 0 : d.get(ValueLayout.JAVA_BYTE, 0), len == 0 ? 0 : d.get(ValueLayout.JAVA_BYTE, len - 1))));
        return out;
    }

    /** Lays out datagrams of the given lengths back to back in slot {@code slot}; datagram k is filled with k+1. */
    private static int layOut(PacketBatch b, int slot, int... lengths) {
        int off = 0;
        for (int k = 0; k < lengths.length; k++) {
            b.slots[slot].asSlice(off, lengths[k]).fill((byte) (k + 1));
            off += lengths[k];
        }
        return off;
    }

    @Test
    void evenRunsOddTailsAndSingleDatagramsSplitExactly() {
        try (Arena arena = Arena.ofConfined()) {
            PacketBatch b = new PacketBatch(arena, 4, 65_536);
            GroSplitter s = new GroSplitter(b);
            int[][] cases = {
                    {8_292, 8_292, 8_292, 8_292},          // an even run
                    {8_292, 8_292, 8_292, 1_337},          // a short tail
                    {1_000, 1_000, 1},                     // a one-byte tail
                    {97, 97, 97, 97, 97, 97, 97, 60},      // small (ACK-sized) segments and a tail
                    {8_292},                               // a lone datagram (segment size reported)
            };
            for (int[] lengths : cases) {
                int total = layOut(b, 2, lengths);
                List<Seen> seen = split(s, 2, total, lengths[0]);
                assertEquals(lengths.length, seen.size(), () -> "segments of " + java.util.Arrays.toString(lengths));
                for (int k = 0; k < lengths.length; k++) {
                    Seen d = seen.get(k);
                    assertEquals(lengths[k], d.length(), "length of datagram " + k);
                    assertEquals(2, d.slot());
                    assertEquals((byte) (k + 1), d.first(), "first byte of datagram " + k);
                    assertEquals((byte) (k + 1), d.last(), "last byte of datagram " + k);
                }
            }
        }
    }

    @Test
    void noSegmentSizeOrALongerOneMeansOneDatagram() {
        try (Arena arena = Arena.ofConfined()) {
            PacketBatch b = new PacketBatch(arena, 2, 4096);
            GroSplitter s = new GroSplitter(b);
            int total = layOut(b, 0, 3000);
            assertEquals(1, split(s, 0, total, 0).size());
            assertEquals(3000, split(s, 0, total, 0).get(0).length());
            assertEquals(1, split(s, 0, total, 3000).size());
            assertEquals(1, split(s, 0, total, 4000).size());
            assertEquals(0, split(s, 0, 0, 0).get(0).length(), "an empty datagram is handed on (the engine counts it)");
        }
    }

    @Test
    void viewsAreMadeOncePerSlotAndSegmentSize() {
        try (Arena arena = Arena.ofConfined()) {
            PacketBatch b = new PacketBatch(arena, 2, 65_536);
            GroSplitter s = new GroSplitter(b);
            int total = layOut(b, 1, 8000, 8000, 8000, 500);
            List<Seen> first = split(s, 1, total, 8000);
            split(s, 1, layOut(b, 1, 100, 100, 100), 100);  // another size on the same slot
            List<Seen> again = split(s, 1, layOut(b, 1, 8000, 8000, 8000, 500), 8000);
            for (int k = 0; k < first.size(); k++) {
                assertSame(first.get(k).view(), again.get(k).view(), "view " + k + " reused");
            }
            assertSame(b.slots[1], first.get(0).view(), "the first datagram is the slot itself");
        }
    }
}
