package io.metaroce.testkit;

import io.metaroce.core.EngineConfig;
import io.metaroce.core.QueuePair;
import io.metaroce.core.WcStatus;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

class SmokeTest {
    @Test
    void writeOneMegabyteLossless() {
        EngineConfig cfg = new EngineConfig();
        Network net = Network.datacenter(1, 2, cfg);
        Endpoint a = new Endpoint(net, 0, 1 << 20);
        Endpoint b = new Endpoint(net, 1, 1 << 20);
        Endpoint.connect(net, a, b);
        a.fillRandom(7);
        assertEquals(QueuePair.OK, a.qp.postWrite(1, a.src, 0, 1 << 20, b.dst.address(), b.dst.rkey(), QueuePair.SIGNALED));
        assertTrue(net.runUntil(() -> a.sendDone() == 1, 100_000_000L), () -> a.engine.counters() + " " + net.nowNs());
        assertEquals(a.src.segment().mismatch(b.dst.segment()), -1L);
        System.out.println("done at " + net.nowNs() + " ns " + a.engine.counters());
        assertEquals(0, a.engine.internalErrors());
    }

    @Test
    void twoHundredFiftySixPathsOverEightPlanesAtOnePercentLoss() {
        EngineConfig cfg = new EngineConfig().paths(256).planes(8).mtu(1024).initialWindowPackets(2);
        Network net = Network.datacenter(3, 2, cfg);
        net.setLoss(0.01);
        Endpoint a = new Endpoint(net, 0, 8 << 20);
        Endpoint b = new Endpoint(net, 1, 8 << 20);
        Endpoint.connect(net, a, b);
        a.fillRandom(9);
        assertEquals(QueuePair.OK, a.qp.postWrite(1, a.src, 0, 8 << 20, b.dst.address(), b.dst.rkey(),
                QueuePair.SIGNALED));
        assertTrue(net.runUntil(() -> a.sendDone() == 1, 1_000_000_000L), () -> a.engine.counters().toString());
        assertEquals(WcStatus.SUCCESS, a.sendStatuses.get(0));
        assertEquals(-1L, a.src.segment().mismatch(b.dst.segment()));
        int used = 0;
        for (int i = 0; i < 256; i++) {
            if (a.qp.path(i).txPackets() > 0) {
                used++;
            }
        }
        assertEquals(256, used, "every one of the 256 paths carried data");
        assertEquals(0, a.engine.internalErrors());
    }
}
