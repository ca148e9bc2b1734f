package io.metaroce.core;

import org.junit.jupiter.api.Test;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The engine's timer heap alone, and the engine's timers on both sides of each deadline. */
class TimerHeapTest {
    private final Engine engine = new Engine(new EngineConfig(), new SplittableRandom(1));
    private final ProtectionDomain pd = engine.allocPd();
    private final CompletionQueue cq = engine.createCq(64);

    private QueuePair qp(long deadline) {
        QueuePair q = engine.createQp(pd, cq, cq);
        q.cachedDeadline = deadline;
        return q;
    }

    @Test
    void theEarliestDeadlineIsOnTopWhateverTheOrderOfUpdates() {
        TimerHeap<QueuePair> h = new TimerHeap<>();
        assertEquals(Engine.NO_DEADLINE, h.peekDeadline());
        assertNull(h.peek());
        List<QueuePair> qps = new ArrayList<>();
        SplittableRandom r = new SplittableRandom(7);
        for (int i = 0; i < 100; i++) { // more than the initial capacity of 16
            QueuePair q = qp(1_000 + r.nextInt(1_000_000));
            qps.add(q);
            h.update(q);
            assertEquals(qps.stream().mapToLong(x -> x.cachedDeadline).min().orElseThrow(), h.peekDeadline());
        }
        assertEquals(100, h.size());
        // moving deadlines both ways re-sifts in place
        for (int i = 0; i < 300; i++) {
            QueuePair q = qps.get(r.nextInt(qps.size()));
            q.cachedDeadline = 1_000 + r.nextInt(1_000_000);
            h.update(q);
            assertEquals(qps.stream().mapToLong(x -> x.cachedDeadline).min().orElseThrow(), h.peekDeadline());
            assertEquals(100, h.size());
        }
        // popping in order yields sorted deadlines
        long last = Long.MIN_VALUE;
        while (h.size() > 0) {
            QueuePair top = h.peek();
            assertTrue(top.cachedDeadline >= last);
            last = top.cachedDeadline;
            h.remove(top);
            assertEquals(-1, top.heapIndex);
        }
        assertEquals(Engine.NO_DEADLINE, h.peekDeadline());
    }

    @Test
    void noDeadlineRemovesAndRemovingTwiceIsHarmless() {
        TimerHeap<QueuePair> h = new TimerHeap<>();
        QueuePair a = qp(500);
        QueuePair b = qp(700);
        h.update(a);
        h.update(b);
        a.cachedDeadline = Engine.NO_DEADLINE;
        h.update(a);
        assertEquals(1, h.size());
        assertSame(b, h.peek());
        h.remove(a);
        h.remove(a);
        assertEquals(1, h.size());
        assertEquals(700, h.peekDeadline());
    }

    @Test
    void deadlinesCompareWrapSafely() {
        TimerHeap<QueuePair> h = new TimerHeap<>();
        long near = Long.MAX_VALUE - 10; // just before the nanosecond clock wraps
        QueuePair late = qp(near + 20);  // wrapped: numerically negative, but later in time
        QueuePair early = qp(near);
        h.update(late);
        h.update(early);
        assertSame(early, h.peek());
    }

    /**
     * A QP with a WRITE in flight that is never acknowledged: for each deadline the engine reports, a timeout
     * 1 ns before it changes nothing (no transmit, same deadline, same counters), and at the deadline the
     * timer fires (the deadline moves on); the retransmission timeout comes among them.
     */
    @Test
    void everyTimerFiresAtItsDeadlineAndNotOneNanosecondBefore() {
        QueuePair q = engine.createQp(pd, cq, cq);
        q.connect(1, 99, 0, 0);
        MemoryRegion mr = engine.registerMemory(pd, Arena.ofAuto().allocate(4096, 64), Access.ALL);
        assertEquals(QueuePair.OK, q.postWrite(1, mr, 0, 1024, 0x1000, 5, QueuePair.SIGNALED));
        MemorySegment out = Arena.ofAuto().allocate(engine.maxDatagramLength(), 8);
        Transmit tx = new Transmit();
        long now = 0;
        int sent = drain(out, tx, now);
        assertTrue(sent > 0, "the WRITE goes out");
        int deadlinesChecked = 0;
        while (engine.counters().get(Counter.TIMEOUTS) == 0) {
            long d = engine.pollTimeout();
            assertTrue(d != Engine.NO_DEADLINE && d > now, "a timer is armed after " + now);
            long timeouts = engine.counters().get(Counter.TIMEOUTS);
            long tx0 = engine.counters().get(Counter.TX_PACKETS);
            engine.handleTimeout(d - 1);
            assertEquals(0, drain(out, tx, d - 1), "nothing to send 1 ns before the deadline " + d);
            assertEquals(d, engine.pollTimeout(), "the deadline stands");
            assertEquals(timeouts, engine.counters().get(Counter.TIMEOUTS));
            assertEquals(tx0, engine.counters().get(Counter.TX_PACKETS));
            engine.handleTimeout(d);
            drain(out, tx, d);
            assertTrue(engine.pollTimeout() != d, "the timer due at " + d + " fired");
            now = d;
            deadlinesChecked++;
            assertTrue(deadlinesChecked < 1_000, "no retransmission timeout within 1000 deadlines");
        }
        assertEquals(1, engine.counters().get(Counter.TIMEOUTS));
    }

    private int drain(MemorySegment out, Transmit tx, long now) {
        int n = 0;
        while (engine.pollTransmit(now, out, tx) > 0) {
            n++;
        }
        return n;
    }
}
