package io.metaroce.core;

import io.metaroce.core.wire.BaseHeader;
import io.metaroce.core.wire.Ecn;
import io.metaroce.core.wire.Opcode;
import org.junit.jupiter.api.Test;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.SplittableRandom;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * PATH-18 with PATH-15: a QP whose route has room but whose pacing slot has not come waits for that slot only, not
 * also for room to its peer (a packet leaving flight would wake it for a poll that cannot send: the route is
 * reserved for its waiters); the slot wakes it and it sends. A QP that finds no route with room waits for room.
 */
class PacedWaitTest {
    private static final long T0 = 1_000_000;
    private final Arena arena = Arena.ofAuto();
    private final Transmit tx = new Transmit();
    private final BaseHeader base = new BaseHeader();

    @Test
    void aQpWaitingForItsRoutesSlotIsNotWokenForRoom() {
        EngineConfig cfg = new EngineConfig().mtu(1024).paths(1).planes(1);
        Engine a = new Engine(cfg, new SplittableRandom(1));
        Engine b = new Engine(cfg, new SplittableRandom(2));
        ProtectionDomain pa = a.allocPd();
        ProtectionDomain pb = b.allocPd();
        CompletionQueue[] cqs = {a.createCq(16), b.createCq(16)};
        QueuePair[] senders = new QueuePair[2];
        QueuePair[] receivers = new QueuePair[2];
        for (int i = 0; i < 2; i++) { // two connections between the same two engines: one shared route
            senders[i] = a.createQp(pa, cqs[0], cqs[0]);
            receivers[i] = b.createQp(pb, cqs[1], cqs[1]);
            senders[i].connect(2, receivers[i].qpn(), 1000 + 2000 * i, 5000 + 2000 * i);
            receivers[i].connect(1, senders[i].qpn(), 5000 + 2000 * i, 1000 + 2000 * i);
        }
        QueuePair a1 = senders[0];
        QueuePair a2 = senders[1];
        QueuePair b1 = receivers[0];
        QueuePair b2 = receivers[1];
        MemoryRegion src = a.registerMemory(pa, arena.allocate(8192, 64), Access.ALL);
        MemoryRegion dst = b.registerMemory(pb, arena.allocate(8192, 64), Access.ALL);
        MemorySegment buf = arena.allocate(DatagramSizes.max(cfg) + 64L, 64);

        // a1 gives the shared route an RTT: one packet there, its ACK back 10 us later
        assertEquals(QueuePair.OK, a1.postWrite(1, src, 0, 1024, dst.address(), dst.rkey(), QueuePair.SIGNALED));
        int n = a.pollTransmit(T0, buf, tx);
        assertEquals(Opcode.WRITE, tx.opcode());
        b.handleDatagram(T0 + 5_000, buf, n, Ecn.ECT0);
        n = b.pollTransmit(T0 + 5_000, buf, tx);
        assertEquals(Opcode.ACK, tx.opcode(), "the last packet of a message is acknowledged at once");
        a.handleDatagram(T0 + 10_000, buf, n, Ecn.ECT0);

        // a1 and a2 have a packet each: the first to go takes the route's pacing clock, the other finds the route
        // with room but its slot not come
        long t1 = T0 + 20_000;
        assertEquals(QueuePair.OK, a1.postWrite(2, src, 0, 1024, dst.address(), dst.rkey(), QueuePair.SIGNALED));
        assertEquals(QueuePair.OK, a2.postWrite(3, src, 4096, 1024, dst.address() + 4096, dst.rkey(),
                QueuePair.SIGNALED));
        assertTrue(a.pollTransmit(t1, buf, tx) > 0);
        assertEquals(Opcode.WRITE, tx.opcode());
        QueuePair waiter = base.wrap(buf, 0).destQpn() == b1.qpn() ? a2 : a1;
        assertEquals(0, a.pollTransmit(t1, buf, tx), "the route's next slot has not come");
        assertNotNull(waiter.pacedOn, "the other QP waits in the route's pacing queue");
        assertFalse(waiter.awaitingPeer, "it is not also waiting for room: room is not what it lacks");

        // the slot comes: the waiter wakes with it and sends
        int waiterSent = 0;
        int waiterQpn = waiter == a1 ? b1.qpn() : b2.qpn();
        long now = t1;
        for (int i = 0; i < 4 && waiterSent == 0; i++) {
            now = Math.max(now, a.pollTimeout());
            a.handleTimeout(now);
            while (a.pollTransmit(now, buf, tx) > 0) {
                if (base.wrap(buf, 0).destQpn() == waiterQpn && tx.opcode() == Opcode.WRITE) {
                    waiterSent++;
                }
            }
        }
        assertEquals(1, waiterSent, "the slot woke the waiter and it sent");
        assertNull(waiter.pacedOn);
    }
}
