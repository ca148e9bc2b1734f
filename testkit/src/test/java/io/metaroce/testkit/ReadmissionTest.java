package io.metaroce.testkit;

import io.metaroce.core.Counter;
import io.metaroce.core.EngineConfig;
import io.metaroce.core.PathState;
import io.metaroce.core.QueuePair;
import io.metaroce.core.WcStatus;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * PATH-6: a path re-admitted after its plane returns starts with no timer history. Before the fix, a REL-14 loss
 * streak left from the outage's first packets kept the path's RTO clock at its last progress (before the outage),
 * so the first packet it carried after re-admission timed out at once and the path went SUSPECT again.
 */
class ReadmissionTest {
    private static final long MS = 1_000_000L;
    private static final long DOWN_AT = 2 * MS;
    private static final long UP_AT = 6 * MS;

    @Test
    void aReadmittedPathDoesNotTimeOutOnItsFirstPacket() {
        for (int variant = 0; variant < 4; variant++) {
            boolean routeProbing = variant % 2 == 0;
            // the outage's first losses are found by REL-14 alone, or (missingNak, the default) also by the receiver's
            // MISSING NAKs (REL-16): both count against the same loss streak that leaves a dead path to its RTO
            boolean missingNak = variant >= 2;
            EngineConfig cfg = new EngineConfig().paths(4).planes(2).routeProbing(routeProbing).missingNak(missingNak);
            Network net = Network.datacenter(11, 2, cfg);
            int bytes = 256 << 10;
            Endpoint a = new Endpoint(net, 0, bytes);
            Endpoint b = new Endpoint(net, 1, bytes);
            Endpoint.connect(net, a, b);
            a.fillRandom(3);
            net.at(DOWN_AT, () -> net.setPlaneUp(1, false));
            net.at(UP_AT, () -> net.setPlaneUp(1, true));
            long[] rackBeforeUp = new long[1];
            net.at(UP_AT - 1, () -> rackBeforeUp[0] = net.engine(0).counters().get(Counter.RACK_LOSSES)
                    + net.engine(0).counters().get(Counter.MISSING_LOSSES));
            long[] timeoutsAtReadmission = {-1};
            long[] failoversAtReadmission = {-1};
            int[] posted = {0};
            boolean done = net.runUntil(() -> {
                if (timeoutsAtReadmission[0] < 0 && net.nowNs() > UP_AT && allActive(a)) {
                    timeoutsAtReadmission[0] = net.engine(0).counters().get(Counter.TIMEOUTS);
                    failoversAtReadmission[0] = net.engine(0).counters().get(Counter.PATH_FAILOVERS);
                }
                if (a.sendDone() == posted[0] && net.nowNs() < UP_AT + 3 * MS) {
                    assertEquals(QueuePair.OK, a.qp.postWrite(posted[0], a.src, 0, bytes, b.dst.address(),
                            b.dst.rkey(), QueuePair.SIGNALED));
                    posted[0]++;
                }
                return a.sendDone() == posted[0] && net.nowNs() >= UP_AT + 3 * MS;
            }, 2_000 * MS);
            String what = "routeProbing=" + routeProbing + " missingNak=" + missingNak + " " + net.engine(0).counters();
            assertTrue(done, "every write completes: " + what);
            assertTrue(a.sendStatuses.stream().allMatch(st -> st == WcStatus.SUCCESS), what);
            assertEquals(-1, a.src.segment().mismatch(b.dst.segment()), "data: " + what);
            assertTrue(rackBeforeUp[0] > 0, "the outage's first losses were found by REL-14 or REL-16: " + what);
            if (!missingNak) {
                assertEquals(0, c0(net, Counter.MISSING_LOSSES), what);
            }
            assertTrue(failoversAtReadmission[0] > 0, "plane 1's paths failed: " + what);
            assertTrue(timeoutsAtReadmission[0] >= 0, "every path was re-admitted: " + what);
            var c = net.engine(0).counters();
            assertEquals(timeoutsAtReadmission[0], c.get(Counter.TIMEOUTS), "no timeout after re-admission: " + what);
            assertEquals(failoversAtReadmission[0], c.get(Counter.PATH_FAILOVERS), what);
        }
    }

    private static long c0(Network net, Counter k) {
        return net.engine(0).counters().get(k);
    }

    private static boolean allActive(Endpoint e) {
        for (int i = 0; i < e.qp.pathCount(); i++) {
            if (e.qp.path(i).state() != PathState.ACTIVE) {
                return false;
            }
        }
        return true;
    }
}
