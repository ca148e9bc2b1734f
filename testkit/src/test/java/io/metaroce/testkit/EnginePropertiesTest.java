package io.metaroce.testkit;

import io.metaroce.core.Counter;
import io.metaroce.core.EngineConfig;
import io.metaroce.core.Path;
import io.metaroce.core.QueuePair;
import io.metaroce.core.WcStatus;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Random interleavings of operations and faults (loss, reordering, duplication, corruption, ECN marks, paths
 * and planes going down and up) checked against the invariants of STYLE.md: every byte placed exactly once and
 * correctly, completions exactly once and in order, in-flight bytes never above the window, and progress once
 * the faults heal. Seeds are pinned so that runs are repeatable.
 */
class EnginePropertiesTest {
    private static final int SLOT = 32 * 1024;

    private record Op(int kind, int size, int imm) {
    }

    @Property(tries = 40, seed = "20261130")
    void randomOperationsUnderRandomFaultsKeepTheInvariants(@ForAll long seed,
                                                            @ForAll @IntRange(min = 1, max = 24) int opCount) {
        SplittableRandom r = new SplittableRandom(seed);
        int paths = 1 + r.nextInt(8);
        int planes = 1 + r.nextInt(Math.min(4, paths));
        int mtu = 256 << r.nextInt(4);
        EngineConfig cfg = new EngineConfig().paths(paths).planes(planes).mtu(mtu).minRtoNs(50_000)
                .initialRtoNs(100_000).probeIntervalNs(50_000).rnrDelayNs(20_000).rnrRetryLimit(1000)
                .retryLimit(1000).connectionTimeoutNs(10_000_000_000L).initialWindowPackets(1 + r.nextInt(16));
        Network net = new Network(seed, 2, cfg, 10_000_000_000L * (1 + r.nextInt(10)), 500 + r.nextInt(2000),
                64 * 1024 + r.nextInt(512 * 1024), 8 * 1024 + r.nextInt(64 * 1024));
        net.setLoss(r.nextDouble() * 0.15);
        net.setReorder(r.nextDouble() * 0.3, r.nextInt(1, 20_000));
        net.setDuplicate(r.nextDouble() * 0.05);
        net.setCorrupt(r.nextDouble() * 0.02);
        net.setEcnMarkProbability(r.nextDouble() * 0.1);
        long healAt = 2_000_000;
        for (int k = r.nextInt(4); k > 0; k--) {
            int path = r.nextInt(paths);
            long down = r.nextLong(healAt);
            net.at(down, () -> net.setPathUp(path, false));
            net.at(down + r.nextLong(healAt - down), () -> net.setPathUp(path, true));
        }
        if (r.nextInt(4) == 0 && planes > 1) {
            int plane = r.nextInt(planes);
            net.at(r.nextLong(healAt / 2), () -> net.setPlaneUp(plane, false));
        }
        net.at(healAt, () -> {
            net.setLoss(0);
            net.setReorder(0, 0);
            net.setDuplicate(0);
            net.setCorrupt(0);
            for (int p = 0; p < planes; p++) {
                net.setPlaneUp(p, true);
            }
            for (int p = 0; p < paths; p++) {
                net.setPathUp(p, true);
            }
        });

        Endpoint a = new Endpoint(net, 0, SLOT * 48L);
        Endpoint b = new Endpoint(net, 1, SLOT * 48L);
        Endpoint.connect(net, a, b);
        a.fillRandom(seed);
        b.fillRandom(~seed);
        MemorySegment bSrcCopy = Arena.ofAuto().allocate(b.src.length());
        bSrcCopy.copyFrom(b.src.segment());

        List<Op> ops = new ArrayList<>();
        int receives = 0;
        for (int i = 0; i < opCount; i++) {
            int kind = r.nextInt(5); // 0 WRITE, 1 WRITE_IMM, 2 SEND, 3 SEND_IMM, 4 READ
            int size = r.nextInt(4) == 0 ? 0 : r.nextInt(1, SLOT + 1);
            ops.add(new Op(kind, size, r.nextInt()));
            if (kind >= 1 && kind <= 3) {
                receives++;
            }
        }
        // Post the receives late sometimes, to exercise RNR.
        final int recvCount = receives;
        Runnable postReceives = () -> {
            for (int i = 0; i < recvCount; i++) {
                assertEquals(QueuePair.OK, b.qp.postRecv(1000 + i, b.dst, recvSlot(i), SLOT));
            }
        };
        if (r.nextBoolean()) {
            postReceives.run();
        } else {
            net.at(r.nextLong(500_000), postReceives);
        }
        for (int i = 0; i < opCount; i++) {
            Op op = ops.get(i);
            long off = (long) SLOT * i;
            long remote = b.dst.address() + off;
            int rc = switch (op.kind) {
                case 0 -> a.qp.postWrite(i, a.src, off, op.size, remote, b.dst.rkey(), QueuePair.SIGNALED);
                case 1 -> a.qp.postWriteImm(i, a.src, off, op.size, remote, b.dst.rkey(), op.imm, QueuePair.SIGNALED);
                case 2 -> a.qp.postSend(i, a.src, off, op.size, QueuePair.SIGNALED);
                case 3 -> a.qp.postSendImm(i, a.src, off, op.size, op.imm, QueuePair.SIGNALED);
                default -> a.qp.postRead(i, a.dst, off, op.size, b.src.address() + off, b.src.rkey(),
                        QueuePair.SIGNALED);
            };
            assertEquals(QueuePair.OK, rc);
        }

        // A path takes a packet only while its bytes in flight plus half a packet are within its window (PATH-1):
        // whenever its bytes in flight grew (it sent), they exceed the window by at most half a packet and a
        // datagram's headers. A cut after the send (CC-3, CC-4) may leave more in flight than the new window; that
        // is not a send beyond it.
        String[] windowViolation = {null};
        long[][] seenInflight = new long[2][paths];
        net.setObserver((now, d) -> {
            Endpoint[] ends = {a, b};
            for (int n = 0; n < ends.length; n++) {
                Endpoint e = ends[n];
                for (int p = 0; p < paths; p++) {
                    Path path = e.qp.path(p);
                    long inflight = path.inflightBytes();
                    long limit = Math.max(path.cwndBytes(), 0) + mtu / 2 + 128;
                    if (inflight > seenInflight[n][p] && inflight > limit && windowViolation[0] == null) {
                        windowViolation[0] = "node " + e.node + " " + path + " at " + now;
                    }
                    seenInflight[n][p] = inflight;
                }
            }
        });

        boolean done = net.runUntil(() -> a.sendDone() == opCount && b.recvDone() == recvCount, 5_000_000_000L);
        assertTrue(done, () -> "progress after healing: sends " + a.sendDone() + "/" + opCount + " recvs "
                + b.recvDone() + "/" + recvCount + " at " + net.nowNs() + "\n a=" + a.engine.counters()
                + "\n b=" + b.engine.counters() + "\n qp=" + a.qp);
        assertEquals(null, windowViolation[0], "in-flight within the window");

        List<Long> expectedSends = new ArrayList<>();
        for (long i = 0; i < opCount; i++) {
            expectedSends.add(i);
        }
        assertEquals(expectedSends, a.sendWrIds, "send completions once each, in order");
        assertTrue(a.sendStatuses.stream().allMatch(s -> s == WcStatus.SUCCESS), a.sendCompletions::toString);
        List<Long> expectedRecvs = new ArrayList<>();
        for (long i = 0; i < recvCount; i++) {
            expectedRecvs.add(1000 + i);
        }
        assertEquals(expectedRecvs, b.recvWrIds, "receive completions once each, in order");

        int recvIndex = 0;
        for (int i = 0; i < opCount; i++) {
            Op op = ops.get(i);
            long off = (long) SLOT * i;
            switch (op.kind) {
                case 0, 1 -> assertSame(a.src.segment(), off, b.dst.segment(), off, op.size, "WRITE " + i);
                case 4 -> assertSame(bSrcCopy, off, a.dst.segment(), off, op.size, "READ " + i);
                default -> { }
            }
            if (op.kind >= 1 && op.kind <= 3) {
                String wc = b.recvCompletions.get(recvIndex);
                assertTrue(wc.contains("len=" + op.size), wc + " for op " + i);
                if (op.kind != 2) {
                    assertTrue(wc.contains("imm=" + op.imm), wc);
                }
                if (op.kind != 1) {
                    assertSame(a.src.segment(), off, b.dst.segment(), recvSlot(recvIndex), op.size, "SEND " + i);
                }
                recvIndex++;
            }
        }
        assertEquals(0, a.engine.internalErrors(), () -> String.valueOf(a.engine.lastInternalError()));
        assertEquals(0, b.engine.internalErrors(), () -> String.valueOf(b.engine.lastInternalError()));
        assertEquals(0, b.engine.counters().get(Counter.DUPLICATE_PLACEMENTS));
    }

    /** Receive buffers live in the upper half of b's destination region, away from the WRITE targets. */
    private static long recvSlot(int i) {
        return (long) SLOT * (24 + i);
    }

    private static void assertSame(MemorySegment x, long xo, MemorySegment y, long yo, int len, String what) {
        if (len > 0) {
            assertEquals(-1L, x.asSlice(xo, len).mismatch(y.asSlice(yo, len)), what + " data");
        }
    }
}
