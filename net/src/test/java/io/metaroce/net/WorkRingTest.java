package io.metaroce.net;

import io.metaroce.core.Access;
import io.metaroce.core.Engine;
import io.metaroce.core.EngineConfig;
import io.metaroce.core.MemoryRegion;
import io.metaroce.core.ProtectionDomain;
import io.metaroce.core.QueuePair;
import org.junit.jupiter.api.Test;

import java.lang.foreign.Arena;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** A QP's ring of work-request slots: bounded, in order, every slot reaches the engine's QP once. */
class WorkRingTest {
    @Test
    void fillsToCapacityAndDrainsInOrderReportingRefusals() {
        Engine e = new Engine(new EngineConfig(), new SplittableRandom(1));
        ProtectionDomain pd = e.allocPd();
        QueuePair qp = e.createQp(pd, e.createCq(64), e.createCq(64));
        qp.modifyToInit(); // not connected: the engine refuses sends, takes receives
        try (Arena arena = Arena.ofConfined()) {
            MemoryRegion mr = e.registerMemory(pd, arena.allocate(1 << 16), Access.ALL);
            WorkRing ring = new WorkRing(10);
            assertEquals(16, ring.capacity());
            for (int i = 0; i < 16; i++) {
                byte op = i % 2 == 0 ? WorkRing.WRITE : WorkRing.RECV;
                assertTrue(ring.offer(op, i, mr, 0, 64, mr.address(), mr.rkey(), 0, QueuePair.SIGNALED), "slot " + i);
            }
            assertFalse(ring.offer(WorkRing.SEND, 99, mr, 0, 64, 0, 0, 0, 0), "full");
            List<Long> refused = new ArrayList<>();
            assertEquals(16, ring.drain(qp, (op, wrId, rc) -> {
                assertEquals(WorkRing.WRITE, op, "only the writes are refused before the QP is connected");
                refused.add(wrId);
            }));
            assertEquals(List.of(0L, 2L, 4L, 6L, 8L, 10L, 12L, 14L), refused);
            assertEquals(8, qp.postedReceives());
            assertEquals(0, ring.drain(qp, (op, wrId, rc) -> { }), "nothing twice");
            assertTrue(ring.offer(WorkRing.SEND, 100, mr, 0, 64, 0, 0, 0, 0), "room again");
        }
    }
}
