package io.metaroce.net;

import io.metaroce.core.Access;
import io.metaroce.core.CompletionQueue;
import io.metaroce.core.Engine;
import io.metaroce.core.EngineConfig;
import io.metaroce.core.MemoryRegion;
import io.metaroce.core.ProtectionDomain;
import io.metaroce.core.QueuePair;
import io.metaroce.core.WcStatus;
import io.metaroce.core.WorkCompletion;
import org.junit.jupiter.api.Test;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.net.InetAddress;
import java.util.List;
import java.util.SplittableRandom;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * Two agents driven step by step from the test thread (no agent threads), over loopback sockets, with the time
 * each duty cycle is given chosen by the test.
 */
class IoAgentTest {
    private static final IoAgent.ControlPlane NO_CM = new IoAgent.ControlPlane() {
        @Override
        public void handle(long nowNs, MemorySegment dgram, int len, int fromAddr, int fromPort) {
        }

        @Override
        public void onTimer(long nowNs) {
        }
    };

    /** One side: engine, sockets, agent, a QP, a region. */
    private static final class Side implements AutoCloseable {
        final Engine engine;
        final SocketSet sockets;
        final IoAgent agent;
        final QueuePair qp;
        final CompletionQueue cq;
        final MemoryRegion mr;

        Side(Arena arena, EngineConfig cfg, InetAddress lo, long seed) throws Exception {
            this(arena, cfg, lo, seed, 32);
        }

        Side(Arena arena, EngineConfig cfg, InetAddress lo, long seed, int txBatch) throws Exception {
            engine = new Engine(cfg, new SplittableRandom(seed));
            sockets = new SocketSet(List.of(lo), 0, 0, cfg.paths, SocketSetTest.FFM);
            agent = new IoAgent(engine, sockets, NO_CM, arena, 32, txBatch, 16, 0, seed, 2_000_000, 0);
            ProtectionDomain pd = engine.allocPd();
            cq = engine.createCq(64);
            qp = engine.createQp(pd, cq, cq);
            qp.modifyToInit();
            mr = engine.registerMemory(pd, arena.allocate(4 << 20, 4096), Access.ALL);
        }

        @Override
        public void close() {
            sockets.close();
        }
    }

    @Test
    void everyWaitingDatagramIsTakenInOneCycleBeforeTimersAndTheWriteLands() throws Exception {
        assumeTrue(LinuxUdp.unavailableReason() == null, "FFM datapath unavailable");
        InetAddress lo = InetAddress.getByName("127.0.0.1");
        EngineConfig cfg = DeviceOptions.realNetworkDefaults().mtu(4096).paths(4).planes(1).pacingGain(0);
        try (Arena arena = Arena.ofShared(); Side a = new Side(arena, cfg, lo, 1); Side b = new Side(arena, cfg, lo, 2)) {
            int toB = a.sockets.addPeer(new int[] {Ipv4.of(lo)}, b.sockets.port);
            int toA = b.sockets.addPeer(new int[] {Ipv4.of(lo)}, a.sockets.port);
            a.qp.connect(toB, b.qp.qpn(), 100, 200);
            b.qp.connect(toA, a.qp.qpn(), 200, 100);
            for (long i = 0; i < (4 << 20); i += 8) {
                a.mr.segment().set(java.lang.foreign.ValueLayout.JAVA_LONG_UNALIGNED, i, i * 0x9E3779B97F4A7C15L);
            }
            int len = 4 << 20;
            a.agent.commands.offer(() -> a.qp.postWrite(1, a.mr, 0, len, b.mr.address(), b.mr.rkey(), QueuePair.SIGNALED));
            long t = 1_000_000;
            a.agent.doWork(t);                    // A sends its first windows while B does not run
            long sent = a.agent.txDatagrams;
            assertTrue(sent > 32, "more than one receive batch waits at B: " + sent);
            Thread.sleep(50);                      // let loopback deliver (the kernel does it at once; be safe)
            b.agent.doWork(t);
            assertEquals(sent, b.agent.rxDatagrams, "B took every waiting datagram in one duty cycle");
            WorkCompletion wc = new WorkCompletion();
            boolean done = false;
            for (int step = 0; step < 2_000_000 && !done; step++) {
                t += 1_000;                        // 1 us of engine time per cycle, whatever the real time
                a.agent.doWork(t);
                b.agent.doWork(t);
                done = a.cq.poll(wc);
            }
            assertTrue(done, "the WRITE completed");
            assertEquals(WcStatus.SUCCESS, wc.status());
            assertEquals(-1L, a.mr.segment().mismatch(b.mr.segment()), "every byte landed");
            assertEquals(0, a.agent.clock().stalls(), "the test's time never jumps");
        }
    }

    /**
     * A send round is split by path socket: with four paths a round of 32 gives each socket's sendmmsg about 8
     * datagrams (one 64 KiB GSO message of 8 KiB datagrams per kernel crossing), a round of 128 about 32.
     */
    @Test
    void aLargerSendRoundGivesEachPathSocketLongerRunsPerCall() throws Exception {
        assumeTrue(LinuxUdp.unavailableReason() == null, "FFM datapath unavailable");
        InetAddress lo = InetAddress.getByName("127.0.0.1");
        EngineConfig cfg = DeviceOptions.realNetworkDefaults().paths(4).planes(1).pacingGain(0)
                .initialWindowPackets(64).initialWindowBytes(4L << 20); // 64 packets of 8 KiB on each path at once
        double[] perCall = new double[2];
        int[] batches = {32, 128};
        for (int k = 0; k < 2; k++) {
            try (Arena arena = Arena.ofShared(); Side a = new Side(arena, cfg, lo, 1, batches[k]);
                 Side b = new Side(arena, cfg, lo, 2)) {
                int toB = a.sockets.addPeer(new int[] {Ipv4.of(lo)}, b.sockets.port);
                a.qp.connect(toB, b.qp.qpn(), 100, 200);
                int len = 4 << 20;
                a.agent.commands.offer(() -> a.qp.postWrite(1, a.mr, 0, len, b.mr.address(), b.mr.rkey(),
                        QueuePair.SIGNALED));
                a.agent.doWork(1_000_000); // the first windows: ~64 packets on each of the four paths
                SendStats ss = a.sockets.sendStats();
                assertTrue(ss.datagrams >= 240, "four initial windows left in the first cycle: " + ss.datagrams);
                perCall[k] = ss.datagramsPerCall();
            }
        }
        assertTrue(perCall[0] <= 8.5, "a round of 32 over four sockets: about 8 per call, " + perCall[0]);
        assertTrue(perCall[1] >= 3 * perCall[0], "a round of 128: runs of about 32, " + perCall[1]);
    }
}
