package io.metaroce.testkit;

import io.metaroce.core.Counter;
import io.metaroce.core.EngineConfig;
import io.metaroce.core.QueuePair;
import io.metaroce.core.WcStatus;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * RTO-9: paths that time out together back the QP off once, as one path would. Before, each of 16 paths' timeouts
 * counted, so a QP whose 16 paths lost their packets in one short outage waited {@code minRto << 16} (capped at
 * {@code maxRto}, 64 ms) before it tried again.
 */
class SilentBackoffTest {
    private static final long US = 1_000L;
    private static final long MS = 1_000_000L;

    @Test
    void aShortOutageOfEveryPathBacksTheQpOffOnce() {
        EngineConfig cfg = new EngineConfig().paths(16).planes(4).minRtoNs(50 * US).failAfterTimeouts(100);
        Network net = Network.datacenter(9, 2, cfg);
        int bytes = 16 << 20;
        Endpoint a = new Endpoint(net, 0, bytes);
        Endpoint b = new Endpoint(net, 1, bytes);
        Endpoint.connect(net, a, b);
        a.fillRandom(9);
        long downAt = 60 * US;
        long upAt = 160 * US;
        net.at(downAt, () -> {
            for (int p = 0; p < cfg.planes; p++) {
                net.setPlaneUp(p, false);
            }
        });
        net.at(upAt, () -> {
            for (int p = 0; p < cfg.planes; p++) {
                net.setPlaneUp(p, true);
            }
        });
        assertEquals(QueuePair.OK, a.qp.postWrite(1, a.src, 0, bytes, b.dst.address(), b.dst.rkey(),
                QueuePair.SIGNALED));
        assertTrue(net.runUntil(() -> a.sendDone() == 1, 1_000 * MS), () -> "done: " + a.qp);
        long doneAt = net.nowNs();
        String what = "done at " + doneAt + " ns, " + a.qp.counters();
        assertEquals(WcStatus.SUCCESS, a.sendStatuses.getFirst(), what);
        assertEquals(-1L, a.src.segment().mismatch(b.dst.segment()), what);
        assertTrue(a.qp.counters().get(Counter.TIMEOUTS) >= 16, "every path timed out in the outage: " + what);
        // the outage lasts 100 us: the QP goes on within a backed-off timeout or two of its end (344 us after it,
        // the rest of the 16 MiB included); counting each path's timeout it waited until 1,020 us after it
        assertTrue(doneAt - upAt < 600 * US, what);
    }
}
