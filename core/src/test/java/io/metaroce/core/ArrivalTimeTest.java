package io.metaroce.core;

import io.metaroce.core.wire.Ecn;
import io.metaroce.core.wire.Opcode;
import org.junit.jupiter.api.Test;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** handleDatagram with an arrival time: a datagram that waited in a backlog is processed as of its arrival. */
class ArrivalTimeTest {
    private static final long T0 = 1_000_000;

    /** The srtt of A's path 0 after one WRITE whose ACK arrived 20 us after it was sent and was handled later. */
    private static long srttAfter(long handledNs, long arrivalNs) {
        EnginePair pair = new EnginePair(new EngineConfig().mtu(1024).paths(1).planes(1).pacingGain(0));
        Engine a = pair.a;
        Engine b = pair.b;
        QueuePair qa = pair.qa;
        assertEquals(QueuePair.OK, qa.postWrite(1, pair.src, 0, 512, pair.dst.address(), pair.dst.rkey(),
                QueuePair.SIGNALED));
        Arena arena = Arena.ofAuto();
        MemorySegment buf = arena.allocate(a.maxDatagramLength(), 64);
        Transmit tx = new Transmit();
        int n = a.pollTransmit(T0, buf, tx);
        assertEquals(Opcode.WRITE, tx.opcode());
        b.handleDatagram(T0 + 10_000, buf, n, Ecn.ECT0);
        n = b.pollTransmit(T0 + 10_000, buf, tx);
        assertEquals(Opcode.ACK, tx.opcode());
        a.handleDatagram(handledNs, arrivalNs, buf, n, Ecn.ECT0);
        assertEquals(1, a.counters().get(Counter.RX_ACKS));
        assertTrue(pair.cqa.poll(new WorkCompletion()), "the WRITE completed");
        return qa.path(0).srttNs();
    }

    @Test
    void theRttSampleCountsFromTheArrivalNotFromTheHandling() {
        assertEquals(20_000, srttAfter(T0 + 20_000, T0 + 20_000)); // handled on arrival
        // waited 5 ms in the socket (the driver was not scheduled): the sample is still 20 us
        assertEquals(20_000, srttAfter(T0 + 5_020_000, T0 + 20_000));
        // without an arrival time, the wait is taken for network delay
        assertEquals(5_020_000, srttAfter(T0 + 5_020_000, T0 + 5_020_000));
    }

    @Test
    void anArrivalOutsideTheEnginesTimeIsClamped() {
        // after "now": handled at now
        assertEquals(20_000, srttAfter(T0 + 20_000, T0 + 90_000));
        // before the engine's last call (B's transmit at T0 + 10 us happened on another engine; A last saw T0):
        // an arrival before T0 is moved up to T0, so no negative RTT
        long s = srttAfter(T0 + 20_000, T0 - 50_000);
        assertTrue(s >= 0 && s <= 20_000, "srtt " + s);
    }
}
