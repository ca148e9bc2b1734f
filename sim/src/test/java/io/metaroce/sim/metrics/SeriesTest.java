package io.metaroce.sim.metrics;

import org.junit.jupiter.api.Test;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;

/** The plane a series column names, as the charts colour it. */
class SeriesTest {
    @Test
    void planesOfPathsPlanesPortsAndLinks() {
        Series s = new Series("s", "t", Series.TIME_US, "y", List.of("path 3 (plane 2)", "plane 1", "p3.leaf0:4",
                "p0.leaf0>p0.spine1", "flow 0 (0->1)", "aggregate", "plane x", "path 1 (plane 99999999999)"),
                new double[0], new double[8][0]);
        assertEquals(List.of(2, 1, 3, 0, -1, -1, -1, -1),
                List.of(s.plane(0), s.plane(1), s.plane(2), s.plane(3), s.plane(4), s.plane(5), s.plane(6),
                        s.plane(7)));
    }
}
