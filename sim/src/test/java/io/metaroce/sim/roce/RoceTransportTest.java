package io.metaroce.sim.roce;

import io.metaroce.sim.event.Units;
import io.metaroce.sim.fabric.FabricConfig;
import io.metaroce.sim.fabric.Link;
import io.metaroce.sim.fabric.SwitchPort;

import org.junit.jupiter.api.Test;

import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The RoCEv2 baseline on a leaf-spine fabric: line rate, go-back-N, DCQCN incast, retry exhaustion. */
class RoceTransportTest {
    private static final long GBPS = 1_000_000_000L;
    private static final long MIB = 1 << 20;

    /** 8 hosts, 4 per leaf, 2 spines, 100G, 1 us links; 16 MB buffers stand in for a lossless (PFC) fabric. */
    private static FabricConfig smallFabric() {
        return new FabricConfig().hosts(8).hostsPerLeaf(4).spines(2).bufferBytes(16 * MIB);
    }

    /** Goodput of {@code messages} x 1 MiB from host 0 to host 5 (across the spine), in Gb/s. */
    private static double bulk(RoceHarness h, int messages) {
        int c = h.roce.connect(0, 5);
        for (int i = 0; i < messages; i++) {
            h.roce.send(c, MIB, 100 + i);
        }
        h.loop.run(Units.psFromMs(500));
        assertEquals(messages, h.okCompletions(), () -> h.roce.counters().toString());
        assertEquals(messages * MIB, h.roce.receivedBytes(c));
        return messages * MIB * 8.0 / (h.lastCompletionPs() / 1e12) / GBPS;
    }

    @Test
    void bulkTransferOverALosslessFabricReachesNearLineRate() {
        RoceHarness h = new RoceHarness(1, smallFabric(), new RoceConfig());
        double gbps = bulk(h, 16);
        double payloadLine = 100.0 * 4096 / (4096 + 64);
        System.out.printf("rocev2 bulk 16 MiB lossless: %.2f Gb/s (payload line rate %.2f)%n", gbps, payloadLine);
        assertTrue(gbps > 0.95 * payloadLine, "goodput " + gbps);
        for (int i = 0; i < 16; i++) { // in posting order, delivered before completed
            assertEquals(100 + i, h.completions.get(i).tag());
            assertEquals(100 + i, h.deliveries.get(i).tag());
            assertTrue(h.deliveries.get(i).atPs() < h.completions.get(i).atPs());
        }
        assertEquals(0, h.counter("retransmits"));
        assertEquals(0, h.counter("timeouts"));
        assertEquals(0, h.counter("internal_errors"));
        assertEquals(16 * 256, h.roce.dataPacketsSent());
        assertEquals(0, h.pool.inUse(), "every packet released");
    }

    @Test
    void goBackNUnderLinkLossResendsAndGoodputCollapses() {
        double lossless = bulk(new RoceHarness(2, smallFabric(), new RoceConfig()), 16);
        RoceHarness low = new RoceHarness(2, smallFabric().linkLoss(0.001), new RoceConfig());
        double lowGbps = bulk(low, 16);
        RoceHarness high = new RoceHarness(2, smallFabric().linkLoss(0.01), new RoceConfig());
        double highGbps = bulk(high, 16);
        System.out.printf("rocev2 bulk 16 MiB: lossless %.2f Gb/s, 0.1%% loss/link %.2f Gb/s %s,"
                + " 1%% loss/link %.2f Gb/s %s%n", lossless, lowGbps, low.roce.counters(), highGbps,
                high.roce.counters());
        for (RoceHarness h : new RoceHarness[] {low, high}) {
            assertTrue(h.counter("naks") > 0);
            assertTrue(h.counter("retransmits") > h.counter("naks"), "go-back-N resends runs, not single packets");
            assertEquals(16 * 256 + h.counter("retransmits"), h.roce.dataPacketsSent());
            assertEquals(0, h.counter("internal_errors"));
            assertEquals(0, h.pool.inUse());
        }
        assertTrue(lowGbps < lossless);
        assertTrue(highGbps < 0.5 * lossless, "1% loss per link: " + highGbps + " vs " + lossless);
    }

    @Test
    void oneGapEpisodeDrawsOneNakAndGoBackNRecovers() {
        RoceHarness h = new RoceHarness(3, smallFabric(), new RoceConfig());
        int c = h.roce.connect(0, 5);
        h.roce.send(c, 4 * MIB, 7);
        // the last hop drops everything for 2 us (about 6 packets): one gap, one NAK
        Link last = h.fabric.hostDownlink(5, h.roce.plane(c));
        h.at(Units.psFromUs(20), () -> last.setUp(false));
        h.at(Units.psFromUs(22), () -> last.setUp(true));
        h.loop.run(Units.psFromMs(100));
        Map<String, Long> k = h.roce.counters();
        assertEquals(1, h.okCompletions(), k.toString());
        assertEquals(4 * MIB, h.roce.receivedBytes(c));
        assertTrue(last.dropped() >= 5, "dropped " + last.dropped());
        assertEquals(1, k.get("naks"), k.toString());
        assertEquals(0, k.get("timeouts"), k.toString());
        // everything in flight behind the gap is resent: at least the drops plus the packets that arrived
        // out of order during the NAK's round trip
        assertEquals(k.get("out_of_sequence_drops") + last.dropped(), k.get("retransmits"), k.toString());
    }

    /** What an incast run measured over its late window. */
    private record Incast(RoceHarness h, long queueMaxLate, double gbpsLate, double jainLate) { }

    /**
     * 8 senders (other leaves) to host 0 on a 100G leaf-spine with the HPCC ECN settings (Kmin 400 KB, Kmax
     * 1600 KB, Pmax 0.2) and 64 MB buffers (no drops: the lossless fabric without PFC), for {@code runPs};
     * the late window is its last {@code lateFraction}.
     */
    private static Incast incast(long seed, boolean dcqcn, long runPs, double lateFraction) {
        FabricConfig fc = new FabricConfig().hosts(16).hostsPerLeaf(4).spines(4).bufferBytes(64 * MIB)
                .ecn(400 << 10, 1600 << 10, 0.2);
        RoceHarness h = new RoceHarness(seed, fc, new RoceConfig().dcqcn(dcqcn));
        for (int s = 4; s < 12; s++) {
            h.roce.send(h.roce.connect(s, 0), 1L << 30, s);
        }
        SwitchPort bottleneck = h.lastHop(0, 0);
        long from = runPs - (long) (runPs * lateFraction);
        long[] queueMax = new long[1];
        long[] atFrom = new long[8];
        h.at(from, () -> {
            for (int c = 0; c < 8; c++) {
                atFrom[c] = h.roce.receivedBytes(c);
            }
        });
        h.every(Units.psFromUs(5), runPs, () -> {
            if (h.loop.nowPs() >= from) {
                queueMax[0] = Math.max(queueMax[0], bottleneck.queuedBytes());
            }
        });
        h.loop.run(runPs);
        double sum = 0;
        double squares = 0;
        for (int c = 0; c < 8; c++) {
            double x = h.roce.receivedBytes(c) - atFrom[c];
            sum += x;
            squares += x * x;
        }
        double seconds = (runPs - from) / 1e12;
        return new Incast(h, queueMax[0], sum * 8 / seconds / GBPS, sum * sum / (8 * squares));
    }

    @Test
    void incastWithDcqcnCutsRatesAndConvergesToABoundedQueue() {
        long run = Units.psFromMs(16);
        Incast on = incast(4, true, run, 0.375); // late window: 10 to 16 ms
        Incast off = incast(4, false, Units.psFromMs(2), 0.5);
        RoceHarness h = on.h();
        SwitchPort bottleneck = h.lastHop(0, 0);
        System.out.printf("rocev2 incast 8->1, 16 ms: queue max %d B overall, %d B in 10-16 ms; 10-16 ms goodput"
                + " %.2f Gb/s, Jain %.3f; ECN marks %d; %s; without DCQCN: queue %d B at 2 ms%n",
                bottleneck.maxQueuedBytes(), on.queueMaxLate(), on.gbpsLate(), on.jainLate(), bottleneck.ecnMarked(),
                h.roce.counters(), off.queueMaxLate());
        assertTrue(h.counter("cnps") > 0);
        assertTrue(h.counter("rate_decreases") >= 8, "every sender cut its rate");
        assertTrue(h.counter("rate_increases") > 0);
        for (int c = 0; c < 8; c++) {
            assertTrue(h.roce.rateBps(c) < 50e9, "conn " + c + " at " + h.roce.rateBps(c));
        }
        // the first burst overshoots (ECN marked at enqueue behind a deep queue), then the queue settles
        assertTrue(bottleneck.maxQueuedBytes() > 1600 << 10);
        assertTrue(on.queueMaxLate() < 2 * MIB, "queue settled near Kmax: " + on.queueMaxLate());
        assertTrue(on.gbpsLate() > 90, "the bottleneck stays busy: " + on.gbpsLate());
        assertTrue(on.jainLate() > 0.95, "fair shares: " + on.jainLate());
        assertTrue(off.queueMaxLate() > 32 * MIB, "without DCQCN the queue keeps growing: " + off.queueMaxLate());
        assertEquals(0, bottleneck.dropped());
        assertEquals(0, h.counter("internal_errors"));
    }

    @Test
    void sameSeedSameCounters() {
        RoceHarness a = incast(9, true, Units.psFromMs(1), 0.5).h();
        RoceHarness b = incast(9, true, Units.psFromMs(1), 0.5).h();
        assertEquals(a.roce.counters(), b.roce.counters());
        assertEquals(a.loop.eventsProcessed(), b.loop.eventsProcessed());
        for (int c = 0; c < 8; c++) {
            assertEquals(a.roce.receivedBytes(c), b.roce.receivedBytes(c));
            assertEquals(a.roce.rateBps(c), b.roce.rateBps(c));
            assertEquals(a.roce.pathId(c), b.roce.pathId(c));
        }
        RoceHarness other = incast(10, true, Units.psFromMs(1), 0.5).h();
        boolean differs = false;
        for (int c = 0; c < 8; c++) {
            differs |= other.roce.pathId(c) != a.roce.pathId(c);
        }
        assertTrue(differs, "another seed picks other paths");
    }

    @Test
    void linkDownMidTransferErrorsTheQpAfterItsRetries() {
        RoceConfig rc = new RoceConfig().rtoPs(Units.psFromUs(100)).retryCount(3);
        RoceHarness h = new RoceHarness(5, smallFabric(), rc);
        int c = h.roce.connect(0, 5);
        int other = h.roce.connect(1, 6);
        h.roce.send(c, 8 * MIB, 1);
        h.roce.send(c, MIB, 2);
        h.roce.send(other, MIB, 3);
        long down = Units.psFromUs(50);
        h.at(down, () -> h.fabric.hostUplink(0, h.roce.plane(c)).setUp(false));
        h.loop.run(Units.psFromMs(10));
        Map<String, Long> k = h.roce.counters();
        assertTrue(h.roce.failed(c));
        assertEquals(4, k.get("timeouts"), "3 retries, the 4th timeout errors the QP: " + k);
        assertEquals(1, k.get("qp_errors"));
        assertEquals(3, h.completions.size(), h.completions.toString());
        RoceHarness.Completion ok = h.completions.get(0);
        assertEquals(other, ok.conn());
        assertTrue(ok.ok());
        RoceHarness.Completion e1 = h.completions.get(1);
        RoceHarness.Completion e2 = h.completions.get(2);
        assertEquals(1, e1.tag());
        assertEquals(2, e2.tag());
        assertFalse(e1.ok());
        assertFalse(e2.ok());
        // last progress just before the link went down, then 4 RTOs (each no later than 100 us after the last)
        // the last ACKs arrive up to a round trip (~10 us) after the link went down, then 4 RTOs
        assertTrue(e1.atPs() > down + 4 * rc.rtoPs && e1.atPs() <= down + 4 * rc.rtoPs + Units.psFromUs(20),
                "error at " + e1.atPs());
        assertTrue(h.roce.receivedBytes(c) < 8 * MIB);
        // a message posted on the errored QP is flushed with an error too
        h.roce.send(c, 100, 4);
        h.loop.run(Units.psFromMs(11));
        assertEquals(4, h.completions.get(3).tag());
        assertFalse(h.completions.get(3).ok());
        assertEquals(0, k.get("internal_errors"));
    }

    @Test
    void qpsOfOneNicShareItFairly() {
        RoceHarness h = new RoceHarness(6, smallFabric(), new RoceConfig());
        int[] c = new int[4];
        for (int i = 0; i < 4; i++) {
            c[i] = h.roce.connect(0, 4 + i);
            h.roce.send(c[i], 64 * MIB, i);
        }
        h.loop.run(Units.psFromMs(1));
        long total = 0;
        for (int i = 0; i < 4; i++) {
            total += h.roce.receivedBytes(c[i]);
        }
        for (int i = 0; i < 4; i++) {
            long r = h.roce.receivedBytes(c[i]);
            assertTrue(Math.abs(r - total / 4) <= 2 * 4096, "share of conn " + i + ": " + r + " of " + total);
        }
        double gbps = total * 8.0 / 1e-3 / GBPS;
        assertTrue(gbps > 90, "the NIC stays busy: " + gbps);
    }

    @Test
    void ackCoalescingStillCompletesEveryMessage() {
        RoceHarness h = new RoceHarness(7, smallFabric(), new RoceConfig().ackEvery(8));
        int c = h.roce.connect(2, 7);
        for (int i = 0; i < 5; i++) {
            h.roce.send(c, 3 * 4096 + 17 * i + 1, i); // 4 packets each: fewer than ackEvery
        }
        h.loop.run(Units.psFromMs(10));
        assertEquals(5, h.okCompletions());
        assertEquals(5, h.counter("acks_sent"), "one ACK per message's last packet");
    }

    @Test
    void badInputIsRejectedWithAClearError() {
        RoceHarness h = new RoceHarness(8, smallFabric(), new RoceConfig());
        assertThrows(IllegalArgumentException.class, () -> h.roce.connect(0, 8));
        assertThrows(IllegalArgumentException.class, () -> h.roce.connect(3, 3));
        int c = h.roce.connect(0, 1);
        assertThrows(IllegalArgumentException.class, () -> h.roce.send(c, 0, 1));
        assertThrows(IllegalArgumentException.class, () -> h.roce.send(c + 1, 10, 1));
        RoceConfig bad = new RoceConfig().mtu(0);
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> new RoceHarness(8, smallFabric(), bad));
        assertTrue(e.getMessage().contains("mtu"), e.getMessage());
        assertNotEquals(0, h.roce.name().length());
    }

    @Test
    void thousandsOfQpsAllToAllComplete() {
        FabricConfig fc = new FabricConfig().hosts(64).hostsPerLeaf(8).spines(8).planes(4).bufferBytes(16 * MIB);
        RoceHarness h = new RoceHarness(11, fc, new RoceConfig());
        int[] perPlane = new int[4];
        for (int src = 0; src < 64; src++) {
            for (int k = 1; k < 64; k++) {
                int c = h.roce.connect(src, (src + k) % 64);
                perPlane[h.roce.plane(c)]++;
                h.roce.send(c, 32 << 10, c);
            }
        }
        assertEquals(64 * 63, h.roce.connections());
        long wall = System.nanoTime();
        h.loop.run(Units.psFromMs(100));
        wall = System.nanoTime() - wall;
        System.out.printf("rocev2 all-to-all 64 hosts x 4 planes, %d QPs x 32 KiB: done at %.1f us, %d events,"
                + " %.0f ms wall, per plane %s, %s%n", h.roce.connections(), h.lastCompletionPs() / 1e6,
                h.loop.eventsProcessed(), wall / 1e6, java.util.Arrays.toString(perPlane), h.roce.counters());
        assertEquals(h.roce.connections(), h.okCompletions(), () -> h.roce.counters().toString());
        for (int p = 0; p < 4; p++) {
            assertTrue(perPlane[p] > 64 * 63 / 4 * 0.9, "QPs spread over planes: " + perPlane[p]);
        }
        assertEquals(0, h.counter("internal_errors"));
        assertEquals(0, h.pool.inUse());
    }

    @Test
    void aShortOutageIsRecoveredByTimeoutAndGoBackN() {
        RoceConfig rc = new RoceConfig().rtoPs(Units.psFromUs(100)).retryCount(3);
        RoceHarness h = new RoceHarness(12, smallFabric(), rc);
        int c = h.roce.connect(0, 5);
        h.roce.send(c, 8 * MIB, 1);
        Link up = h.fabric.hostUplink(0, h.roce.plane(c));
        h.at(Units.psFromUs(50), () -> up.setUp(false));
        h.at(Units.psFromUs(200), () -> up.setUp(true)); // back before the 2nd timeout: one retry
        h.loop.run(Units.psFromMs(10));
        Map<String, Long> k = h.roce.counters();
        assertEquals(1, h.okCompletions(), k.toString());
        assertFalse(h.roce.failed(c));
        assertEquals(8 * MIB, h.roce.receivedBytes(c));
        assertEquals(1, k.get("timeouts"), k.toString());
        assertTrue(k.get("retransmits") > 0);
        assertEquals(0, k.get("internal_errors"));
    }

    @Test
    void aWindowLimitsBytesInFlight() {
        long window = 8 * 4096;
        RoceHarness h = new RoceHarness(13, smallFabric(), new RoceConfig().windowBytes(window));
        double gbps = bulk(h, 4);
        // one window per round trip: 8 links of 1 us plus 4 store-and-forward hops of a 4160 B packet
        // (0.33 us each) ~ 9.4 us, so 32 KiB per 9.4 us ~ 28 Gb/s
        System.out.printf("rocev2 bulk with a %d B window: %.2f Gb/s%n", window, gbps);
        assertTrue(gbps > 20 && gbps < 40, "window-limited goodput " + gbps);
        assertEquals(0, h.counter("retransmits"));
    }
}
