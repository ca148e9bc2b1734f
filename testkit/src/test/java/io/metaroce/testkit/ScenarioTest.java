package io.metaroce.testkit;

import io.metaroce.core.Counter;
import io.metaroce.core.Counters;
import io.metaroce.core.EngineConfig;
import io.metaroce.core.Path;
import io.metaroce.core.PathState;
import io.metaroce.core.QueuePair;
import io.metaroce.core.WcStatus;
import org.junit.jupiter.api.Tag;
import io.metaroce.core.wire.BaseHeader;
import io.metaroce.core.wire.Opcode;
import org.junit.jupiter.api.Test;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The required protocol scenarios of the engine issue, each driven through the deterministic harness. */
@Tag("slow")
class ScenarioTest {
    private static final int MIB = 1 << 20;

    /** Writes {@code total} bytes as {@code chunks} signaled WRITEs and checks data and completions. */
    private static void bulkWrite(Network net, Endpoint a, Endpoint b, long total, int chunks, long limitNs) {
        a.fillRandom(42);
        int chunk = (int) (total / chunks);
        for (int i = 0; i < chunks; i++) {
            assertEquals(QueuePair.OK, a.qp.postWrite(i, a.src, (long) i * chunk, chunk,
                    b.dst.address() + (long) i * chunk, b.dst.rkey(), QueuePair.SIGNALED));
        }
        assertTrue(net.runUntil(() -> a.sendDone() == chunks, limitNs),
                () -> "not done by " + net.nowNs() + " ns: " + a.sendDone() + "/" + chunks + " " + a.engine.counters());
        List<Long> expected = new ArrayList<>();
        for (long i = 0; i < chunks; i++) {
            expected.add(i);
        }
        assertEquals(expected, a.sendWrIds, "every completion once and in posting order");
        assertTrue(a.sendStatuses.stream().allMatch(s -> s == WcStatus.SUCCESS), a.sendCompletions::toString);
        assertEquals(-1L, a.src.segment().asSlice(0, total).mismatch(b.dst.segment().asSlice(0, total)),
                "every byte placed correctly");
        assertEquals(0, a.engine.internalErrors());
        assertEquals(0, b.engine.internalErrors());
        assertEquals(0, b.engine.counters().get(Counter.DUPLICATE_PLACEMENTS));
    }

    private static EngineConfig fabricConfig() {
        return new EngineConfig().paths(16).planes(4).mtu(4096);
    }

    @Test
    void write64MiBOver16PathsWithOnePercentLossRetransmitsOnlyLostPackets() {
        Network net = Network.datacenter(11, 2, fabricConfig());
        net.setLoss(0.01);
        Endpoint a = new Endpoint(net, 0, 64L * MIB);
        Endpoint b = new Endpoint(net, 1, 64L * MIB);
        Endpoint.connect(net, a, b);
        bulkWrite(net, a, b, 64L * MIB, 64, 1_000_000_000L);
        long retx = a.engine.counters().get(Counter.RETRANSMITS);
        long dropped = net.droppedData();
        System.out.printf(Locale.ROOT, "1%% loss: dropped data %d, retransmitted %d (%.2fx), time %.3f ms%n",
                dropped, retx, (double) retx / dropped, net.nowNs() / 1e6);
        assertTrue(dropped > 100, "the loss really happened");
        assertTrue(retx <= 1.5 * dropped, "retransmits " + retx + " within 1.5x dropped " + dropped);
        assertTrue(retx >= dropped * 0.9, "every lost packet was resent");
    }

    @Test
    void write64MiBAtTenPercentLossCompletesWithCorrectData() {
        Network net = Network.datacenter(12, 2, fabricConfig());
        net.setLoss(0.10);
        Endpoint a = new Endpoint(net, 0, 64L * MIB);
        Endpoint b = new Endpoint(net, 1, 64L * MIB);
        Endpoint.connect(net, a, b);
        bulkWrite(net, a, b, 64L * MIB, 64, 5_000_000_000L);
        System.out.printf(Locale.ROOT, "10%% loss: dropped data %d, retransmitted %d, time %.3f ms%n",
                net.droppedData(), a.engine.counters().get(Counter.RETRANSMITS), net.nowNs() / 1e6);
    }

    @Test
    void planeDownMidTransferMovesTrafficAndFailedPathsRejoinAfterRestore() {
        // 25 Gb/s planes so that the 64 MiB transfer lasts long enough to fail and restore a plane inside it.
        Network net = new Network(13, 2, fabricConfig(), 25_000_000_000L, 1_000, 1 << 20, 100 << 10);
        Endpoint a = new Endpoint(net, 0, 64L * MIB);
        Endpoint b = new Endpoint(net, 1, 64L * MIB);
        Endpoint.connect(net, a, b);
        long[] perPlaneAfterRestore = new long[4];
        long[] perPlaneWhileDown = new long[4];
        long downAt = 1_000_000;
        long upAt = 4_000_000;
        net.setObserver((now, d) -> {
            if (d.isData() && d.dst() == 1) {
                if (now > upAt + 1_000_000) {
                    perPlaneAfterRestore[d.plane()]++;
                } else if (now > downAt + 1_000_000 && now < upAt) {
                    perPlaneWhileDown[d.plane()]++;
                }
            }
        });
        net.at(downAt, () -> net.setPlaneUp(2, false));
        net.at(upAt, () -> net.setPlaneUp(2, true));
        bulkWrite(net, a, b, 64L * MIB, 64, 2_000_000_000L);
        Counters c = a.engine.counters();
        System.out.printf(Locale.ROOT, "plane failure: failovers %d, readmissions %d, done at %.3f ms, "
                        + "per-plane while down %s, after restore %s%n", c.get(Counter.PATH_FAILOVERS),
                c.get(Counter.PATH_READMISSIONS), net.nowNs() / 1e6, java.util.Arrays.toString(perPlaneWhileDown),
                java.util.Arrays.toString(perPlaneAfterRestore));
        assertTrue(net.nowNs() > upAt + 1_000_000, "the transfer outlived the outage");
        assertTrue(c.get(Counter.PATH_FAILOVERS) >= 4, "all four paths of the plane failed");
        assertTrue(c.get(Counter.PATH_READMISSIONS) >= 4, "and were re-admitted after probing");
        assertEquals(0, perPlaneWhileDown[2], "no data crossed the dead plane");
        assertTrue(perPlaneWhileDown[0] > 0 && perPlaneWhileDown[1] > 0 && perPlaneWhileDown[3] > 0);
        assertTrue(perPlaneAfterRestore[2] > 0, "the restored plane carries data again");
        for (int i = 0; i < 16; i++) {
            assertEquals(PathState.ACTIVE, a.qp.path(i).state(), "path " + i);
        }
    }

    @Test
    void sendsWhoseEarlierMessagesAreDelayedLandInTheirOwnBuffersAndCompleteInOrder() {
        Network net = Network.datacenter(14, 2, fabricConfig());
        Endpoint a = new Endpoint(net, 0, MIB);
        Endpoint b = new Endpoint(net, 1, MIB);
        Endpoint.connect(net, a, b);
        a.fillRandom(99);
        int n = 8;
        int slot = 64 * 1024;
        for (int i = 0; i < n; i++) {
            assertEquals(QueuePair.OK, b.qp.postRecv(100 + i, b.dst, (long) i * slot, slot));
        }
        int[] sizes = {20_000, 4096, 1, 0, 65_536, 12_345, 8192, 30_000};
        for (int i = 0; i < n; i++) {
            assertEquals(QueuePair.OK, a.qp.postSend(i, a.src, (long) i * slot, sizes[i], QueuePair.SIGNALED));
        }
        // Hold back message 0: its first transmissions are lost; only the retransmissions get through.
        net.setDropRule(d -> d.opcode() == Opcode.SEND && d.msn() == 0
                && (d.flags() & BaseHeader.FLAG_RETRANSMIT) == 0);
        boolean laterLanded = net.runUntil(() -> {
            for (int i = 1; i < n; i++) {
                if (!same(a.src.segment(), (long) i * slot, b.dst.segment(), (long) i * slot, sizes[i])) {
                    return false;
                }
            }
            return true;
        }, 10_000_000L);
        assertTrue(laterLanded, "messages 1..7 placed while message 0 is missing");
        assertEquals(0, b.recvDone(), "no receive completes before message 0");
        assertTrue(net.runUntil(() -> b.recvDone() == n && a.sendDone() == n, 100_000_000L));
        for (int i = 0; i < n; i++) {
            assertEquals(100L + i, b.recvWrIds.get(i), "receive completions in order");
            assertEquals((long) i, a.sendWrIds.get(i), "send completions in order");
            assertTrue(same(a.src.segment(), (long) i * slot, b.dst.segment(), (long) i * slot, sizes[i]));
        }
        assertTrue(b.recvCompletions.get(3).contains("len=0"), b.recvCompletions.get(3));
    }

    private static boolean same(MemorySegment x, long xo, MemorySegment y, long yo, int len) {
        return len == 0 || x.asSlice(xo, len).mismatch(y.asSlice(yo, len)) == -1;
    }

    @Test
    void incastOf32SendersReachesFairShareWithinTwoRttsOfTheReceiverSeeingAll() {
        int senders = 32;
        long rate = 25_000_000_000L;
        EngineConfig cfg = fabricConfig().mtu(512).initialWindowPackets(4)
                .inboundCapacityBps(4 * rate).activeSenderWindowNs(50_000);
        Network net = new Network(15, senders + 1, cfg, rate, 1_000, 4 << 20, 200 << 10);
        Endpoint rx = new Endpoint(net, senders, 64L * MIB);
        Endpoint[] tx = new Endpoint[senders];
        QueuePair[] rxQps = new QueuePair[senders];
        for (int i = 0; i < senders; i++) {
            tx[i] = new Endpoint(net, i, 2L * MIB);
            rxQps[i] = rx.engine.createQp(rx.pd, rx.scq, rx.rcq);
            net.connect(i, tx[i].qp, senders, rxQps[i], 7 * i, 9 * i);
        }
        long perSender = MIB / 2;
        long binNs = 50_000;
        long[][] bins = new long[senders][4000];
        long[] allSeenAt = {-1};
        long[] rttAtAllSeen = {0};
        net.setObserver((now, d) -> {
            if (d.dst() == senders && d.isData()) {
                bins[d.src()][(int) Math.min(3999, now / binNs)] += d.payloadLength();
                if (allSeenAt[0] < 0 && rx.engine.activeSenderCount() == senders) {
                    allSeenAt[0] = now;
                    for (Endpoint e : tx) {
                        for (int p = 0; p < e.qp.pathCount(); p++) {
                            rttAtAllSeen[0] = Math.max(rttAtAllSeen[0], e.qp.path(p).srttNs());
                        }
                    }
                }
            }
        });
        for (int i = 0; i < senders; i++) {
            final int s = i;
            net.at(s * 1_000L, () -> tx[s].qp.postWrite(1, tx[s].src, 0, (int) perSender,
                    rx.dst.address() + s * perSender, rx.dst.rkey(), QueuePair.SIGNALED));
        }
        assertTrue(net.runUntil(() -> Endpoint.allSendsDone(tx, 1), 1_000_000_000L));
        long rttNs = rttAtAllSeen[0]; // the largest smoothed RTT of any sender's path at that moment
        assertTrue(allSeenAt[0] > 0);
        long firstDone = Long.MAX_VALUE;
        // the first bin in which some sender has finished ends the steady state
        for (int b = 0; b < 4000; b++) {
            for (int s = 0; s < senders; s++) {
                long cum = 0;
                for (int k = 0; k <= b; k++) {
                    cum += bins[s][k];
                }
                if (cum >= perSender && firstDone == Long.MAX_VALUE) {
                    firstDone = b;
                }
            }
        }
        int startBin = (int) ((allSeenAt[0] + 2 * rttNs) / binNs) + 1;
        System.out.printf(Locale.ROOT, "incast: all %d senders seen at %.1f us, srtt %.1f us, bins of %d us, "
                + "checking bins %d..%d%n", senders, allSeenAt[0] / 1e3, rttNs / 1e3, binNs / 1000, startBin, firstDone - 1);
        double worst = 0;
        for (int b = (int) (allSeenAt[0] / binNs); b < firstDone; b++) {
            long total = 0;
            long min = Long.MAX_VALUE;
            long max = 0;
            for (int s = 0; s < senders; s++) {
                total += bins[s][b];
                min = Math.min(min, bins[s][b]);
                max = Math.max(max, bins[s][b]);
            }
            double fair = (double) total / senders;
            double dev = Math.max(max / fair - 1, 1 - min / fair);
            System.out.printf(Locale.ROOT, "  t=%4d us  aggregate %6.1f Gb/s  min/fair %.3f  max/fair %.3f%s%n",
                    b * binNs / 1000, total * 8.0 / binNs, min / fair, max / fair, b >= startBin ? "" : "  (settling)");
            if (b >= startBin) {
                worst = Math.max(worst, dev);
            }
        }
        assertTrue(firstDone - startBin >= 3, "enough steady bins to judge");
        assertTrue(worst <= 0.10, "every sender within 10% of fair share per bin, worst " + worst);
    }

    @Test
    void aTimeoutCausedByDelayedAcksIsRecognisedAsSpuriousAndUndone() {
        // one ACK datagram per path (ACK-1): a bundle would carry path 0's ACKs on the other paths' datagrams
        EngineConfig cfg = fabricConfig().minRtoNs(100_000).initialRtoNs(200_000).ackBundle(false);
        Network net = Network.datacenter(16, 2, cfg);
        Endpoint a = new Endpoint(net, 0, 64L * MIB);
        Endpoint b = new Endpoint(net, 1, 64L * MIB);
        Endpoint.connect(net, a, b);
        // A stalled receiver on path 0: what it sends there between 300 and 700 us is all released at 700 us, in
        // order: longer than the path's RTO although nothing was lost.
        net.setDelayRule((now, d) -> d.src() == 1 && d.pathId() == 0 && now >= 300_000 && now < 700_000
                ? 700_000 - now : 0);
        bulkWrite(net, a, b, 64L * MIB, 64, 1_000_000_000L);
        Path p0 = a.qp.path(0);
        System.out.printf(Locale.ROOT, "delayed ACKs: path 0 timeouts %d, spurious %d, state %s, cwnd %d%n",
                p0.timeouts(), p0.spuriousTimeouts(), p0.state(), p0.cwndBytes());
        assertTrue(p0.timeouts() >= 1, "the held ACKs made the timer fire");
        assertTrue(p0.spuriousTimeouts() >= 1, "and the late ACKs proved it spurious");
        assertEquals(PathState.ACTIVE, p0.state());
        assertEquals(0, p0.readmissions(), "the late ACKs, not probes, brought the path back");
    }
}
