package io.metaroce.net;

import io.metaroce.core.Access;
import io.metaroce.core.Counter;
import io.metaroce.core.EngineConfig;
import io.metaroce.core.MemoryRegion;
import io.metaroce.core.ProtectionDomain;
import io.metaroce.core.QueuePair;
import io.metaroce.core.WcStatus;
import io.metaroce.core.WorkCompletion;
import org.junit.jupiter.api.Test;

import java.lang.foreign.Arena;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * AUTH-17 .. AUTH-19 on the real datapath: two devices with a pre-shared key connect over loopback UDP (4 planes,
 * 4 paths, 1% of received datagrams dropped by the test injector) with {@code authKeyUpdatePackets = 256}, and
 * stream 32 MiB of WRITEs each way at once. Both senders update their keys dozens of times while the data moves;
 * every WRITE completes successfully, every byte arrives, no packet fails its tag, and each receiver follows its
 * peer's updates.
 */
class KeyUpdateLoopbackTest {
    private static final byte[] PSK = "a pre-shared key of this test, 32B".getBytes(StandardCharsets.US_ASCII);
    private static final int CHUNK = 1 << 20;
    private static final int CHUNKS = 32;

    @Test
    void aLongAuthenticatedConnectionKeepsMovingDataAcrossKeyUpdates() throws Exception {
        EngineConfig cfg = new EngineConfig().paths(4).mtu(4096).minRtoNs(2_000_000).initialRtoNs(5_000_000)
                .ackDelayNs(20_000).connectionTimeoutNs(10_000_000_000L).authKeyUpdatePackets(256);
        try (Device a = Device.open(options(cfg, 1, "ku-a")); Device b = Device.open(options(cfg, 2, "ku-b"))) {
            ProtectionDomain pa = a.allocPd();
            ProtectionDomain pb = b.allocPd();
            DeviceCq ca = a.createCq(4096);
            DeviceCq cb = b.createCq(4096);
            b.listen(pb, cb, cb);
            DeviceQp qa = a.createQp(pa, ca, ca);
            a.connect(qa, new InetSocketAddress(InetAddress.getByName("127.0.0.1"), b.port()), 5_000);
            DeviceQp qb = b.accept(5_000);
            assertNotNull(qb, "accepted");
            long bytes = (long) CHUNK * CHUNKS;
            MemoryRegion srcA = a.registerMemory(pa, Arena.ofAuto().allocate(bytes, 4096), Access.ALL);
            MemoryRegion dstA = a.registerMemory(pa, Arena.ofAuto().allocate(bytes, 4096), Access.ALL);
            MemoryRegion srcB = b.registerMemory(pb, Arena.ofAuto().allocate(bytes, 4096), Access.ALL);
            MemoryRegion dstB = b.registerMemory(pb, Arena.ofAuto().allocate(bytes, 4096), Access.ALL);
            LoopbackTest.fill(srcA.segment(), 11);
            LoopbackTest.fill(srcB.segment(), 12);
            long t0 = System.nanoTime();
            int postedA = 0;
            int postedB = 0;
            int doneA = 0;
            int doneB = 0;
            WorkCompletion wc = new WorkCompletion();
            long deadline = System.nanoTime() + 60_000_000_000L;
            while (doneA < CHUNKS || doneB < CHUNKS) {
                if (postedA < CHUNKS && qa.postWrite(postedA, srcA, (long) postedA * CHUNK, CHUNK,
                        dstB.address() + (long) postedA * CHUNK, dstB.rkey(), QueuePair.SIGNALED) == QueuePair.OK) {
                    postedA++;
                }
                if (postedB < CHUNKS && qb.postWrite(postedB, srcB, (long) postedB * CHUNK, CHUNK,
                        dstA.address() + (long) postedB * CHUNK, dstA.rkey(), QueuePair.SIGNALED) == QueuePair.OK) {
                    postedB++;
                }
                while (ca.poll(wc)) {
                    assertEquals(WcStatus.SUCCESS, wc.status(), "A: " + wc);
                    assertEquals(doneA++, wc.wrId());
                }
                while (cb.poll(wc)) {
                    assertEquals(WcStatus.SUCCESS, wc.status(), "B: " + wc);
                    assertEquals(doneB++, wc.wrId());
                }
                if (System.nanoTime() - deadline > 0) {
                    throw new AssertionError("stalled at " + doneA + "+" + doneB + " completions\n"
                            + a.stats().format() + "\n" + b.stats().format());
                }
                java.util.concurrent.locks.LockSupport.parkNanos(20_000); // leave the cores to the agents
            }
            double secs = (System.nanoTime() - t0) / 1e9;
            assertEquals(-1L, srcA.segment().mismatch(dstB.segment()), "A's 32 MiB arrived intact at B");
            assertEquals(-1L, srcB.segment().mismatch(dstA.segment()), "B's 32 MiB arrived intact at A");
            Map<Counter, Long> sa = a.stats().counters();
            Map<Counter, Long> sb = b.stats().counters();
            System.out.printf("32 MiB each way, authenticated, key update every 256 packets, 1%% injected loss: "
                            + "%.2f s; A sent %d key updates (B followed %d), B sent %d (A followed %d); "
                            + "DROP_AUTH %d/%d, DROP_KEY_RETIRED %d/%d, injected drops %d/%d%n", secs,
                    get(sa, Counter.KEY_UPDATES_SENT), get(sb, Counter.KEY_UPDATES_RECEIVED),
                    get(sb, Counter.KEY_UPDATES_SENT), get(sa, Counter.KEY_UPDATES_RECEIVED),
                    get(sa, Counter.DROP_AUTH), get(sb, Counter.DROP_AUTH), get(sa, Counter.DROP_KEY_RETIRED),
                    get(sb, Counter.DROP_KEY_RETIRED), a.stats().injectedDrops(), b.stats().injectedDrops());
            checkDirection(sa, sb);
            checkDirection(sb, sa);
            assertTrue(a.stats().injectedDrops() + b.stats().injectedDrops() > 0, "the injector dropped datagrams");
        }
    }

    /** The updates of the sender whose counters are {@code tx}, as its receiver ({@code rx}) saw them. */
    private static void checkDirection(Map<Counter, Long> tx, Map<Counter, Long> rx) {
        long sent = get(tx, Counter.KEY_UPDATES_SENT);
        long followed = get(rx, Counter.KEY_UPDATES_RECEIVED);
        // 8,192 data packets of 4 KiB plus the ACKs for the other direction's: one update per 256 at most
        assertTrue(sent >= 32, "key updates sent: " + sent);
        assertTrue(followed == sent || followed == sent - 1, followed + " of " + sent + " followed");
        assertEquals(0, get(rx, Counter.DROP_AUTH), "no packet failed its tag");
        assertEquals(0, get(tx, Counter.ERROR_COMPLETIONS));
    }

    private static long get(Map<Counter, Long> m, Counter c) {
        return m.getOrDefault(c, 0L);
    }

    private static DeviceOptions options(EngineConfig cfg, long seed, String name) throws Exception {
        return new DeviceOptions().planes(LoopbackTest.planes(4)).port(0).engine(cfg).authKey(PSK)
                .injectLossForTesting(0.01).seed(seed).name(name);
    }
}
