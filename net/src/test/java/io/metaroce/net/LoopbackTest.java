package io.metaroce.net;

import io.metaroce.core.WorkCompletion;
import io.metaroce.core.Access;
import io.metaroce.core.Counter;
import io.metaroce.core.EngineConfig;
import io.metaroce.core.MemoryRegion;
import io.metaroce.core.ProtectionDomain;
import io.metaroce.core.QueuePair;
import io.metaroce.core.WcOpcode;
import io.metaroce.core.WcStatus;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Two devices in one JVM over loopback (127.0.0.1-4 as four planes): every operation, data verified. */
class LoopbackTest {
    static List<InetAddress> planes(int n) throws Exception {
        List<InetAddress> l = new ArrayList<>();
        for (int i = 1; i <= n; i++) {
            l.add(InetAddress.getByName("127.0.0." + i));
        }
        return l;
    }

    /** A connected pair of devices with a region each. */
    static final class Pair implements AutoCloseable {
        final Device a;
        final Device b;
        final DeviceQp qa;
        final DeviceQp qb;
        final MemoryRegion ma;
        final MemoryRegion mb;
        final WorkCompletion wc = new WorkCompletion();

        Pair(DeviceOptions.Transport transport, int paths, double loss, long regionBytes) throws Exception {
            this(transport, paths, loss, regionBytes, -1);
        }

        /** As above, with device b taking datagrams of IP DSCP {@code trimmedDscpB} as trimmed (REL-17). */
        Pair(DeviceOptions.Transport transport, int paths, double loss, long regionBytes, int trimmedDscpB)
                throws Exception {
            EngineConfig cfg = new EngineConfig().paths(paths).mtu(4096).minRtoNs(2_000_000)
                    .initialRtoNs(5_000_000).ackDelayNs(20_000).connectionTimeoutNs(10_000_000_000L);
            a = Device.open(new DeviceOptions().planes(planes(4)).port(0).engine(cfg).transport(transport)
                    .injectLossForTesting(loss).seed(1).name("lo-a"));
            b = Device.open(new DeviceOptions().planes(planes(4)).port(0).engine(cfg).transport(transport)
                    .injectLossForTesting(loss).seed(2).name("lo-b").trimmedDscp(trimmedDscpB));
            ProtectionDomain pa = a.allocPd();
            ProtectionDomain pb = b.allocPd();
            DeviceCq ca = a.createCq(4096);
            DeviceCq cb = b.createCq(4096);
            b.listen(pb, cb, cb);
            qa = a.createQp(pa, ca, ca);
            a.connect(qa, new InetSocketAddress(InetAddress.getByName("127.0.0.1"), b.port()), 5_000);
            qb = b.accept(5_000);
            assertTrue(qb != null, "accepted");
            ma = a.registerMemory(pa, Arena.ofAuto().allocate(regionBytes, 4096), Access.ALL);
            mb = b.registerMemory(pb, Arena.ofAuto().allocate(regionBytes, 4096), Access.ALL);
        }

        /** Polls {@code cq} until a completion arrives (bounded wait); returns it. */
        WorkCompletion next(DeviceCq cq) throws InterruptedException {
            long deadline = System.nanoTime() + 30_000_000_000L;
            while (!cq.poll(wc)) {
                if (System.nanoTime() > deadline) {
                    throw new AssertionError("no completion in 30 s; stats:\n" + a.stats().format()
                            + "\n" + b.stats().format());
                }
                java.util.concurrent.locks.LockSupport.parkNanos(20_000); // leave the cores to the agents
            }
            return wc;
        }

        @Override
        public void close() {
            a.close();
            b.close();
        }
    }

    static void fill(MemorySegment s, long seed) {
        SplittableRandom r = new SplittableRandom(seed);
        for (long i = 0; i + 8 <= s.byteSize(); i += 8) {
            s.set(ValueLayout.JAVA_LONG_UNALIGNED, i, r.nextLong());
        }
    }

    @ParameterizedTest
    @EnumSource(value = DeviceOptions.Transport.class, names = {"AUTO", "CHANNEL"})
    void everyOperationTypeMovesCorrectData(DeviceOptions.Transport transport) throws Exception {
        try (Pair p = new Pair(transport, 4, 0, 4 << 20)) {
            fill(p.ma.segment(), 1);
            fill(p.mb.segment(), 2);
            MemorySegment bInitial = Arena.ofAuto().allocate(4 << 20);
            bInitial.copyFrom(p.mb.segment());
            int mib = 1 << 20;
            // WRITE 1 MiB a[0..1M) -> b[0..1M)
            assertEquals(QueuePair.OK, p.qa.postWrite(1, p.ma, 0, mib, p.mb.address(), p.mb.rkey(), QueuePair.SIGNALED));
            WorkCompletion c = p.next(p.qa.sendCq());
            assertEquals(WcStatus.SUCCESS, c.status(), c::toString);
            assertEquals(-1L, p.ma.segment().asSlice(0, mib).mismatch(p.mb.segment().asSlice(0, mib)));
            // WRITE_IMM 100 KiB a[1M..] -> b[1M..], consuming a receive at b
            assertEquals(QueuePair.OK, p.qb.postRecv(10, p.mb, 3L * mib, 4096));
            assertEquals(QueuePair.OK, p.qa.postWriteImm(2, p.ma, mib, 100_000, p.mb.address() + mib, p.mb.rkey(),
                    0xCAFE, QueuePair.SIGNALED));
            assertEquals(WcStatus.SUCCESS, p.next(p.qa.sendCq()).status());
            c = p.next(p.qb.recvCq());
            assertEquals(10, c.wrId());
            assertEquals(WcOpcode.RECV_RDMA_WITH_IMM, c.opcode());
            assertEquals(0xCAFE, c.immediate());
            assertEquals(-1L, p.ma.segment().asSlice(mib, 100_000).mismatch(p.mb.segment().asSlice(mib, 100_000)));
            // SEND and SEND_IMM into posted receives
            assertEquals(QueuePair.OK, p.qb.postRecv(11, p.mb, 2L * mib, 200_000));
            assertEquals(QueuePair.OK, p.qb.postRecv(12, p.mb, 2L * mib + 200_000, 10));
            assertEquals(QueuePair.OK, p.qa.postSend(3, p.ma, 2L * mib, 150_000, QueuePair.SIGNALED));
            assertEquals(QueuePair.OK, p.qa.postSendImm(4, p.ma, 2L * mib + 150_000, 7, 42, QueuePair.SIGNALED));
            assertEquals(3, p.next(p.qa.sendCq()).wrId());
            assertEquals(4, p.next(p.qa.sendCq()).wrId());
            c = p.next(p.qb.recvCq());
            assertEquals(11, c.wrId());
            assertEquals(150_000, c.byteLen());
            c = p.next(p.qb.recvCq());
            assertEquals(12, c.wrId());
            assertEquals(42, c.immediate());
            assertEquals(-1L, p.ma.segment().asSlice(2L * mib, 150_000)
                    .mismatch(p.mb.segment().asSlice(2L * mib, 150_000)));
            assertEquals(-1L, p.ma.segment().asSlice(2L * mib + 150_000, 7)
                    .mismatch(p.mb.segment().asSlice(2L * mib + 200_000, 7)));
            // READ 500 KB of b's untouched upper part into a[3M..]
            long off = 3L * mib + 8192;
            assertEquals(QueuePair.OK, p.qa.postRead(5, p.ma, 3L * mib, 500_000, p.mb.address() + off, p.mb.rkey(),
                    QueuePair.SIGNALED));
            c = p.next(p.qa.sendCq());
            assertEquals(WcStatus.SUCCESS, c.status(), c::toString);
            assertEquals(WcOpcode.RDMA_READ, c.opcode());
            assertEquals(-1L, bInitial.asSlice(off, 500_000).mismatch(p.ma.segment().asSlice(3L * mib, 500_000)));
            DeviceStats s = p.a.stats();
            assertTrue(s.txDatagrams() > 250, s.format());
            assertEquals(0, s.qps().get(0).postedNotTaken(), "every post was taken by the agent: " + s.format());
            assertEquals(0, p.a.stats().counters().getOrDefault(Counter.DROP_BAD_CRC, 0L));
            assertEquals(null, p.a.failure());
            assertEquals(null, p.b.failure());
            System.out.println(transport + ": " + p.a.transportName() + "\n" + s.format());
        }
    }

    @Test
    void writeStreamSurvivesOnePercentInjectedLoss() throws Exception {
        try (Pair p = new Pair(DeviceOptions.Transport.AUTO, 4, 0.01, 64 << 20)) {
            fill(p.ma.segment(), 3);
            int chunk = 1 << 20;
            long t0 = System.nanoTime();
            for (int i = 0; i < 64; i++) {
                while (p.qa.postWrite(i, p.ma, (long) i * chunk, chunk, p.mb.address() + (long) i * chunk,
                        p.mb.rkey(), QueuePair.SIGNALED) == QueuePair.ENOMEM) {
                    java.util.concurrent.locks.LockSupport.parkNanos(20_000);
                }
            }
            for (int i = 0; i < 64; i++) {
                WorkCompletion c = p.next(p.qa.sendCq());
                assertEquals(i, c.wrId());
                assertEquals(WcStatus.SUCCESS, c.status());
            }
            double secs = (System.nanoTime() - t0) / 1e9;
            assertEquals(-1L, p.ma.segment().mismatch(p.mb.segment()));
            DeviceStats sa = p.a.stats();
            DeviceStats sb = p.b.stats();
            System.out.printf("64 MiB over loopback with 1%% injected loss: %.2f Gb/s, injected drops %d+%d, "
                            + "retransmits %d%n", (64L << 20) * 8 / secs / 1e9, sa.injectedDrops(),
                    sb.injectedDrops(), sa.counters().getOrDefault(Counter.RETRANSMITS, 0L));
            assertTrue(sb.injectedDrops() > 0);
            System.out.println(sa.format());
        }
    }

    @Test
    void connectToNobodyTimesOutWithAClearMessage() throws Exception {
        try (Device a = Device.open(new DeviceOptions().planes(planes(1)).port(0))) {
            DeviceQp q = a.createQp(a.allocPd(), a.createCq(16), a.createCq(16));
            IllegalStateException e = org.junit.jupiter.api.Assertions.assertThrows(IllegalStateException.class,
                    () -> a.connect(q, new InetSocketAddress(InetAddress.getByName("127.0.0.1"), 9), 300));
            assertTrue(e.getMessage().contains("timed out"), e.getMessage());
        }
    }

    @Test
    void mismatchedParametersAndMissingListenersAreRejectedWithTheirReason() throws Exception {
        try (Device a = Device.open(new DeviceOptions().planes(planes(1)).port(0)
                .engine(DeviceOptions.realNetworkDefaults().paths(4)));
             Device b = Device.open(new DeviceOptions().planes(planes(1)).port(0)
                     .engine(DeviceOptions.realNetworkDefaults().paths(8)))) {
            InetSocketAddress at = new InetSocketAddress(InetAddress.getByName("127.0.0.1"), b.port());
            DeviceQp q1 = a.createQp(a.allocPd(), a.createCq(16), a.createCq(16));
            IllegalStateException noListener = org.junit.jupiter.api.Assertions.assertThrows(
                    IllegalStateException.class, () -> a.connect(q1, at, 2_000));
            assertTrue(noListener.getMessage().contains("CONSUMER"), noListener.getMessage());
            ProtectionDomain pb = b.allocPd();
            DeviceCq cb = b.createCq(16);
            b.listen(pb, cb, cb);
            DeviceQp q2 = a.createQp(a.allocPd(), a.createCq(16), a.createCq(16));
            IllegalStateException params = org.junit.jupiter.api.Assertions.assertThrows(
                    IllegalStateException.class, () -> a.connect(q2, at, 2_000));
            assertTrue(params.getMessage().contains("INVALID_PARAMS"), params.getMessage());
        }
    }
}
