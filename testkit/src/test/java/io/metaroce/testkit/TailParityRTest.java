package io.metaroce.testkit;

import io.metaroce.core.Counter;
import io.metaroce.core.EngineConfig;
import io.metaroce.core.wire.BaseHeader;
import io.metaroce.core.wire.Opcode;
import org.junit.jupiter.api.Test;

import java.util.Locale;
import java.util.function.Predicate;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * REL-21 on the harness: with {@code parityRepairs} 4 the PARITY and PARITY_Q are followed by PARITY_Rs of repairs 2
 * and 3, and a receiver missing any three or four segments of the tail rebuilds them all, with no resend, also when
 * some of the parities are lost. Every run verifies every byte (a short last segment included), so the solver and
 * the GF(2^8) arithmetic are checked end to end.
 */
class TailParityRTest {
    private static final int MTU = 1024;
    private static final int SEGMENTS = 8;
    /** The last segment is 300 bytes short: the parities pad it with zeros. */
    private static final int BYTES = SEGMENTS * MTU - 300;

    private record Run(long recvDoneNs, long rebuilt, long paritySent, long parityRSent, long resent) {
    }

    /** First transmission of segment {@code seg} of a data message (a resend carries RETRANSMIT). */
    private static Predicate<Network.Datagram> firstCopyOf(int seg) {
        return OneTailMessage.firstCopyOf(seg, MTU);
    }

    /** The PARITY_R of repair {@code j} (the first reserved byte of its parity header). */
    private static Predicate<Network.Datagram> parityR(int j) {
        return d -> d.opcode() == Opcode.PARITY_R && (d.bytes()[BaseHeader.LENGTH + 34] & 0xFF) == j;
    }

    @Test
    void anyThreeOrFourLostSegmentsOfTheTailAreRebuiltWithoutAResend() {
        Run lossless = run(4, d -> false);
        assertEquals(1, lossless.paritySent);
        assertEquals(2, lossless.parityRSent, "repairs 2 and 3");
        int sets = 0;
        for (int mask = 0; mask < 1 << SEGMENTS; mask++) {
            int lost = Integer.bitCount(mask);
            if (lost != 3 && lost != 4) {
                continue;
            }
            Predicate<Network.Datagram> drop = d -> false;
            for (int s = 0; s < SEGMENTS; s++) {
                if ((mask >> s & 1) != 0) {
                    drop = drop.or(firstCopyOf(s));
                }
            }
            Run r = run(4, drop);
            String which = "segments " + Integer.toBinaryString(mask);
            assertEquals(lost, r.rebuilt, which + " rebuilt");
            assertEquals(0, r.resent, which + ": nothing resent before the receiver had it");
            assertTrue(r.recvDoneNs <= lossless.recvDoneNs + 2_000, which + ": rebuilt about when due");
            sets++;
        }
        assertEquals(56 + 70, sets);
        Run two = run(2, firstCopyOf(1).or(firstCopyOf(4)).or(firstCopyOf(6)));
        System.out.printf(Locale.ROOT, "%d-segment WRITE_IMM, 3 segments lost: receive completes at %.2f us with 4 "
                        + "parities, %.2f us with 2 (%.2f us lossless)%n", SEGMENTS,
                run(4, firstCopyOf(1).or(firstCopyOf(4)).or(firstCopyOf(6))).recvDoneNs / 1e3, two.recvDoneNs / 1e3,
                lossless.recvDoneNs / 1e3);
        assertTrue(two.recvDoneNs > lossless.recvDoneNs + 2_000, "two parities wait a round trip for a resend");
    }

    @Test
    void lostParitiesAreStoodInForByTheOthers() {
        // PARITY and PARITY_Q lost: repairs 2 and 3 alone rebuild two segments
        Run r = run(4, firstCopyOf(0).or(firstCopyOf(7)).or(d -> d.opcode() == Opcode.PARITY)
                .or(d -> d.opcode() == Opcode.PARITY_Q));
        assertEquals(2, r.rebuilt);
        assertEquals(0, r.resent);
        // repair 2 lost: PARITY, PARITY_Q and repair 3 rebuild three
        Run s = run(4, firstCopyOf(2).or(firstCopyOf(3)).or(firstCopyOf(5)).or(parityR(2)));
        assertEquals(3, s.rebuilt);
        assertEquals(0, s.resent);
    }

    @Test
    void adaptiveParitiesFollowTheMeasuredLossAndMessagesArriveIntact() {
        EngineConfig cfg = new EngineConfig().paths(8).planes(2).mtu(MTU).parityTailSegments(8).parityRepairs(8)
                .parityAdaptive(true);
        Endpoint[] lossless = TailParityTest.messages(cfg, 0); // 200 WRITE_IMMs of 1 to 8 segments, all verified
        long parities = lossless[0].engine.counters().get(Counter.PARITY_SENT);
        assertTrue(parities > 0);
        assertEquals(0, lossless[0].engine.counters().get(Counter.PARITY_Q_SENT), "no loss: one parity per message");
        assertEquals(0, lossless[0].engine.counters().get(Counter.PARITY_R_SENT));
        Endpoint[] lossy = TailParityTest.messages(cfg, 0.15);
        long q = lossy[0].engine.counters().get(Counter.PARITY_Q_SENT);
        long more = lossy[0].engine.counters().get(Counter.PARITY_R_SENT);
        assertTrue(q > 0 && more > 0, "15% loss: more parities (" + q + " PARITY_Q, " + more + " PARITY_R)");
        assertTrue(lossy[1].engine.counters().get(Counter.PARITY_REBUILT) > 0);
        assertTrue(lossy[1].engine.counters().get(Counter.PARITY_REBUILT_BYTES) > 0);
    }

    private static Run run(int repairs, Predicate<Network.Datagram> drop) {
        EngineConfig cfg = new EngineConfig().paths(4).planes(1).mtu(MTU).parityTailSegments(SEGMENTS)
                .parityRepairs(repairs);
        OneTailMessage.Sent s = OneTailMessage.send(cfg, drop, BYTES, SEGMENTS * MTU, 13);
        return new Run(s.recvDoneNs(), s.receiver(Counter.PARITY_REBUILT), s.sender(Counter.PARITY_SENT),
                s.sender(Counter.PARITY_R_SENT), s.resentByThen());
    }
}
