package io.metaroce.testkit;

import io.metaroce.core.EngineConfig;
import io.metaroce.core.PathState;
import io.metaroce.core.QueuePair;
import io.metaroce.core.WcStatus;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Regression tests for liveness failures found by random stress (issue 9), on the deterministic harness. */
class LivenessTest {
    private static final long MS = 1_000_000L;
    private static final int WRITES = 64;

    /**
     * PATH-5 with PATH-13: when more paths probe than the engine-wide budget lets out at once, a probe waiting for
     * its token is not a missed probe; every path that answers is re-admitted (before the fix, the reply deadline
     * ran while the next probe waited for a token, so the path fell back to FAILED after every reply).
     */
    @Test
    void failedPathsAreReadmittedWhenProbesWaitForTheBudget() {
        // 200 probes/s (burst 16) against a 100 us probe interval: once the burst is spent, every probe waits ~5 ms
        EngineConfig cfg = new EngineConfig().paths(8).planes(4).maxProbesPerSecond(200).probeIntervalNs(100_000)
                .connectionTimeoutNs(1_000 * MS);
        Network net = Network.datacenter(9, 2, cfg);
        int pairs = 4;
        List<Endpoint> senders = new ArrayList<>();
        for (int k = 0; k < pairs; k++) {
            Endpoint a = new Endpoint(net, 0, 256 * 1024);
            Endpoint b = new Endpoint(net, 1, 256 * 1024);
            Endpoint.connect(net, a, b);
            senders.add(a);
            for (int w = 0; w < WRITES; w++) { // long enough for plane 1's paths to time out twice and fail
                assertEquals(QueuePair.OK, a.qp.postWrite(w, a.src, 0, 256 * 1024, b.dst.address(), b.dst.rkey(),
                        QueuePair.SIGNALED));
            }
        }
        net.setPlaneUp(1, false);
        net.runFor(20 * MS);
        long failed = senders.stream().mapToLong(e -> e.qp.path(1).failures() + e.qp.path(5).failures()).sum();
        assertTrue(failed >= 2, "plane 1's paths failed: " + failed);
        net.setPlaneUp(1, true);
        // a few failed paths x 2 replies at 200 probes/s is well under 0.1 s of probing; allow 1 s
        assertTrue(net.runUntil(() -> senders.stream().allMatch(LivenessTest::noPathFailed), net.nowNs() + 1_000 * MS),
                () -> "paths not re-admitted: " + senders.stream().filter(e -> !noPathFailed(e)).count() + " QPs, e.g. "
                        + senders.stream().filter(e -> !noPathFailed(e)).findFirst().map(e -> e.qp.path(1)).orElse(null));
        for (Endpoint e : senders) {
            assertEquals(WRITES, e.sendDone(), "WRs completed");
            assertTrue(e.sendStatuses.stream().allMatch(st -> st == WcStatus.SUCCESS), e.sendStatuses::toString);
        }
        assertEquals(0, net.engine(0).internalErrors());
    }

    private static boolean noPathFailed(Endpoint e) {
        for (int i = 0; i < e.qp.pathCount(); i++) {
            PathState st = e.qp.path(i).state();
            if (st == PathState.FAILED || st == PathState.PROBING) { // (a SUSPECT path without data stays SUSPECT)
                return false;
            }
        }
        return true;
    }
}
