package io.metaroce.sim.fabric;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** A pool of several buffer sizes hands out the smallest where a datagram fits and takes each back to its own size. */
class PacketPoolTest {
    @Test
    void headerSizedDatagramsGetTheSmallBufferAndLargerOnesTheSmallestThatFits() {
        PacketPool pool = new PacketPool(800, 96);
        assertTrue(pool.sized());
        assertEquals(96, pool.alloc(96).seg.byteSize());
        assertEquals(96, pool.alloc(1).seg.byteSize());
        // sizes double from the small one while the next is within 80% of the full size: 96, 192, 384, then 800
        assertEquals(192, pool.alloc(97).seg.byteSize());
        assertEquals(384, pool.alloc(193).seg.byteSize());
        assertEquals(384, pool.alloc(384).seg.byteSize());
        assertEquals(800, pool.alloc(385).seg.byteSize());
        assertEquals(800, pool.alloc(800).seg.byteSize());
        assertEquals(800, pool.alloc().seg.byteSize());
        assertEquals(800, pool.scratch().byteSize());
        assertEquals(8, pool.inUse());
    }

    @Test
    void everyPacketOfASizeCanComeBackAtOnce() {
        PacketPool pool = new PacketPool(800, 96);
        Packet[] taken = new Packet[1000];
        for (int i = 0; i < taken.length; i++) {
            taken[i] = pool.alloc(150);
        }
        for (Packet p : taken) {
            pool.release(p);
        }
        assertEquals(0, pool.inUse());
        assertEquals(1024, pool.created()); // 16 chunks of 64, all of 192 bytes
        for (int i = 0; i < taken.length; i++) {
            assertEquals(192, pool.alloc(100).seg.byteSize());
        }
        assertEquals(1024, pool.created());
    }

    @Test
    void aReleasedPacketReturnsToItsOwnSize() {
        PacketPool pool = new PacketPool(800, 96);
        Packet small = pool.alloc(50);
        Packet large = pool.alloc(500);
        pool.release(small);
        pool.release(large);
        assertEquals(0, pool.inUse());
        assertSame(small, pool.alloc(60)); // the freed small one, not a new chunk
        assertSame(large, pool.alloc(700));
        Packet another = pool.alloc(10);
        assertNotSame(small, another);
        assertEquals(96, another.seg.byteSize());
        assertEquals(128, pool.created()); // one chunk of 64 per size
    }

    @Test
    void aPoolOfOneSizeAlwaysGivesTheFullBuffer() {
        PacketPool pool = new PacketPool(256);
        assertFalse(pool.sized());
        assertEquals(256, pool.alloc(8).seg.byteSize());
        assertThrows(IllegalArgumentException.class, () -> new PacketPool(64, 128));
        assertThrows(IllegalArgumentException.class, () -> new PacketPool(0));
    }
}
