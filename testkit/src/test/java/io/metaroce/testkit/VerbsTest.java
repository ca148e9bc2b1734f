package io.metaroce.testkit;

import io.metaroce.core.Access;
import io.metaroce.core.Counter;
import io.metaroce.core.Engine;
import io.metaroce.core.EngineConfig;
import io.metaroce.core.MemoryRegion;
import io.metaroce.core.QpState;
import io.metaroce.core.QueuePair;
import io.metaroce.core.WcStatus;
import io.metaroce.core.wire.Packet;
import org.junit.jupiter.api.Test;

import java.lang.foreign.MemorySegment;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The verbs model's error paths and state machine (spec VERBS-*, NAK-*). */
class VerbsTest {
    private final EngineConfig cfg = new EngineConfig().paths(4).planes(2).mtu(1024).rnrDelayNs(10_000)
            .rnrRetryLimit(2);
    private final Network net = Network.datacenter(31, 2, cfg);
    private final Endpoint a = new Endpoint(net, 0, 1 << 20);
    private final Endpoint b = new Endpoint(net, 1, 1 << 20);

    VerbsTest() {
        Endpoint.connect(net, a, b);
    }

    @Test
    void badRkeyFailsTheWriteWithRemoteAccessErrorAndFlushesTheRestInOrder() {
        a.qp.postWrite(1, a.src, 0, 4096, b.dst.address(), b.dst.rkey(), QueuePair.SIGNALED);
        a.qp.postWrite(2, a.src, 0, 4096, b.dst.address(), b.dst.rkey() ^ 0x100000, QueuePair.SIGNALED);
        a.qp.postWrite(3, a.src, 0, 4096, b.dst.address(), b.dst.rkey(), 0);
        a.qp.postRecv(9, a.dst, 0, 100);
        assertTrue(net.runUntil(() -> a.sendDone() == 3, 10_000_000L), a.sendCompletions::toString);
        assertEquals(List.of(1L, 2L, 3L), a.sendWrIds);
        assertEquals(WcStatus.REM_ACCESS_ERR, a.sendStatuses.get(1));
        assertEquals(WcStatus.WR_FLUSH_ERR, a.sendStatuses.get(2), "unsignaled WRs complete on error");
        assertEquals(QpState.ERROR, a.qp.state());
        assertEquals(List.of(WcStatus.WR_FLUSH_ERR), a.recvStatuses, "posted receives flushed");
        assertEquals(QpState.RTS, b.qp.state(), "the responder stays up");
        assertEquals(4, b.engine.counters().get(Counter.DROP_BAD_RKEY), "each of the WRITE's 4 packets");
        // work posted in ERROR completes at once with WR_FLUSH_ERR
        assertEquals(QueuePair.OK, a.qp.postSend(4, a.src, 0, 10, 0));
        assertEquals(WcStatus.WR_FLUSH_ERR, a.sendDone() == 4 ? a.sendStatuses.get(3) : null);
    }

    @Test
    void sendWithNoReceivePostedIsRetriedAndFailsAfterTheRnrLimit() {
        a.qp.postSend(1, a.src, 0, 8 * 1024, QueuePair.SIGNALED); // 8 packets, no receive posted
        assertTrue(net.runUntil(() -> a.sendDone() == 1, 100_000_000L));
        assertEquals(WcStatus.RNR_RETRY_EXC_ERR, a.sendStatuses.get(0));
        assertTrue(b.engine.counters().get(Counter.DROP_RNR) >= 8);
    }

    @Test
    void sendWaitsForALateReceiveWithinTheRnrLimit() {
        a.fillRandom(3);
        a.qp.postSend(1, a.src, 0, 8 * 1024, QueuePair.SIGNALED);
        net.at(15_000, () -> b.qp.postRecv(7, b.dst, 0, 8 * 1024));
        assertTrue(net.runUntil(() -> a.sendDone() == 1 && b.recvDone() == 1, 100_000_000L));
        assertEquals(WcStatus.SUCCESS, a.sendStatuses.get(0));
        assertEquals(-1L, a.src.segment().asSlice(0, 8192).mismatch(b.dst.segment().asSlice(0, 8192)));
    }

    @Test
    void sendLongerThanTheReceiveIsAnInvalidRequest() {
        b.qp.postRecv(7, b.dst, 0, 100);
        a.qp.postSend(1, a.src, 0, 4096, QueuePair.SIGNALED);
        assertTrue(net.runUntil(() -> a.sendDone() == 1, 10_000_000L));
        assertEquals(WcStatus.REM_INV_REQ_ERR, a.sendStatuses.get(0));
    }

    @Test
    void readOfAWriteOnlyRegionIsARemoteAccessError() {
        MemoryRegion wo = b.engine.registerMemory(b.pd, b.dst.segment(), Access.REMOTE_WRITE);
        a.qp.postRead(1, a.dst, 0, 100, wo.address(), wo.rkey(), QueuePair.SIGNALED);
        assertTrue(net.runUntil(() -> a.sendDone() == 1, 10_000_000L));
        assertEquals(WcStatus.REM_ACCESS_ERR, a.sendStatuses.get(0));
        assertEquals(1, b.engine.counters().get(Counter.DROP_NO_PERMISSION));
    }

    @Test
    void invalidPostsAreRefusedWithClearCodes() {
        assertEquals(QueuePair.EINVAL, a.qp.postWrite(1, a.src, a.src.length() - 10, 100, 0, 0, 0));
        assertEquals(QueuePair.EINVAL, a.qp.postWrite(1, a.src, 0, -1, 0, 0, 0));
        assertEquals(QueuePair.EINVAL, a.qp.postWrite(1, b.src, 0, 10, 0, 0, 0), "another device's region");
        QueuePair fresh = a.engine.createQp(a.pd, a.scq, a.rcq);
        assertEquals(QueuePair.EINVAL, fresh.postSend(1, a.src, 0, 10, 0), "not connected");
        assertThrows(IllegalStateException.class, () -> fresh.modifyToRts(0));
        assertThrows(IllegalArgumentException.class, () -> new Engine(new EngineConfig().paths(0),
                new java.util.SplittableRandom(1)));
    }

    @Test
    void aQpReconnectedAfterResetCarriesSendsAndReadsAgain() {
        a.fillRandom(8);
        b.fillRandom(9);
        b.qp.postRecv(1, b.dst, 0, 4096);
        a.qp.postSend(1, a.src, 0, 3000, QueuePair.SIGNALED);
        assertTrue(net.runUntil(() -> a.sendDone() == 1 && b.recvDone() == 1, 10_000_000L));
        a.qp.modifyToReset();
        b.qp.modifyToReset();
        Endpoint.connect(net, a, b);
        b.qp.postRecv(2, b.dst, 8192, 4096);
        a.qp.postSend(2, a.src, 8192, 3000, QueuePair.SIGNALED);
        a.qp.postRead(3, a.dst, 0, 5000, b.src.address(), b.src.rkey(), QueuePair.SIGNALED);
        assertTrue(net.runUntil(() -> a.sendDone() == 3 && b.recvDone() == 2, 10_000_000L),
                () -> a.engine.counters() + " / " + b.engine.counters());
        assertEquals(List.of(WcStatus.SUCCESS, WcStatus.SUCCESS, WcStatus.SUCCESS), a.sendStatuses);
        assertEquals(-1L, a.src.segment().asSlice(8192, 3000).mismatch(b.dst.segment().asSlice(8192, 3000)));
        assertEquals(-1L, b.src.segment().asSlice(0, 5000).mismatch(a.dst.segment().asSlice(0, 5000)));
    }

    @Test
    void checkNeverThrowsOnSegmentsNoByteBufferCanView() {
        Packet p = new Packet();
        MemorySegment longs = MemorySegment.ofArray(new long[64]);
        assertEquals(Packet.BAD_CRC, p.check(longs, 200));
        assertEquals(Packet.TRUNCATED, p.check(longs, 10_000));
    }
}
