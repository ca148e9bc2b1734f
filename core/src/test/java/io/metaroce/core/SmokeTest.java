package io.metaroce.core;

import io.metaroce.core.testkit.Network;
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
}
