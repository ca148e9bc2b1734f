package io.metaroce.testkit;

import io.metaroce.core.Counter;
import io.metaroce.core.EngineConfig;
import io.metaroce.core.PathState;
import io.metaroce.core.QueuePair;
import io.metaroce.core.WcStatus;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * PATH-17: when a plane fails under many QPs to one peer, each failed route is probed by one QP, so the probes sent
 * do not grow with the QPs; when the plane returns, one route's re-admission re-admits every QP's path on it.
 */
class RouteProbingTest {
    private static final long MS = 1_000_000L;
    private static final long DOWN_AT = 2 * MS;
    private static final long UP_AT = 12 * MS;
    private static final long STEADY_AT = 7 * MS;

    /** What one outage did. */
    private record Outcome(long probesInSteadyOutage, long failedDuringOutage, long waitedDuringOutage, long failovers,
                           long readmissions, long routeReadmissions, long lastReadmittedNs) { }

    /**
     * {@code qps} QPs from node 0 to node 1 over 4 paths on 2 planes keep writing 256 KiB messages, one after another,
     * until 3 ms after plane 1, down from 2 to 12 ms, returns.
     */
    private static Outcome outage(int qps, boolean routeProbing) {
        EngineConfig cfg = new EngineConfig().paths(4).planes(2).routeProbing(routeProbing);
        Network net = Network.datacenter(7, 2, cfg);
        List<Endpoint> senders = new ArrayList<>();
        List<Endpoint> receivers = new ArrayList<>();
        int bytes = 256 << 10;
        Endpoint.connectPairs(net, 0, 1, qps, bytes, senders, receivers);
        long[] probesAtDown = new long[1];
        long[] probesAtUp = new long[1];
        long[] failedAtUp = new long[1];
        long[] waitsAtUp = new long[1];
        net.at(DOWN_AT, () -> net.setPlaneUp(1, false));
        // the steady state of the outage: every path on plane 1 has failed (its tail-loss probes are behind it)
        net.at(STEADY_AT, () -> probesAtDown[0] = net.engine(0).counters().get(Counter.TX_PROBES));
        net.at(UP_AT, () -> {
            probesAtUp[0] = net.engine(0).counters().get(Counter.TX_PROBES);
            failedAtUp[0] = net.engine(0).counters().get(Counter.PATH_FAILOVERS);
            waitsAtUp[0] = net.engine(0).counters().get(Counter.ROUTE_PROBE_WAITS);
            net.setPlaneUp(1, true);
        });
        long[] allActiveAt = {-1};
        int[] posted = new int[qps];
        boolean done = net.runUntil(() -> {
            if (allActiveAt[0] < 0 && net.nowNs() > UP_AT && senders.stream().allMatch(RouteProbingTest::allActive)) {
                allActiveAt[0] = net.nowNs();
            }
            boolean idle = true;
            for (int k = 0; k < qps; k++) {
                Endpoint a = senders.get(k);
                Endpoint b = receivers.get(k);
                if (a.sendDone() == posted[k] && net.nowNs() < UP_AT + 3 * MS) {
                    assertEquals(QueuePair.OK, a.qp.postWrite(posted[k], a.src, 0, bytes, b.dst.address(),
                            b.dst.rkey(), QueuePair.SIGNALED));
                    posted[k]++;
                }
                idle &= a.sendDone() == posted[k];
            }
            return idle && net.nowNs() >= UP_AT + 3 * MS;
        }, 2_000 * MS);
        assertTrue(done, "every write completes");
        for (int k = 0; k < qps; k++) {
            Endpoint a = senders.get(k);
            assertTrue(a.sendStatuses.stream().allMatch(st -> st == WcStatus.SUCCESS), "QP " + k + a.sendStatuses);
            assertEquals(-1, a.src.segment().mismatch(receivers.get(k).dst.segment()), "data of QP " + k);
        }
        assertTrue(allActiveAt[0] > 0, "every path of every QP is re-admitted before the writes end");
        var c = net.engine(0).counters();
        return new Outcome(probesAtUp[0] - probesAtDown[0], failedAtUp[0], waitsAtUp[0], c.get(Counter.PATH_FAILOVERS), c.get(Counter.PATH_READMISSIONS),
                c.get(Counter.ROUTE_READMISSIONS), allActiveAt[0] - UP_AT);
    }

    private static boolean allActive(Endpoint e) {
        for (int i = 0; i < e.qp.pathCount(); i++) {
            if (e.qp.path(i).state() != PathState.ACTIVE) {
                return false;
            }
        }
        return true;
    }

    @Test
    void probesDuringAnOutageDoNotGrowWithTheQps() {
        Outcome few = outage(4, true);
        Outcome many = outage(32, true);
        Outcome perQp = outage(32, false);
        String all = "4 QPs " + few + ", 32 QPs " + many + ", 32 QPs probing each " + perQp;
        System.out.println("PATH-17 outage of plane 1: " + all);
        // two routes failed (paths 1 and 3 of plane 1): each probed about once per probe interval, whatever the QPs
        // (a QP's path on plane 1 fails only if it had packets in flight there: not every QP's does)
        assertTrue(many.probesInSteadyOutage() <= few.probesInSteadyOutage() * 5 / 4, all);
        assertTrue(perQp.probesInSteadyOutage() >= 3 * many.probesInSteadyOutage(), all);
        // during the outage each of the two routes had one prober; every other failed path waited for it
        assertTrue(many.failedDuringOutage() > 8, all);
        assertEquals(many.failedDuringOutage() - 2, many.waitedDuringOutage(), all);
        assertEquals(0, perQp.waitedDuringOutage(), all);
        // every path that failed came back, and none failed again after the return (with tail copies off, 2 paths
        // whose second timeout fell just after it did, and probed for themselves)
        assertEquals(many.failovers(), many.readmissions(), all);
        assertEquals(many.failedDuringOutage(), many.failovers(), all);
        assertTrue(many.routeReadmissions() >= many.waitedDuringOutage(), all);
        assertEquals(0, perQp.routeReadmissions(), all);
        // within a few RTOs of the return (the last are paths whose second timeout fell after it)
        assertTrue(many.lastReadmittedNs() <= 2 * MS, all);
    }
}
