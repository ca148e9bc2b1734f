package io.metaroce.core;

import org.junit.jupiter.api.Test;

import io.metaroce.core.wire.Ecn;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayDeque;
import java.util.SplittableRandom;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@link QpTimers} looks only at the paths in a QP's armed mask, so a path with a timer that is not in the mask would
 * never time out; {@link PathChooser} looks only at the paths its masks leave open and reads the routes' pacing slots
 * and open windows from its peer's arrays, so a stale bit or value would stall a path or send past a window. Two
 * engines move WRITEs over 16 paths through a lossy, reordering wire on virtual time; after every step each path that
 * has anything in flight, to acknowledge or a probe deadline must be in its QP's armed mask, every mask bit and array
 * value must match the path and route it stands for, and the transfer must complete with the right bytes (every loss
 * was found by some timer or SACK).
 */
class ArmedPathsTest {
    private static final int LEN = 192 * 1024;
    private static final int MTU = 1024;

    /** One datagram on the wire: its bytes and when it arrives. */
    private record InFlight(byte[] bytes, long atNs) {
    }

    private static void assertArmed(QueuePair q, int paths, long now) {
        for (int k = 0; k < paths; k++) {
            Path p = q.path(k);
            if (!p.timersIdle()) {
                assertTrue((p.armedMask()[k >>> 6] & (1L << k)) != 0, "path " + k + " of QP " + q.qpn()
                        + " has a timer (inflight " + p.inflightPackets + ", to acknowledge " + p.rxPending
                        + ", probe deadline " + p.probeDeadlineNs + ") but is not armed at " + now + " ns");
            }
        }
    }

    /**
     * The path choice's view of QP {@code q}'s paths and their routes matches them: a path's bit in
     * {@link QpCore#closedPaths} is set exactly when its own state keeps it from taking a packet, a made route's bit in
     * {@link PeerLoad#fullRoutes} exactly when it has no room, and the peer's arrays hold each route's pacing slot and
     * open window.
     */
    private static void assertChoiceMasks(QueuePair q, int paths, long now) {
        for (int k = 0; k < paths; k++) {
            Path p = q.path(k);
            boolean open = (p.state == PathState.ACTIVE || p.state == PathState.SUSPECT && p.inflightPackets == 0)
                    && p.psnWindowOpen();
            boolean closedBit = (p.owner.c.closedPaths[k >>> 6] & (1L << k)) != 0;
            assertEquals(!open, closedBit, "path " + k + " of QP " + q.qpn() + " (" + p.state + ", " + p.inflightPackets
                    + " in flight, PSN window " + (p.nextPsn - p.floor) + ") closed bit at " + now + " ns");
            SharedPath r = p.routeIfMade();
            if (r != null) {
                PeerLoad peer = p.peer;
                boolean fullBit = (peer.fullRoutes[k >>> 6] & (1L << k)) != 0;
                assertEquals(!r.hasRoom(peer.mtu), fullBit, "route " + k + " full bit at " + now + " ns");
                assertEquals(r.cwndBytes - r.inflightBytes, peer.roomBytes[k], "route " + k + " open window");
            }
        }
    }

    /**
     * Sends what {@code from} has into {@code wire}, dropping {@code loss} of it (and everything on plane 1 while
     * {@code plane1Down}) and delaying each by 5-25 us.
     */
    private static void transmit(Engine from, long now, MemorySegment out, Transmit tx, ArrayDeque<InFlight> wire,
                                 SplittableRandom rng, double loss, boolean plane1Down) {
        int n;
        while ((n = from.pollTransmit(now, out, tx)) > 0) {
            if (rng.nextDouble() < loss || plane1Down && tx.plane() == 1) {
                continue;
            }
            wire.add(new InFlight(out.asSlice(0, n).toArray(ValueLayout.JAVA_BYTE), now + 5_000 + rng.nextInt(20_000)));
        }
    }

    /** Hands {@code to} every datagram of {@code wire} that has arrived by {@code now}, in any order. */
    private static void deliver(Engine to, long now, ArrayDeque<InFlight> wire) {
        for (int i = wire.size(); i > 0; i--) {
            InFlight d = wire.poll();
            if (d.atNs() - now <= 0) {
                to.handleDatagram(now, MemorySegment.ofArray(d.bytes()), d.bytes().length, Ecn.ECT0);
            } else {
                wire.add(d);
            }
        }
    }

    /** A transfer of four WRITEs; plane 1 drops everything from {@code downFromNs} for {@code downForNs}. */
    private static Engine transferOverLossyWire(double loss, long seed, long downFromNs, long downForNs) {
        MemorySegment src = Arena.ofAuto().allocate(LEN, 64);
        SplittableRandom fill = new SplittableRandom(seed);
        for (long i = 0; i < LEN; i += 8) {
            src.set(ValueLayout.JAVA_LONG_UNALIGNED, i, fill.nextLong());
        }
        MemorySegment dst = Arena.ofAuto().allocate(LEN, 64);
        EngineConfig cfg = new EngineConfig().mtu(MTU).paths(16).planes(2).minRtoNs(100_000);
        EnginePair ends = new EnginePair(cfg, src, dst);
        int chunk = LEN / 4;
        for (int w = 0; w < 4; w++) {
            assertEquals(QueuePair.OK, ends.qa.postWrite(w, ends.src, (long) w * chunk, chunk,
                    ends.dst.address() + (long) w * chunk, ends.dst.rkey(), QueuePair.SIGNALED));
        }
        MemorySegment out = Arena.ofAuto().allocate(ends.a.maxDatagramLength() + 64L, 64);
        Transmit tx = new Transmit();
        ArrayDeque<InFlight> toB = new ArrayDeque<>();
        ArrayDeque<InFlight> toA = new ArrayDeque<>();
        SplittableRandom rng = new SplittableRandom(seed + 1);
        WorkCompletion wc = new WorkCompletion();
        int done = 0;
        long now = 1_000_000;
        long settledAt = downFromNs + downForNs + 5_000_000; // after an outage, time for probes to re-admit its paths
        for (int step = 0; step < 400_000 && (done < 4 || downForNs > 0 && now - settledAt < 0); step++, now += 1_000) {
            for (Engine e : new Engine[] {ends.a, ends.b}) {
                long d = e.pollTimeout();
                if (d != Engine.NO_DEADLINE && d - now <= 0) {
                    e.handleTimeout(now);
                }
            }
            deliver(ends.b, now, toB);
            deliver(ends.a, now, toA);
            boolean down = now - downFromNs >= 0 && now - downFromNs < downForNs;
            transmit(ends.a, now, out, tx, toB, rng, loss, down);
            transmit(ends.b, now, out, tx, toA, rng, loss, down);
            assertArmed(ends.qa, 16, now);
            assertArmed(ends.qb, 16, now);
            assertChoiceMasks(ends.qa, 16, now);
            assertChoiceMasks(ends.qb, 16, now);
            while (ends.cqa.poll(wc)) {
                assertEquals(WcStatus.SUCCESS, wc.status());
                done++;
            }
        }
        assertEquals(4, done, "every WRITE completes");
        assertEquals(-1, src.mismatch(dst), "the bytes arrived");
        return ends.a;
    }

    @Test
    void everyPathWithATimerIsArmedOnALosslessWire() {
        transferOverLossyWire(0, 1, 0, 0);
    }

    @Test
    void everyPathWithATimerIsArmedWhileLossesAreRecovered() {
        transferOverLossyWire(0.1, 2, 0, 0);
        transferOverLossyWire(0.3, 3, 0, 0);
    }

    @Test
    void everyPathWithATimerIsArmedWhileAPlaneIsDownAndProbed() {
        Engine a = transferOverLossyWire(0.01, 4, 1_020_000, 3_000_000);
        assertTrue(a.counters().get(Counter.PATH_FAILOVERS) > 0, "plane 1's paths failed");
        assertTrue(a.counters().get(Counter.PATH_READMISSIONS) > 0, "and were probed back");
    }
}
