package io.metaroce.testkit;

import io.metaroce.core.EngineConfig;
import io.metaroce.core.QueuePair;
import io.metaroce.core.wire.Opcode;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** CC-5 with a burst credit (pacingBurstBytes): an idle route may send a run of packets at once, then is paced. */
class PacingBurstTest {
    private static final long US = 1_000L;

    /**
     * The longest run of data packets of the second of two WRITEs that arrived back to back (within 5 ns of each
     * other, the link's serialization), i.e. left the route together.
     */
    private static int longestRun(int burstBytes) {
        // a very fast, short link: packets sent together arrive together, so arrival instants show send instants
        EngineConfig cfg = new EngineConfig().paths(1).planes(1).initialWindowPackets(16)
                .initialWindowBytes(64 * 4096).pacingBurstBytes(burstBytes);
        Network net = new Network(5, 2, cfg, 1_000_000_000_000_000L, 2_000, 64 << 20, 64 << 20);
        Endpoint a = new Endpoint(net, 0, 1 << 20);
        Endpoint b = new Endpoint(net, 1, 1 << 20);
        Endpoint.connect(net, a, b);
        long[] measureFrom = {Long.MAX_VALUE};
        long[] last = {Long.MIN_VALUE};
        int[] run = {0};
        int[] longest = {0};
        net.setObserver((nowNs, d) -> {
            if (d.dst() == 1 && d.opcode() == Opcode.WRITE && nowNs >= measureFrom[0]) {
                run[0] = last[0] != Long.MIN_VALUE && nowNs - last[0] <= 5 ? run[0] + 1 : 1;
                last[0] = nowNs;
                longest[0] = Math.max(longest[0], run[0]);
            }
        });
        assertEquals(QueuePair.OK, a.qp.postWrite(1, a.src, 0, 1 << 20, b.dst.address(), b.dst.rkey(),
                QueuePair.SIGNALED));
        assertTrue(net.runUntil(() -> a.sendDone() == 1, 100_000 * US)); // the route now has an RTT and a window
        net.runFor(500 * US); // idle
        measureFrom[0] = net.nowNs();
        assertEquals(QueuePair.OK, a.qp.postWrite(2, a.src, 0, 1 << 20, b.dst.address(), b.dst.rkey(),
                QueuePair.SIGNALED));
        assertTrue(net.runUntil(() -> a.sendDone() == 2, net.nowNs() + 100_000 * US));
        return longest[0];
    }

    @Test
    void withoutCreditARoutePacesPacketByPacket() {
        assertEquals(1, longestRun(0));
    }

    @Test
    void withCreditAnIdleRouteSendsAtMostOneBurstAtOnce() {
        int run = longestRun(32 * 1024);
        // 32 KiB of credit is 7 datagrams of 4,164 B (plus the one the clock allows anyway)
        assertTrue(run >= 4 && run <= 9, "longest run " + run);
    }
}
