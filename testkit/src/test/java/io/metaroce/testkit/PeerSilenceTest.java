package io.metaroce.testkit;

import io.metaroce.core.Counter;
import io.metaroce.core.Counters;
import io.metaroce.core.EngineConfig;
import io.metaroce.core.WcStatus;
import org.junit.jupiter.api.Test;

import java.util.function.Consumer;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * RTO-11 on virtual time, with the real datapath's timers: a timeout waits while nothing at all comes from the peer,
 * up to {@code peerSilenceGraceNs} after the packet left. A receiver that is not driven for a while (a descheduled
 * agent, a collection) then costs no timeout even the first time, and before any hold time was reported (RTO-10);
 * a peer silent for longer times out when the grace ends; a failed path, whose peer keeps answering on the other
 * paths, times out exactly as without RTO-11.
 */
class PeerSilenceTest {
    private static final long US = 1_000L;
    private static final long MS = 1_000_000L;
    private static final long GRACE_NS = 100 * MS;
    private static final int MESSAGE = 64 << 10;
    private static final int OUTSTANDING = 16;

    /** What one run measured: the sender's counters and when its first timeout fired (-1: none did). */
    private record Run(Counters sender, long firstTimeoutNs) {
    }

    /** net's realNetworkDefaults timers (REL-16's missing NAKs off too), RTO-10 on, RTO-11 with {@code graceNs}. */
    private static EngineConfig config(long graceNs) {
        return new EngineConfig().mtu(8192).paths(4).planes(1).minRtoNs(5 * MS).initialRtoNs(10 * MS)
                .maxRtoNs(200 * MS).ackDelayNs(20 * US).probeIntervalNs(5 * MS).failAfterTimeouts(3)
                .maxWindowPackets(64).ackBundle(true).ackHoldWindowNs(2_000 * MS).missingNak(false)
                .peerSilenceGraceNs(graceNs);
    }

    /** Writes of 64 KiB, 16 outstanding, for {@code durationNs} with {@code faults} set up; data checked after. */
    private static Run run(long graceNs, Consumer<Network> faults, long durationNs) {
        Network net = new Network(5, 2, config(graceNs), 10_000_000_000L, 5 * US, 8 << 20, 8 << 20);
        Endpoint a = new Endpoint(net, 0, OUTSTANDING * MESSAGE);
        Endpoint b = new Endpoint(net, 1, OUTSTANDING * MESSAGE);
        a.fillRandom(7);
        Endpoint.connect(net, a, b);
        faults.accept(net);
        long posted = 0;
        long firstTimeout = -1;
        while (net.nowNs() < durationNs) {
            posted = a.keepWriting(b, posted, OUTSTANDING, MESSAGE);
            net.runFor(100 * US);
            if (firstTimeout < 0 && a.engine.counters().get(Counter.TIMEOUTS) > 0) {
                firstTimeout = net.nowNs();
            }
        }
        long last = posted;
        assertTrue(net.runUntil(() -> a.sendDone() == last, durationNs + 2_000 * MS), "transfer did not finish");
        assertTrue(a.sendStatuses.stream().allMatch(s -> s == WcStatus.SUCCESS), a.sendStatuses.toString());
        assertEquals(-1, a.src.segment().mismatch(b.dst.segment()), "sink differs from source");
        assertEquals(0, a.engine.internalErrors() + b.engine.internalErrors());
        return new Run(a.engine.counters(), firstTimeout);
    }

    private static String figures(Run r) {
        Counters c = r.sender;
        return c.get(Counter.TIMEOUTS) + " timeouts (first at " + r.firstTimeoutNs / 1e6 + " ms), "
                + c.get(Counter.RTO_DEFERRED) + " deferred, " + c.get(Counter.RETRANSMITS) + " retransmits, "
                + c.get(Counter.PATH_FAILOVERS) + " failovers";
    }

    @Test
    void aPeerStalledForLessThanTheGraceCostsNoTimeout() {
        Consumer<Network> stalls = net -> {
            net.stall(1, 20 * MS, 8 * MS);
            net.stall(1, 60 * MS, 8 * MS);
            net.stall(1, 100 * MS, 40 * MS); // longer than any hold reported before it
        };
        Run without = run(0, stalls, 200 * MS);
        Run with = run(GRACE_NS, stalls, 200 * MS);
        assertTrue(without.sender.get(Counter.TIMEOUTS) >= 2, "without: " + figures(without)); // the first and the long stall
        assertEquals(0, with.sender.get(Counter.TIMEOUTS), "with: " + figures(with));
        assertEquals(0, with.sender.get(Counter.RETRANSMITS), "with: " + figures(with));
        assertTrue(with.sender.get(Counter.RTO_DEFERRED) > 0, "with: " + figures(with));
        System.out.println("PeerSilenceTest stalls: without RTO-11 " + figures(without) + "; with " + figures(with));
    }

    @Test
    void aPeerThatDrainsItsBacklogOnePathAtATimeCostsNoTimeout() {
        // after each stall the receiver acknowledges path 0's backlog first and path 3's last, 20 us apart: the
        // first ACKs acknowledge packets sent after the other paths' oldest ones, which are not lost but still queued
        Consumer<Network> stalls = net -> {
            net.stallDrainingByPath(1, 20 * MS, 12 * MS, 20 * US);
            net.stallDrainingByPath(1, 60 * MS, 40 * MS, 20 * US);
        };
        Run without = run(0, stalls, 150 * MS);
        Run with = run(GRACE_NS, stalls, 150 * MS);
        assertTrue(without.sender.get(Counter.TIMEOUTS) >= 2, "without: " + figures(without));
        assertEquals(0, with.sender.get(Counter.TIMEOUTS), "with: " + figures(with));
        assertEquals(0, with.sender.get(Counter.RETRANSMITS), "with: " + figures(with));
        System.out.println("PeerSilenceTest drain by path: without RTO-11 " + figures(without) + "; with "
                + figures(with));
    }

    @Test
    void aPeerSilentForLongerTimesOutWhenTheGraceEnds() {
        Consumer<Network> outage = net -> net.stall(1, 20 * MS, 400 * MS);
        Run without = run(0, outage, 500 * MS);
        Run with = run(GRACE_NS, outage, 500 * MS);
        // the oldest packet in flight left just before the stall began: its timeout waits out the grace, no more
        assertTrue(without.firstTimeoutNs >= 20 * MS && without.firstTimeoutNs < 40 * MS, "without: " + figures(without));
        assertTrue(with.firstTimeoutNs >= 115 * MS && with.firstTimeoutNs <= 121 * MS, "with: " + figures(with));
        assertTrue(with.sender.get(Counter.RTO_DEFERRED) > 0, "with: " + figures(with));
        System.out.println("PeerSilenceTest outage: without RTO-11 " + figures(without) + "; with " + figures(with));
    }

    @Test
    void aFailedPathTimesOutAsBeforeWhileThePeerAnswersOnTheOthers() {
        Consumer<Network> cut = net -> net.at(20 * MS, () -> net.setPathUp(2, false));
        Run without = run(0, cut, 120 * MS);
        Run with = run(GRACE_NS, cut, 120 * MS);
        assertTrue(without.firstTimeoutNs > 0, "without: " + figures(without));
        assertEquals(without.firstTimeoutNs, with.firstTimeoutNs, "with: " + figures(with) + "; without: "
                + figures(without));
        assertEquals(without.sender.get(Counter.PATH_FAILOVERS), with.sender.get(Counter.PATH_FAILOVERS));
        assertTrue(with.sender.get(Counter.PATH_FAILOVERS) >= 1, "with: " + figures(with));
        assertEquals(0, with.sender.get(Counter.RTO_DEFERRED), "with: " + figures(with));
        System.out.println("PeerSilenceTest failed path: without RTO-11 " + figures(without) + "; with " + figures(with));
    }
}
