package io.metaroce.core;

import io.metaroce.core.wire.Ecn;
import io.metaroce.core.wire.Opcode;
import org.junit.jupiter.api.Test;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayDeque;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@link QpTimers#nextDeadlineAfterData}: the deadlines the engine keeps after a poll that only sent a data packet
 * (only that path's computed again) are those of the full computation, over a transfer on four paths with losses,
 * retransmissions and timeouts.
 */
class KeptDeadlinesTest {
    private static final int LENGTH = 256 * 1024;
    private static final long ONE_WAY_NS = 4_000;

    /** A datagram in flight: its bytes, its receiver (true: B) and when it arrives. */
    private record InFlight(byte[] bytes, boolean toB, long atNs) {
    }

    @Test
    void theKeptDeadlinesAreTheFullComputations() {
        EngineConfig cfg = new EngineConfig().mtu(1024).paths(4).planes(2).txRateBps(100_000_000_000L);
        EnginePair pair = new EnginePair(cfg, Arena.ofAuto().allocate(LENGTH, 64), Arena.ofAuto().allocate(LENGTH, 64));
        assertEquals(QueuePair.OK, pair.qa.postWrite(1, pair.src, 0, LENGTH, pair.dst.address(), pair.dst.rkey(),
                QueuePair.SIGNALED));
        MemorySegment buf = Arena.ofAuto().allocate(pair.a.maxDatagramLength() + 64L, 64);
        Transmit tx = new Transmit();
        ArrayDeque<InFlight> wire = new ArrayDeque<>();
        long now = 1_000_000;
        int dataPolls = 0;
        int checked = 0;
        int sent = 0;
        WorkCompletion wc = new WorkCompletion();
        boolean done = false;
        for (int step = 0; step < 200_000 && !done; step++) {
            while (!wire.isEmpty() && wire.peekFirst().atNs() <= now) {
                InFlight d = wire.pollFirst();
                MemorySegment in = MemorySegment.ofArray(d.bytes());
                (d.toB() ? pair.b : pair.a).handleDatagram(now, in, d.bytes().length, Ecn.ECT0);
            }
            for (Engine e : new Engine[] {pair.a, pair.b}) {
                if (e.pollTimeout() <= now) {
                    e.handleTimeout(now);
                }
                int n;
                while ((n = e.pollTransmit(now, buf, tx)) > 0) {
                    if (e == pair.a && tx.opcode() == Opcode.WRITE) {
                        if (++dataPolls % 3 == 0) { // every third: the kept ones run on between checks
                            long kept = pair.qa.cachedDeadline;
                            long keptSend = pair.qa.sendDue.cachedDeadline;
                            assertEquals(kept, pair.qa.nextDeadline(), "state deadline after data poll " + dataPolls);
                            assertEquals(keptSend, pair.qa.sendDue.cachedDeadline, "send deadline");
                            checked++;
                        }
                    }
                    if (e == pair.a && ++sent % 17 == 0) {
                        continue; // lost
                    }
                    byte[] bytes = buf.asSlice(0, n).toArray(ValueLayout.JAVA_BYTE);
                    wire.addLast(new InFlight(bytes, e == pair.a, now + ONE_WAY_NS));
                }
            }
            done = pair.cqa.poll(wc);
            now += 500;
        }
        assertTrue(done, "the WRITE completed");
        assertTrue(checked > 50, "checked " + checked);
        assertTrue(pair.a.counters().get(Counter.RETRANSMITS) > 0);
    }
}
