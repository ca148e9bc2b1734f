package io.metaroce.testkit;

import io.metaroce.core.Counter;
import io.metaroce.core.Counters;
import io.metaroce.core.EngineConfig;
import io.metaroce.core.QueuePair;
import io.metaroce.core.wire.BaseHeader;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * RTO-6 and PATH-13: the engine-wide probe budget paces the health probes of failed paths only. A tail-loss probe of
 * an ACTIVE path (a tail copy or a PROBE) leaves when it is due, however many other QPs of the device need one: at
 * the end of a collective's step every QP has a tail at once, and a budget would hold the later tails back until
 * their RTO (an all-to-all of 64 hosts at 1% loss waited 70-140 us per held probe).
 */
class TailProbeBudgetTest {
    private static final long MS = 1_000_000L;
    private static final int QPS = 40; // more tails at once than the budget's burst of 16

    @Test
    void manyQpsTailsAllProbedOnTimeWithASmallBudget() {
        // one probe token per second: after the burst of 16 a budgeted probe would wait a second
        EngineConfig cfg = new EngineConfig().paths(1).planes(1).maxProbesPerSecond(1).minRtoNs(MS)
                .connectionTimeoutNs(1_000 * MS);
        Network net = Network.datacenter(3, 2, cfg);
        List<Endpoint> senders = new ArrayList<>();
        List<Endpoint> receivers = new ArrayList<>();
        Endpoint.connectPairs(net, 0, 1, QPS, 4096, senders, receivers);
        // first a delivered write per QP, so that every path has its RTT (RTO-6 needs an srtt)
        for (Endpoint a : senders) {
            post(a, receivers.get(senders.indexOf(a)), 0);
        }
        assertTrue(net.runUntil(() -> senders.stream().allMatch(e -> e.sendDone() == 1), net.nowNs() + 10 * MS));
        // then every QP's one-packet write is lost on its first transmission: each is a tail only a probe can find
        net.setDropRule(d -> d.isData() && d.src() == 0 && (d.flags() & BaseHeader.FLAG_RETRANSMIT) == 0);
        for (Endpoint a : senders) {
            post(a, receivers.get(senders.indexOf(a)), 1);
        }
        Counters c = net.engine(0).counters();
        // the probes are due a few RTTs (tens of us) after sending; the RTO is 1 ms
        assertTrue(net.runUntil(() -> senders.stream().allMatch(e -> e.sendDone() == 2), net.nowNs() + 10 * MS));
        String what = c.toString();
        assertEquals(0, c.get(Counter.TIMEOUTS), "every tail recovered by its probe, none by a timeout: " + what);
        assertEquals(QPS, c.get(Counter.TAIL_COPIES), "one tail copy per QP: " + what);
        for (Endpoint a : senders) {
            assertTrue(a.sendStatuses.stream().allMatch(st -> st == io.metaroce.core.WcStatus.SUCCESS),
                    a.sendStatuses::toString);
        }
    }

    private static void post(Endpoint a, Endpoint b, long wrId) {
        assertEquals(QueuePair.OK, a.qp.postWrite(wrId, a.src, 0, 64, b.dst.address(), b.dst.rkey(),
                QueuePair.SIGNALED));
    }
}
