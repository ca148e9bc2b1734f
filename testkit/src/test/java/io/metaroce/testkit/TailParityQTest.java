package io.metaroce.testkit;

import io.metaroce.core.Counter;
import io.metaroce.core.EngineConfig;
import io.metaroce.core.wire.Opcode;
import org.junit.jupiter.api.Test;

import java.util.Locale;
import java.util.function.Predicate;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * REL-20 on the harness: with {@code parityRepairs} 2 a PARITY_Q follows each PARITY, and a receiver missing any two
 * segments of the tail rebuilds both from the two parities and the rest of the group, with no resend. Every run
 * verifies every byte, so the GF(2^8) arithmetic is checked end to end, including a short last segment.
 */
class TailParityQTest {
    private static final int MTU = 1024;
    private static final int SEGMENTS = 8;
    /** The last segment is 300 bytes short: the parities pad it with zeros. */
    private static final int BYTES = SEGMENTS * MTU - 300;

    private record Run(long recvDoneNs, long rebuilt, long unused, long paritySent, long parityQSent, long resent) {
    }

    /** First transmission of segment {@code seg} of a data message (a resend carries RETRANSMIT). */
    private static Predicate<Network.Datagram> firstCopyOf(int seg) {
        return OneTailMessage.firstCopyOf(seg, MTU);
    }

    @Test
    void anyTwoLostSegmentsOfTheTailAreRebuiltWithoutAResend() {
        Run lossless = run(2, d -> false);
        for (int x = 0; x < SEGMENTS; x++) {
            for (int y = x + 1; y < SEGMENTS; y++) {
                Run r = run(2, firstCopyOf(x).or(firstCopyOf(y)));
                String pair = "segments " + x + " and " + y;
                assertEquals(2, r.rebuilt, pair + " rebuilt");
                assertEquals(0, r.resent, pair + ": nothing resent before the receiver had it");
                assertTrue(r.recvDoneNs <= lossless.recvDoneNs + 2_000, pair + ": rebuilt about when due");
            }
        }
        Run one = run(1, firstCopyOf(3).or(firstCopyOf(6)));
        System.out.printf(Locale.ROOT, "%d-segment WRITE_IMM, 2 segments lost: receive completes at %.2f us with "
                        + "PARITY and PARITY_Q, %.2f us with PARITY only (%.2f us lossless)%n", SEGMENTS,
                run(2, firstCopyOf(3).or(firstCopyOf(6))).recvDoneNs / 1e3, one.recvDoneNs / 1e3,
                lossless.recvDoneNs / 1e3);
        assertEquals(1, one.rebuilt, "one PARITY rebuilds one of the two, after the other's resend");
        assertTrue(one.recvDoneNs > lossless.recvDoneNs + 2_000, "and waits a round trip for it");
        assertEquals(1, lossless.paritySent);
        assertEquals(1, lossless.parityQSent);
    }

    @Test
    void aLostParityLeavesTheParityQToRebuildOneSegment() {
        Run r = run(2, firstCopyOf(5).or(d -> d.opcode() == Opcode.PARITY));
        assertEquals(1, r.rebuilt, "the PARITY_Q alone rebuilt segment 5");
        assertEquals(0, r.resent);
    }

    @Test
    void aParityQAloneRebuildsTheLastSegmentThoughItIsShort() {
        Run r = run(2, firstCopyOf(SEGMENTS - 1).or(d -> d.opcode() == Opcode.PARITY));
        assertEquals(1, r.rebuilt);
    }

    @Test
    void threeLostSegmentsWaitForAResendAndThenTheHeldParitiesRebuildTheOtherTwo() {
        Run r = run(2, firstCopyOf(1).or(firstCopyOf(4)).or(firstCopyOf(7)));
        assertEquals(2, r.rebuilt, "two rebuilt once the first resend came");
        assertEquals(0, r.unused);
    }

    @Test
    void manyMessagesAtFivePercentLossArriveIntact() {
        EngineConfig cfg = new EngineConfig().paths(8).planes(2).mtu(MTU).parityTailSegments(4).parityRepairs(2);
        Endpoint[] ends = TailParityTest.messages(cfg, 0.05); // 200 WRITE_IMMs of 1 to 8 segments, all verified
        Endpoint a = ends[0];
        Endpoint b = ends[1];
        assertTrue(a.engine.counters().get(Counter.PARITY_Q_SENT) > 0);
        assertTrue(b.engine.counters().get(Counter.PARITY_REBUILT) > 0);
        assertEquals(0, a.engine.internalErrors() + b.engine.internalErrors());
    }

    private static Run run(int repairs, Predicate<Network.Datagram> drop) {
        EngineConfig cfg = new EngineConfig().paths(4).planes(1).mtu(MTU).parityTailSegments(SEGMENTS)
                .parityRepairs(repairs);
        OneTailMessage.Sent s = OneTailMessage.send(cfg, drop, BYTES, SEGMENTS * MTU, 11);
        return new Run(s.recvDoneNs(), s.receiver(Counter.PARITY_REBUILT), s.receiver(Counter.PARITY_UNUSED),
                s.sender(Counter.PARITY_SENT), s.sender(Counter.PARITY_Q_SENT), s.resentByThen());
    }
}
