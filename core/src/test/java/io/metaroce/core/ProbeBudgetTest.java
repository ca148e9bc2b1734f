package io.metaroce.core;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** PATH-13: which probe budget is in force, and that the bucket hands out tokens at that rate. */
class ProbeBudgetTest {
    @Test
    void theBudgetIsSetOrOnePercentOfTheLineRateOrTheFallback() {
        // no rate: the fixed fallback
        assertEquals(EngineConfig.FALLBACK_PROBES_PER_SECOND, new EngineConfig().probesPerSecond());
        // 400 Gb/s: 1% of it in 52-byte datagrams
        assertEquals(4_000_000_000L / (8 * 52), new EngineConfig().txRateBps(400_000_000_000L).probesPerSecond());
        // a slow device never gets less than the fallback
        assertEquals(EngineConfig.FALLBACK_PROBES_PER_SECOND,
                new EngineConfig().txRateBps(1_000_000_000L).probesPerSecond());
        // an explicit budget wins over the rate
        assertEquals(1_000, new EngineConfig().txRateBps(400_000_000_000L).maxProbesPerSecond(1_000)
                .probesPerSecond());
        assertThrows(IllegalArgumentException.class, () -> new EngineConfig().maxProbesPerSecond(-1).validate());
    }

    @Test
    void tokensComeAtTheBudgetsRate() {
        ProbeBudget b = new ProbeBudget(new EngineConfig().maxProbesPerSecond(1_000)); // one per ms
        for (int i = 0; i < ProbeBudget.BURST; i++) {
            assertTrue(b.take(0), "the burst is there at once");
        }
        assertFalse(b.take(0));
        assertEquals(1_000_000, b.nextTokenNs());
        assertFalse(b.take(999_999));
        assertTrue(b.take(1_000_001));
    }
}
