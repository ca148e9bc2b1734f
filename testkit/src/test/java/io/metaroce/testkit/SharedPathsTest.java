package io.metaroce.testkit;

import io.metaroce.core.EngineConfig;
import io.metaroce.core.QueuePair;
import io.metaroce.core.WcStatus;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** PATH-15: QPs to one peer share each path's window. */
class SharedPathsTest {
    private static final long MS = 1_000_000L;

    @Test
    void manyQpsToOnePeerAllComplete() {
        EngineConfig cfg = new EngineConfig().paths(8).planes(2);
        Network net = Network.datacenter(3, 2, cfg);
        List<Endpoint> senders = new ArrayList<>();
        List<Endpoint> receivers = new ArrayList<>();
        int qps = 16;
        int bytes = 1 << 20;
        Endpoint.connectPairs(net, 0, 1, qps, bytes, senders, receivers);
        for (int k = 0; k < qps; k++) {
            Endpoint a = senders.get(k);
            Endpoint b = receivers.get(k);
            assertEquals(QueuePair.OK, a.qp.postWrite(k, a.src, 0, bytes, b.dst.address(), b.dst.rkey(),
                    QueuePair.SIGNALED));
        }
        boolean done = net.runUntil(() -> senders.stream().allMatch(e -> e.sendDone() == 1), 200 * MS);
        StringBuilder why = new StringBuilder();
        for (Endpoint e : senders) {
            if (e.sendDone() == 0) {
                why.append(e.qp).append(' ').append(e.qp.path(0)).append(" path in flight=")
                        .append(e.qp.path(0).inflightBytes()).append('\n');
            }
        }
        assertTrue(done, () -> "stalled QPs:\n" + why);
        for (int k = 0; k < qps; k++) {
            assertEquals(List.of(WcStatus.SUCCESS), senders.get(k).sendStatuses);
            assertEquals(-1, senders.get(k).src.segment().mismatch(receivers.get(k).dst.segment()), "data of QP " + k);
        }
    }
}
