package io.metaroce.sim.fabric;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** A pool of two buffer sizes hands out the smaller where a datagram fits and takes each back to its own size. */
class PacketPoolTest {
    @Test
    void headerSizedDatagramsGetTheSmallBufferAndLargerOnesTheFullOne() {
        PacketPool pool = new PacketPool(800, 96);
        assertTrue(pool.sized());
        assertEquals(96, pool.alloc(96).seg.byteSize());
        assertEquals(96, pool.alloc(1).seg.byteSize());
        assertEquals(800, pool.alloc(97).seg.byteSize());
        assertEquals(800, pool.alloc().seg.byteSize());
        assertEquals(800, pool.scratch().byteSize());
        assertEquals(4, pool.inUse());
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
