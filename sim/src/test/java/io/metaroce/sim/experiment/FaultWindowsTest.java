package io.metaroce.sim.experiment;

import io.metaroce.sim.run.FaultSpec;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;

/** The windows plots shade: down to up, loss on to off, open windows to the end (drawn: cli's JFreeChartsTest). */
class FaultWindowsTest {
    private static FaultSpec f(String kind, long atPs, int plane, String link, double loss) {
        FaultSpec s = new FaultSpec();
        s.kind = kind;
        s.atPs = atPs;
        s.plane = plane;
        s.link = link;
        s.loss = loss;
        return s;
    }

    @Test
    void downUpPairsLossOnOffAndOpenWindows() {
        List<FaultWindows.Window> w = FaultWindows.of(List.of(
                f("plane-up", 300, 1, "", 0), f("plane-down", 100, 1, "", 0),     // out of order in the file
                f("link-loss", 200, 0, "", 0.01), f("link-loss", 400, 0, "", 0),
                f("link-down", 500, 0, "p0.leaf0>spine1", 0),                       // never up again
                f("plane-up", 600, 2, "", 0)));                                     // up without down: nothing
        assertEquals(List.of(
                new FaultWindows.Window(100, 300, "plane 1 down"),
                new FaultWindows.Window(200, 400, "loss 0.01 on every link"),
                new FaultWindows.Window(500, Long.MAX_VALUE, "link p0.leaf0>spine1 down")), w);
    }
}
