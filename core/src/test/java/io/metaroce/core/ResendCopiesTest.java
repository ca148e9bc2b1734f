package io.metaroce.core;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;

class ResendCopiesTest {
    @Test
    void fewestCopiesWhoseAllBeingLostIsAtMostFivePercent() {
        assertEquals(1, ResendCopies.forLoss(0, 4), "nothing lost: no copy");
        assertEquals(1, ResendCopies.forLoss(0.05, 4), "5% itself is within the aim");
        assertEquals(2, ResendCopies.forLoss(0.06, 4), "0.06^2 = 0.0036");
        assertEquals(2, ResendCopies.forLoss(0.2, 4), "0.2^2 = 0.04");
        assertEquals(3, ResendCopies.forLoss(0.33, 4), "0.33^2 = 0.109, 0.33^3 = 0.036");
        assertEquals(4, ResendCopies.forLoss(0.6, 4), "0.6^4 = 0.13: capped at the most allowed");
        assertEquals(6, ResendCopies.forLoss(0.6, 8), "0.6^5 = 0.078, 0.6^6 = 0.047");
        assertEquals(1, ResendCopies.forLoss(0.9, 1), "1: off");
    }
}
