package io.metaroce.core;

import io.metaroce.core.testkit.Network;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Regression tests for liveness failures found by random stress (issue 9), on the deterministic harness. */
class LivenessTest {
    private static final long MS = 1_000_000L;

    /**
     * PATH-5 with PATH-13: when more paths probe than the engine-wide budget lets out at once, a probe waiting for
     * its token is not a missed probe; every path that answers is re-admitted (before the fix, the reply deadline
     * ran while the next probe waited for a token, so the path fell back to FAILED after every reply).
     */
    @Test
    void failedPathsAreReadmittedWhenProbesWaitForTheBudget() {
        EngineConfig cfg = new EngineConfig().paths(8).planes(4).maxProbesPerSecond(2_000).probeIntervalNs(100_000)
                .connectionTimeoutNs(1_000 * MS);
        Network net = Network.datacenter(9, 2, cfg);
        int pairs = 100;
        List<Endpoint> senders = new ArrayList<>();
        for (int k = 0; k < pairs; k++) {
            Endpoint a = new Endpoint(net, 0, 256 * 1024);
            Endpoint b = new Endpoint(net, 1, 256 * 1024);
            Endpoint.connect(net, a, b);
            senders.add(a);
            assertEquals(QueuePair.OK, a.qp.postWrite(k, a.src, 0, 256 * 1024, b.dst.address(), b.dst.rkey(),
                    QueuePair.SIGNALED));
        }
        net.setPlaneUp(1, false);
        net.runFor(20 * MS);
        long failed = senders.stream().mapToLong(e -> e.qp.path(1).failures() + e.qp.path(5).failures()).sum();
        assertTrue(failed >= pairs, "plane 1's paths failed: " + failed);
        net.setPlaneUp(1, true);
        // 200 failed paths x 2 replies at 2,000 probes/s is 0.2 s of probing; allow 1 s
        assertTrue(net.runUntil(() -> senders.stream().allMatch(LivenessTest::allPathsActive), net.nowNs() + 1_000 * MS),
                () -> "paths not re-admitted: " + senders.stream().filter(e -> !allPathsActive(e)).count() + " QPs, e.g. "
                        + senders.stream().filter(e -> !allPathsActive(e)).findFirst().map(e -> e.qp.path(1)).orElse(null));
        for (Endpoint e : senders) {
            assertEquals(1, e.sendDone(), "WR completed");
            assertEquals(List.of(WcStatus.SUCCESS), e.sendStatuses);
        }
        assertEquals(0, net.engine(0).internalErrors());
    }

    private static boolean allPathsActive(Endpoint e) {
        for (int i = 0; i < e.qp.pathCount(); i++) {
            if (e.qp.path(i).state() != PathState.ACTIVE) {
                return false;
            }
        }
        return true;
    }
}
