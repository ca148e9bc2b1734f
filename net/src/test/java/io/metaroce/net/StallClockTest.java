package io.metaroce.net;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;

/** The engine's clock follows real time but leaves out the part of a long gap beyond the limit. */
class StallClockTest {
    @Test
    void shortStepsPassLongOnesAreClampedAndCounted() {
        StallClock c = new StallClock(1_000, 2_000_000);
        assertEquals(1_000 + 500_000, c.advance(1_000 + 500_000));
        assertEquals(1_000 + 2_500_000, c.advance(1_000 + 2_500_000)); // a 2 ms step: the limit, not a stall
        assertEquals(0, c.stalls());
        long t = c.advance(1_000 + 2_500_000 + 10_000_000); // a 10 ms gap
        assertEquals(1_000 + 4_500_000, t);
        assertEquals(1, c.stalls());
        assertEquals(8_000_000, c.stalledNs());
        assertEquals(10_000_000, c.longestStallNs(), "the whole gap");
        assertEquals(t, c.advance(1_000), "never backwards");
        assertEquals(300_000, c.untilNs(t + 300_000));
    }

    @Test
    void theWaitAStallLeftOutIsKnownForAckHoldTimes() {
        StallClock c = new StallClock(0, 2_000_000);
        c.advance(1_000_000);
        c.advance(11_000_000); // a 10 ms gap: the engine moves 2 ms
        // arrived 0.3 ms into the gap: waited 9.7 ms, the engine shows 1.7 ms (1.3 -> 3 ms)
        assertEquals(8_000_000, c.leftOutNs(1_300_000));
        // arrived in the gap's last 2 ms: waited 1 ms, the engine shows 0 (moved to the step's end)
        assertEquals(1_000_000, c.leftOutNs(10_000_000));
        assertEquals(8_500_000, c.leftOutNs(500_000), "before the step: all but the step's engine length");
        assertEquals(0, c.leftOutNs(11_500_000), "after the last advance: nothing");
        c.advance(11_400_000); // a short step leaves nothing out
        assertEquals(0, c.leftOutNs(11_100_000));
    }

    @Test
    void zeroLimitIsRealTime() {
        StallClock c = new StallClock(0, 0);
        assertEquals(50_000_000, c.advance(50_000_000));
        assertEquals(0, c.stalls());
    }

    @Test
    void arrivalsDuringAStallKeepTheirPlaceUpToTheStepsEngineLength() {
        StallClock c = new StallClock(0, 2_000_000);
        c.advance(1_000_000);
        long now = c.advance(11_000_000); // a 10 ms gap: the engine moves 2 ms, to 3 ms
        assertEquals(3_000_000, now);
        assertEquals(1_000_000, c.engineTimeOf(500_000), "before the step: its start");
        assertEquals(1_300_000, c.engineTimeOf(1_300_000), "early in the stall: where it happened");
        assertEquals(3_000_000, c.engineTimeOf(9_000_000), "late in the stall: the step's end");
        assertEquals(3_000_000, c.engineTimeOf(12_000_000), "after the step: its end");
        c.advance(11_400_000); // a short step counts one for one
        assertEquals(3_250_000, c.engineTimeOf(11_250_000));
    }
}
