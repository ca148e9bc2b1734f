package io.metaroce.core;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The FIFO of segments to resend: order, every field kept, growth while wrapped, and its not-before time. */
class RetransmitQueueTest {
    @Test
    void firstInFirstOutWithEveryFieldAcrossGrowthWhileWrapped() {
        RetransmitQueue q = new RetransmitQueue();
        assertTrue(q.isEmpty());
        long pushed = 0;
        long popped = 0;
        // push and pop so that head moves, then push past the capacity (it starts at 4 and doubles) while wrapped
        for (; pushed < 40; pushed++) {
            push(q, pushed);
        }
        for (; popped < 30; popped++) {
            check(q, popped);
            q.pop();
        }
        for (; pushed < 300; pushed++) {
            push(q, pushed);
        }
        assertEquals(270, q.size());
        for (; popped < 300; popped++) {
            check(q, popped);
            q.pop();
        }
        assertTrue(q.isEmpty());
        push(q, 5);
        q.clear();
        assertTrue(q.isEmpty());
        assertEquals(0, q.size());
    }

    /**
     * The head's not-before time (RNR / BUSY back-off, REL-4) is a deadline: the engine may resend the head at
     * {@code headNotBefore()} and not one nanosecond before. Checked here as the engine checks it, wrap-safe.
     */
    @Test
    void theHeadIsHeldUntilItsNotBeforeTime() {
        RetransmitQueue q = new RetransmitQueue();
        long notBefore = 1_000_000;
        q.push(0, 77, 2, 1, notBefore);
        assertFalse(mayGo(q, notBefore - 1));
        assertTrue(mayGo(q, notBefore));
        assertTrue(mayGo(q, notBefore + 1));
        q.pop();
        q.push(0, 78, 2, 1, Long.MAX_VALUE + 5); // wrapped clock: later than MAX_VALUE - 5
        assertFalse(mayGo(q, Long.MAX_VALUE - 5));
        assertTrue(mayGo(q, Long.MAX_VALUE + 5));
    }

    private static boolean mayGo(RetransmitQueue q, long nowNs) {
        return q.headNotBefore() - nowNs <= 0;
    }

    private static void push(RetransmitQueue q, long i) {
        q.push((int) (i % 3), i * 1_000_003L, (int) (i % 17), (int) (i % 5), i * 11);
    }

    private static void check(RetransmitQueue q, long i) {
        assertEquals(i % 3, q.headQueue());
        assertEquals(i * 1_000_003L, q.headSerial());
        assertEquals(i % 17, q.headSeg());
        assertEquals(i % 5, q.headAttempt());
        assertEquals(i * 11, q.headNotBefore());
    }
}
