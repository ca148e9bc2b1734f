package io.metaroce.testkit;

import io.metaroce.core.Counter;
import io.metaroce.core.Counters;
import io.metaroce.core.EngineConfig;
import io.metaroce.core.WcStatus;
import io.metaroce.core.wire.AckHold;
import io.metaroce.core.wire.BaseHeader;
import io.metaroce.core.wire.Opcode;
import org.junit.jupiter.api.Test;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * ACK-12 and RTO-10 on virtual time: a receiver whose engine is not driven for 8 ms now and then (a descheduled
 * I/O thread on a shared host) holds its ACKs past the sender's 5 ms minimum RTO. It reports how long it held
 * them; a sender that takes the reports into account stops timing out after the first stall, one that ignores
 * them (as before RTO-10) times out, and retransmits, in every stall.
 */
class AckHoldTest {
    private static final long US = 1_000L;
    private static final long MS = 1_000_000L;
    private static final int STALLS = 8;
    private static final long FIRST_STALL_NS = 20 * MS;
    private static final long STALL_EVERY_NS = 40 * MS;
    private static final long STALL_NS = 8 * MS;
    private static final int MESSAGE = 64 << 10;
    private static final int OUTSTANDING = 16;

    /** What one run measured. */
    private record Run(Counters sender, long timeoutsAfterFirstStall, long longestHoldNs, long maxSrttNs) {
    }

    /** The real datapath's timers (net's realNetworkDefaults), with reported hold times used or ignored. */
    private static EngineConfig config(boolean useHolds) {
        return new EngineConfig().mtu(8192).paths(4).planes(1).minRtoNs(5 * MS).initialRtoNs(10 * MS)
                .maxRtoNs(200 * MS).ackDelayNs(20 * US).probeIntervalNs(5 * MS).failAfterTimeouts(3)
                .maxWindowPackets(64).ackBundle(true).ackHoldWindowNs(useHolds ? 2_000 * MS : 0);
    }

    private static Run run(boolean useHolds) {
        Network net = new Network(11, 2, config(useHolds), 10_000_000_000L, 5 * US, 8 << 20, 8 << 20);
        Endpoint a = new Endpoint(net, 0, OUTSTANDING * MESSAGE);
        Endpoint b = new Endpoint(net, 1, OUTSTANDING * MESSAGE);
        a.fillRandom(3);
        Endpoint.connect(net, a, b);
        for (int k = 0; k < STALLS; k++) {
            net.stall(1, FIRST_STALL_NS + k * STALL_EVERY_NS, STALL_NS);
        }
        long[] longest = {0};
        net.setObserver((now, d) -> {
            if (d.dst() == 0 && (d.opcode() == Opcode.ACK || d.opcode() == Opcode.ACK_BUNDLE)) {
                assertTrue((d.flags() & BaseHeader.FLAG_ACK_HOLD) != 0, "an ACK without hold times");
                int held = MemorySegment.ofArray(d.bytes()).get(ValueLayout.JAVA_INT_UNALIGNED
                        .withOrder(java.nio.ByteOrder.BIG_ENDIAN), BaseHeader.PSN_FLOOR);
                longest[0] = Math.max(longest[0], AckHold.longestNs(held));
            }
        });
        long end = FIRST_STALL_NS + STALLS * STALL_EVERY_NS;
        long posted = 0;
        long afterFirst = -1;
        long maxSrtt = 0;
        while (net.nowNs() < end) {
            posted = a.keepWriting(b, posted, OUTSTANDING, MESSAGE);
            net.runFor(100 * US);
            for (int i = 0; i < 4; i++) {
                maxSrtt = Math.max(maxSrtt, a.qp.path(i).srttNs());
            }
            if (afterFirst < 0 && net.nowNs() >= FIRST_STALL_NS + STALL_EVERY_NS / 2) {
                afterFirst = a.engine.counters().get(Counter.TIMEOUTS);
            }
        }
        long last = posted;
        assertTrue(net.runUntil(() -> a.sendDone() == last, end + 1_000 * MS), "transfer did not finish");
        assertTrue(a.sendStatuses.stream().allMatch(s -> s == WcStatus.SUCCESS), a.sendStatuses.toString());
        assertEquals(-1, a.src.segment().mismatch(b.dst.segment()), "sink differs from source");
        assertEquals(0, a.engine.internalErrors() + b.engine.internalErrors());
        Counters c = a.engine.counters();
        return new Run(c, c.get(Counter.TIMEOUTS) - afterFirst, longest[0], maxSrtt);
    }

    @Test
    void aPeersReportedHoldKeepsItsStallsFromTimingOut() {
        Run ignored = run(false);
        Run used = run(true);
        String figures = "ignored: " + ignored.sender.get(Counter.TIMEOUTS) + " RTOs, "
                + ignored.sender.get(Counter.RETRANSMITS) + " retransmits of "
                + ignored.sender.get(Counter.TX_DATA_PACKETS) + "; used: " + used.sender.get(Counter.TIMEOUTS)
                + " RTOs, " + used.sender.get(Counter.RETRANSMITS) + " retransmits of "
                + used.sender.get(Counter.TX_DATA_PACKETS);
        // the receiver says how long it held what it acknowledges: the stall, to within its ACK delay
        assertTrue(used.longestHoldNs >= STALL_NS - 100 * US && used.longestHoldNs <= STALL_NS + 100 * US,
                "longest reported hold " + used.longestHoldNs + " ns");
        // ignoring it, every stall times out (the harness shows the problem)
        assertTrue(ignored.timeoutsAfterFirstStall >= STALLS - 1, figures);
        // using it, only the first stall (before any report) may; none of the later ones does
        assertEquals(0, used.timeoutsAfterFirstStall, figures);
        assertTrue(used.sender.get(Counter.TIMEOUTS) <= 4, figures); // the first stall: one per path at most
        assertTrue(used.sender.get(Counter.RETRANSMITS) * 7 < ignored.sender.get(Counter.RETRANSMITS), figures);
        System.out.println("AckHoldTest: " + figures + "; largest srtt " + ignored.maxSrttNs + " -> "
                + used.maxSrttNs + " ns");
    }
}
