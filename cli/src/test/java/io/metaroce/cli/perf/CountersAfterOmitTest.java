package io.metaroce.cli.perf;

import io.metaroce.core.Counter;
import org.junit.jupiter.api.Test;

import java.util.LinkedHashMap;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

class CountersAfterOmitTest {
    @Test
    void theMeasuredPartsCountersAreTheGrowthSinceTheOmissionEnded() {
        CountersAfterOmit c = new CountersAfterOmit();
        Map<String, Object> m = new LinkedHashMap<>();
        c.fill(m, Map.of(Counter.TIMEOUTS, 4L));
        assertTrue(m.isEmpty(), "no --omit, no second set of counters");
        c.mark(Map.of(Counter.TIMEOUTS, 3L, Counter.RETRANSMITS, 10L));
        c.fill(m, Map.of(Counter.TIMEOUTS, 3L, Counter.RETRANSMITS, 25L, Counter.PATH_FAILOVERS, 1L));
        assertEquals(Map.of("timeouts_after_omit", 0L, "retransmits_after_omit", 15L, "path_failovers_after_omit", 1L), m);
    }
}
