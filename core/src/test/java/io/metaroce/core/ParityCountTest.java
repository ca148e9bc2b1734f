package io.metaroce.core;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** REL-21's adaptive count and the loss rate it reads. */
class ParityCountTest {
    @Test
    void oneParityWithoutLossAtLeastTwoWithSomeAndMoreAsLossGrows() {
        assertEquals(1, ParityCount.forLoss(16, 0.0, 8));
        assertEquals(2, ParityCount.forLoss(16, 0.002, 8), "any measured loss: at least two");
        assertEquals(2, ParityCount.forLoss(16, 0.03, 8));
        int previous = 1;
        for (double p = 0; p <= 0.3; p += 0.01) {
            int r = ParityCount.forLoss(16, p, 16);
            assertTrue(r >= previous, "more loss never means fewer parities: " + p);
            previous = r;
        }
        assertEquals(8, ParityCount.forLoss(16, 0.22, 8), "E1's 10% per link (22% end to end) needs the most allowed");
        assertEquals(1, ParityCount.forLoss(16, 0.05, 1), "never above the most allowed");
    }

    @Test
    void theProbabilityIsTheBinomialTail() {
        assertEquals(1.0, ParityCount.atMostLost(10, 0, 0.0), 1e-12);
        assertEquals(Math.pow(0.9, 10), ParityCount.atMostLost(10, 0, 0.1), 1e-12);
        double oneOrNone = Math.pow(0.9, 10) + 10 * 0.1 * Math.pow(0.9, 9);
        assertEquals(oneOrNone, ParityCount.atMostLost(10, 1, 0.1), 1e-12);
        assertEquals(1.0, ParityCount.atMostLost(10, 10, 0.5), 1e-12);
    }

    @Test
    void theLossRateSettlesOnTheShareOfPacketsLost() {
        LossRate r = new LossRate();
        for (int k = 0; k < 100_000; k++) {
            r.onSent();
            if (k % 25 == 0) {
                r.onLost(); // 4%
            }
        }
        assertEquals(0.04, r.rate(), 0.01);
        for (int k = 0; k < 5 * LossRate.SPAN; k++) {
            r.onSent();
        }
        assertTrue(r.rate() < 0.001, "and forgets it after a few spans without loss: " + r.rate());
    }
}
