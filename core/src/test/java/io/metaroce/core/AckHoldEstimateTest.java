package io.metaroce.core;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;

/** RTO-10: the peer's longest recent ACK hold, a two-window maximum. */
class AckHoldEstimateTest {
    private static final long MS = 1_000_000L;

    @Test
    void aHoldIsRememberedForOneToTwoWindows() {
        AckHoldEstimate e = new AckHoldEstimate(100 * MS);
        assertEquals(0, e.allowanceNs());
        e.onHold(0, 20_000);
        e.onHold(10 * MS, 8 * MS); // a stall
        e.onHold(20 * MS, 30_000);
        assertEquals(8 * MS, e.allowanceNs());
        e.onHold(150 * MS, 40_000); // the next window: the stall's window is the previous one
        assertEquals(8 * MS, e.allowanceNs());
        e.onHold(250 * MS, 10_000); // two windows on: forgotten
        assertEquals(40_000, e.allowanceNs());
        e.onHold(900 * MS, 5_000); // after a silence longer than two windows nothing older counts
        assertEquals(5_000, e.allowanceNs());
    }

    @Test
    void offRemembersNothing() {
        AckHoldEstimate e = new AckHoldEstimate(0);
        e.onHold(0, 8 * MS);
        assertEquals(0, e.allowanceNs());
    }
}
