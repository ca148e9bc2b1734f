package io.metaroce.testkit;

import io.metaroce.core.EngineConfig;
import io.metaroce.core.QueuePair;
import io.metaroce.core.WcStatus;
import io.metaroce.core.wire.BaseHeader;
import io.metaroce.core.wire.Opcode;
import org.junit.jupiter.api.Test;

import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * PATH-18: QPs waiting for a shared route's pacing slot (CC-5) are woken one per slot, oldest first, and no slot is
 * lost while they wait. 64 QPs post at once on a route that is already paced: each sends its first packet before
 * any sends its second, and every message completes with the right data.
 */
class PacingQueueTest {
    private static final long US = 1_000L;
    private static final int QPS = 64;
    private static final int BYTES = 4 * 4096; // four packets each

    @Test
    void waitersTakeTheRoutesSlotsInTurnAndAllComplete() {
        EngineConfig cfg = new EngineConfig().paths(1).planes(1);
        Network net = new Network(7, 2, cfg, 100_000_000_000L, 2_000, 64 << 20, 64 << 20);
        List<Endpoint> senders = new ArrayList<>();
        List<Endpoint> receivers = new ArrayList<>();
        Endpoint.connectPairs(net, 0, 1, QPS + 1, BYTES, senders, receivers);
        // QP 0 warms the route up: it has an RTT, a window and a pacing clock before the others post
        Endpoint first = senders.get(0);
        Endpoint sink = receivers.get(0);
        assertEquals(QueuePair.OK, first.qp.postWrite(0, first.src, 0, BYTES, sink.dst.address(), sink.dst.rkey(),
                QueuePair.SIGNALED));
        assertTrue(net.runUntil(() -> first.sendDone() == 1, 10_000 * US));

        List<Integer> order = new ArrayList<>(); // receiving QPN of every data packet, in the order they leave
        BaseHeader base = new BaseHeader();
        net.setObserver((nowNs, d) -> {
            if (d.src() == 0 && d.opcode() == Opcode.WRITE) {
                order.add(base.wrap(MemorySegment.ofArray(d.bytes()), 0).destQpn());
            }
        });
        for (int k = 1; k <= QPS; k++) {
            Endpoint a = senders.get(k);
            Endpoint b = receivers.get(k);
            assertEquals(QueuePair.OK, a.qp.postWrite(k, a.src, 0, BYTES, b.dst.address(), b.dst.rkey(),
                    QueuePair.SIGNALED));
        }
        assertTrue(net.runUntil(() -> senders.stream().allMatch(e -> e.sendDone() == 1), net.nowNs() + 100_000 * US),
                "a QP waiting for the route's pacing was never woken");
        for (int k = 1; k <= QPS; k++) {
            assertEquals(List.of(WcStatus.SUCCESS), senders.get(k).sendStatuses);
            assertEquals(-1, senders.get(k).src.segment().mismatch(receivers.get(k).dst.segment()), "data of QP " + k);
        }
        // in turn: every waiting QP sends once before any sends twice (one slot each, oldest waiter first)
        int lastToStart = 0;
        Set<Integer> started = new HashSet<>();
        for (int i = 0; i < order.size() && started.size() < QPS; i++) {
            if (started.add(order.get(i))) {
                lastToStart = i;
            }
        }
        System.out.println("PATH-18: the last of " + QPS + " QPs sent its first packet as data packet " + lastToStart);
        assertEquals(QPS - 1, lastToStart, "the data packet with which the last QP to start sent its first");
        assertEquals(QPS * BYTES / 4096, order.size(), "every packet of every QP left once (a lossless link)");
    }
}
