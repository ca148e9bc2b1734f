package io.metaroce.core;

import io.metaroce.core.wire.Ecn;
import io.metaroce.core.wire.Opcode;
import org.junit.jupiter.api.Test;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * PATH-14's wake-ups: with a line rate, a delayed ACK falling due while the line is busy is reported for when the line
 * is free (one wake-up, not two), and a QP that received a packet but has nothing to send does not make the driver
 * wake when the line frees.
 */
class LineWakeTest {
    private static final long T0 = 1_000_000;
    /** 1 Gb/s: a datagram of n bytes holds the line 8n ns. */
    private static final long RATE_BPS = 1_000_000_000L;

    private final Arena arena = Arena.ofAuto();
    private final Transmit tx = new Transmit();

    /**
     * B sends one WRITE to A at T0 (its line is busy 8 ns per byte from then) and receives at T0 the first packet of a
     * two-packet WRITE from A; returns the pair; {@code lineFree[0]} is when B's line is free again.
     */
    private EnginePair busyReceiver(long ackDelayNs, long[] lineFree, MemorySegment buf) {
        EngineConfig cfg = new EngineConfig().mtu(1024).paths(1).planes(1).pacingGain(0).txRateBps(RATE_BPS)
                .ackDelayNs(ackDelayNs);
        EnginePair pair = new EnginePair(cfg);
        assertEquals(QueuePair.OK, pair.qb.postWrite(2, pair.dst, 0, 1024, pair.src.address(), pair.src.rkey(),
                QueuePair.SIGNALED));
        int sent = pair.b.pollTransmit(T0, buf, tx);
        assertEquals(Opcode.WRITE, tx.opcode());
        lineFree[0] = T0 + sent * 8_000_000_000L / RATE_BPS;
        // two segments: the first asks for no immediate ACK (ACK-2), so B's ACK of it waits for ackDelay
        assertEquals(QueuePair.OK, pair.qa.postWrite(1, pair.src, 0, 2048, pair.dst.address(), pair.dst.rkey(),
                QueuePair.SIGNALED));
        int n = pair.a.pollTransmit(T0, buf, tx);
        assertEquals(Opcode.WRITE, tx.opcode());
        pair.b.handleDatagram(T0, buf, n, Ecn.ECT0);
        assertEquals(0, pair.b.pollTransmit(T0, buf, tx), "B's line is busy");
        return pair;
    }

    @Test
    void aDelayedAckDueWhileTheLineIsBusyIsReportedForWhenTheLineIsFree() {
        MemorySegment buf = arena.allocate(DatagramSizes.max(new EngineConfig().mtu(1024)) + 64L, 64);
        long[] free = new long[1];
        EnginePair pair = busyReceiver(5_000, free, buf);
        assertTrue(free[0] > T0 + 5_000, "the line is busy past the ACK's deadline");
        assertEquals(free[0], pair.b.pollTimeout(), "not the delayed ACK's deadline, T0 + 5 us");
        pair.b.handleTimeout(free[0]);
        assertTrue(pair.b.pollTransmit(free[0], buf, tx) > 0);
        assertEquals(Opcode.ACK, tx.opcode());
    }

    @Test
    void aQpWithNothingToSendWaitsForItsAckNotForTheLine() {
        MemorySegment buf = arena.allocate(DatagramSizes.max(new EngineConfig().mtu(1024)) + 64L, 64);
        long[] free = new long[1];
        EnginePair pair = busyReceiver(50_000, free, buf);
        assertTrue(free[0] < T0 + 50_000);
        assertEquals(T0 + 50_000, pair.b.pollTimeout(), "not when the line frees: a poll then would send nothing");
        pair.b.handleTimeout(T0 + 50_000);
        assertTrue(pair.b.pollTransmit(T0 + 50_000, buf, tx) > 0);
        assertEquals(Opcode.ACK, tx.opcode());
    }
}
