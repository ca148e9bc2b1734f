package io.metaroce.testkit;

import io.metaroce.core.EngineConfig;
import io.metaroce.core.QueuePair;
import io.metaroce.core.WcStatus;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * HINT-2/HINT-3: a receiver shares its capacity per sending host, not per QP, and a host paces all its QPs to that
 * receiver together at its grant. Host 0 writes on four QPs and host 1 on one into host 2, whose inbound capacity
 * (10 Gb/s) is well below the 25 Gb/s links, so the grants decide the shares: each host gets half, whatever its QP
 * count (counting QPs would give host 0 four fifths).
 */
class PeerGrantTest {
    private static final long MIB = 1 << 20;

    @Test
    void receiverSharesItsCapacityPerSendingHostNotPerQp() {
        long capacity = 10_000_000_000L;
        EngineConfig cfg = new EngineConfig().paths(4).planes(1).mtu(4096).initialWindowPackets(4)
                .inboundCapacityBps(capacity).activeSenderWindowNs(50_000);
        Network net = new Network(21, 3, cfg, 25_000_000_000L, 1_000, 4 << 20, 200 << 10);
        List<Endpoint> senders = new ArrayList<>();
        List<QueuePair> receivers = new ArrayList<>();
        Endpoint rx = new Endpoint(net, 2, 20 * MIB);
        for (int k = 0; k < 5; k++) {
            Endpoint s = new Endpoint(net, k < 4 ? 0 : 1, 4 * MIB);
            QueuePair r = rx.engine.createQp(rx.pd, rx.scq, rx.rcq);
            net.connect(s.node, s.qp, 2, r, 11 * k, 13 * k);
            senders.add(s);
            receivers.add(r);
        }
        long binNs = 100_000;
        long[][] bins = new long[2][1000];
        int[] mostActive = {0};
        net.setObserver((now, d) -> {
            if (d.dst() == 2 && d.isData()) {
                bins[d.src()][(int) Math.min(999, now / binNs)] += d.payloadLength();
                mostActive[0] = Math.max(mostActive[0], rx.engine.activeSenderCount());
            }
        });
        // host 0's four QPs carry 1 MiB each, host 1's one QP 4 MiB: each host has 4 MiB to send
        for (int k = 0; k < 5; k++) {
            Endpoint s = senders.get(k);
            int len = (int) (k < 4 ? MIB : 4 * MIB);
            s.qp.postWrite(1, s.src, 0, len, rx.dst.address() + k * 4 * MIB, rx.dst.rkey(), QueuePair.SIGNALED);
        }
        assertTrue(net.runUntil(() -> senders.stream().allMatch(s -> s.sendDone() == 1), 1_000_000_000L));
        for (Endpoint s : senders) {
            assertEquals(WcStatus.SUCCESS, s.sendStatuses.get(0));
        }
        assertEquals(2, mostActive[0], "the receiver counts sending hosts, not QPs");
        // steady state: from the second bin to the last bin before either host finished
        long host0 = 0;
        long host1 = 0;
        int bin = 1;
        for (; bin < 999 && bins[0][bin + 1] > 0 && bins[1][bin + 1] > 0; bin++) {
            host0 += bins[0][bin];
            host1 += bins[1][bin];
        }
        assertTrue(bin > 5, "too short a steady state: " + bin + " bins");
        double share0 = (double) host0 / (host0 + host1);
        assertTrue(share0 > 0.42 && share0 < 0.58, "host 0 (4 QPs) got " + share0 + " of the receiver, not ~0.5");
        double gbps = (host0 + host1) * 8.0 / ((bin - 1) * binNs);
        assertTrue(gbps < 10.0 && gbps > 8.0, "together " + gbps + " Gb/s of payload against a 10 Gb/s capacity");
    }
}
