package io.metaroce.sim.metrics;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class FairnessWindowTest {
    @Test
    void sumsTheLastIntervalsAndDropsTheOldest() {
        FairnessWindow w = new FairnessWindow(3, 2);
        w.add(new double[] {1, 10});
        w.add(new double[] {2, 20});
        assertFalse(w.full());
        w.add(new double[] {4, 40});
        assertTrue(w.full());
        assertEquals(7, w.bytes(0));
        assertEquals(70, w.bytes(1));
        w.add(new double[] {8, 80}); // the first interval leaves
        assertEquals(14, w.bytes(0));
        assertEquals(140, w.bytes(1));
        assertEquals(3, w.intervals());
    }

    @Test
    void oneIntervalIsThatIntervalAlone() {
        FairnessWindow w = new FairnessWindow(1, 1);
        w.add(new double[] {5});
        assertTrue(w.full());
        assertEquals(5, w.bytes(0));
        w.add(new double[] {3});
        assertEquals(3, w.bytes(0));
    }

    @Test
    void refusesAnEmptyWindow() {
        assertThrows(IllegalArgumentException.class, () -> new FairnessWindow(0, 4));
    }
}
