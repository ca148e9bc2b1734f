package io.metaroce.sim.event;

import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

class EventLoopTest {
    @Test
    void dispatchesInTimeOrderWithFifoTies() {
        EventLoop loop = new EventLoop();
        List<Long> seen = new ArrayList<>();
        SplittableRandom r = new SplittableRandom(7);
        long[] times = new long[5000];
        for (int i = 0; i < times.length; i++) {
            times[i] = r.nextInt(100);
            long t = times[i];
            long id = i;
            loop.schedule(t, arg -> seen.add(t << 20 | id), i);
        }
        loop.run(Long.MAX_VALUE);
        assertEquals(times.length, seen.size());
        for (int i = 1; i < seen.size(); i++) {
            assertTrue(seen.get(i - 1) < seen.get(i), "order at " + i);
        }
        assertEquals(times.length, loop.eventsProcessed());
    }

    /**
     * Events scheduled by running events reuse the slots of dispatched ones: every event still gets its own argument
     * and handler, in (time, scheduling order), as a reference priority queue orders them.
     */
    @Test
    void eventsScheduledWhileRunningKeepTheirArgumentsAndOrder() {
        EventLoop loop = new EventLoop();
        SplittableRandom r = new SplittableRandom(11);
        java.util.PriorityQueue<long[]> expected = new java.util.PriorityQueue<>(
                (a, b) -> a[0] != b[0] ? Long.compare(a[0], b[0]) : Long.compare(a[1], b[1]));
        List<long[]> seen = new ArrayList<>();
        long[] seq = {0};
        EventHandler[] handler = new EventHandler[1];
        handler[0] = arg -> {
            seen.add(new long[] {loop.nowPs(), arg});
            for (int k = 0; k < 2 && seq[0] < 20_000; k++) {
                long at = loop.nowPs() + r.nextInt(50);
                long id = seq[0]++;
                expected.add(new long[] {at, id});
                loop.schedule(at, handler[0], id);
            }
        };
        for (int i = 0; i < 3000; i++) { // beyond the initial 1,024 slots: the arrays grow with events pending
            long at = r.nextInt(10);
            long id = seq[0]++;
            expected.add(new long[] {at, id});
            loop.schedule(at, handler[0], id);
        }
        loop.run(Long.MAX_VALUE);
        assertEquals(expected.size(), seen.size());
        for (long[] s : seen) {
            long[] e = expected.poll();
            assertEquals(e[0], s[0], "time");
            assertEquals(e[1], s[1], "argument of the event at " + s[0] + " ps");
        }
        assertTrue(loop.peakPending() >= 3000);
    }

    /**
     * The calendar's paths together: delays of 0, inside one bucket, across the wheel and far beyond it (the heap),
     * runs that stop at a limit (time may then lie before the wheel's current bucket) with events scheduled from
     * outside between them, and equal times from different paths. Order and arguments match a reference queue.
     */
    @Test
    void calendarMatchesAReferenceQueueAcrossBucketsWindowAndHeap() {
        EventLoop loop = new EventLoop();
        SplittableRandom r = new SplittableRandom(5);
        java.util.PriorityQueue<long[]> expected = new java.util.PriorityQueue<>(
                (a, b) -> a[0] != b[0] ? Long.compare(a[0], b[0]) : Long.compare(a[1], b[1]));
        List<long[]> seen = new ArrayList<>();
        long[] seq = {0};
        EventHandler[] handler = new EventHandler[1];
        java.util.function.LongUnaryOperator delay = now -> switch (r.nextInt(6)) {
            case 0 -> 0;
            case 1 -> r.nextInt(4096);
            case 2 -> r.nextLong(17_000_000); // across the 16.8 us window
            case 3 -> 16_773_120 + r.nextInt(8192); // around the window's end
            case 4 -> r.nextLong(2_000_000_000L); // far: the heap
            default -> (1 + r.nextInt(8)) * 4096L - now % 4096; // bucket boundaries, equal times
        };
        handler[0] = arg -> {
            seen.add(new long[] {loop.nowPs(), arg});
            int k = r.nextInt(3);
            for (int i = 0; i < k && seq[0] < 60_000; i++) {
                long at = loop.nowPs() + delay.applyAsLong(loop.nowPs());
                long id = seq[0]++;
                expected.add(new long[] {at, id});
                loop.schedule(at, handler[0], id);
            }
        };
        for (int i = 0; i < 500; i++) {
            long at = delay.applyAsLong(0);
            long id = seq[0]++;
            expected.add(new long[] {at, id});
            loop.schedule(at, handler[0], id);
        }
        long limit = 0;
        while (loop.pending() > 0) {
            limit += r.nextLong(3_000_000_000L);
            loop.run(limit);
            for (int i = 0; i < 3 && seq[0] < 60_000; i++) { // from outside, at the limit the run stopped at
                long at = loop.nowPs() + delay.applyAsLong(loop.nowPs());
                long id = seq[0]++;
                expected.add(new long[] {at, id});
                loop.schedule(at, handler[0], id);
            }
        }
        assertEquals(expected.size(), seen.size());
        for (long[] s : seen) {
            long[] e = expected.poll();
            assertEquals(e[0], s[0], "time");
            assertEquals(e[1], s[1], "argument of the event at " + s[0] + " ps");
        }
        assertTrue(seen.size() > 10_000);
    }

    @Test
    void runStopsAtLimitAndOnRequest() {
        EventLoop loop = new EventLoop();
        int[] fired = {0};
        loop.schedule(10, arg -> fired[0]++, 0);
        loop.schedule(20, arg -> {
            fired[0]++;
            loop.stop();
        }, 0);
        loop.schedule(30, arg -> fired[0]++, 0);
        assertFalse(loop.run(15));
        assertEquals(15, loop.nowPs());
        assertEquals(1, fired[0]);
        assertTrue(loop.run(Long.MAX_VALUE));
        assertEquals(20, loop.nowPs());
        assertFalse(loop.run(Long.MAX_VALUE));
        assertEquals(3, fired[0]);
    }

    @Test
    void timersCancelAndRearm() {
        EventLoop loop = new EventLoop();
        List<Long> fired = new ArrayList<>();
        Timer t = new Timer(loop, arg -> fired.add(loop.nowPs()));
        t.set(100, 0);
        t.set(50, 0); // re-arm earlier: the 100 entry is stale
        loop.run(Long.MAX_VALUE);
        assertEquals(List.of(50L), fired);
        t.set(200, 0);
        t.cancel();
        loop.run(Long.MAX_VALUE);
        assertEquals(List.of(50L), fired);
        assertFalse(t.isArmed());
    }

    @Test
    void timerFiresAtItsDeadlineNotBefore() {
        EventLoop loop = new EventLoop();
        int[] fired = {0};
        Timer t = new Timer(loop, arg -> fired[0]++);
        t.set(1_000, 0);
        loop.run(999);
        assertEquals(0, fired[0]);
        loop.run(1_000);
        assertEquals(1, fired[0]);
        assertEquals(1_000, loop.nowPs());
    }

    @Test
    void units() {
        assertEquals(1_000, Units.psFromNs(1));
        assertEquals(1_000_000, Units.psFromUs(1));
        // 4096 bytes at 100 Gb/s = 327.68 ns
        assertEquals(327_680, Units.txTimePs(4096, 100_000_000_000L));
        assertEquals(327_680, Units.txTimePsFast(4096, Units.psPerByteFixed(100_000_000_000L)));
        assertEquals(8_000, Units.txTimePs(1, 1_000_000_000L));
        assertEquals(8_000, Units.txTimePsFast(1, Units.psPerByteFixed(1_000_000_000L)));
    }
}
