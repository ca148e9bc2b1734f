package io.metaroce.testkit;

import io.metaroce.core.Counter;
import io.metaroce.core.EngineConfig;
import io.metaroce.core.QueuePair;
import io.metaroce.core.WcStatus;
import io.metaroce.core.auth.AuthKeys;
import io.metaroce.core.wire.BaseHeader;
import io.metaroce.core.wire.Opcode;
import io.metaroce.core.wire.Packet;
import org.junit.jupiter.api.Test;

import java.lang.foreign.MemorySegment;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Locale;
import java.util.function.Predicate;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * REL-18 on the harness: a message's tail PARITY lets the receiver rebuild one lost segment of the tail from the
 * others, so the message completes at the receiver about when it would have without the loss, instead of a round
 * trip (or a tail probe) later. Every run verifies every byte.
 */
class TailParityTest {
    private static final int MTU = 1024;
    private static final int SEGMENTS = 8;
    private static final int BYTES = SEGMENTS * MTU;
    private static final byte[] PSK = "a pre-shared key of 32 bytes!!!!".getBytes(StandardCharsets.US_ASCII);

    private record Run(long recvDoneNs, long rebuilt, long unused, long paritySent) {
    }

    /** First transmission of segment {@code seg} of a data message (a resend carries RETRANSMIT). */
    private static Predicate<Network.Datagram> firstCopyOf(int seg) {
        return OneTailMessage.firstCopyOf(seg, MTU);
    }

    @Test
    void aLostLastSegmentIsRebuiltWithoutWaitingForItsResend() {
        Run lossless = run(8, d -> false);
        Run plain = run(0, firstCopyOf(SEGMENTS - 1));
        Run parity = run(8, firstCopyOf(SEGMENTS - 1));
        System.out.printf(Locale.ROOT, "%d x %d B WRITE_IMM, last segment lost once: receive completes at %.2f us "
                        + "without parity, %.2f us with (%.2f us lossless)%n", SEGMENTS, MTU, plain.recvDoneNs / 1e3,
                parity.recvDoneNs / 1e3, lossless.recvDoneNs / 1e3);
        assertEquals(1, parity.rebuilt, "the receiver rebuilt the lost segment");
        assertEquals(1, parity.paritySent);
        assertEquals(0, plain.rebuilt);
        assertTrue(parity.recvDoneNs < plain.recvDoneNs, "the parity completes the message sooner than the resend");
        // the PARITY is one more packet behind the last segment: the message completes one packet time later than
        // it would have lossless, not a round trip
        assertTrue(parity.recvDoneNs <= lossless.recvDoneNs + 2_000, "rebuilt about when the segment was due");
    }

    @Test
    void anEncryptedParityRebuildsTheSegmentOfAnEncryptedConnection() {
        // AUTH-5: the PARITY's payload is sealed and encrypted like a data packet's; the receiver rebuilds from the
        // plaintext it placed
        Run r = run(8, firstCopyOf(SEGMENTS - 1), 0, d -> false, true);
        assertEquals(1, r.rebuilt);
    }

    @Test
    void aParityThatOvertakesItsGroupIsHeldUntilTheGroupIsOneShort() {
        // segments 5 and 7 arrive late (after the parity) and segment 6 is lost: the parity is held, and when 5 and
        // 7 arrive the group is one short and 6 is rebuilt
        Run r = run(4, firstCopyOf(6), 20_000, d -> Opcode.isData(d.opcode()) && (OneTailMessage.offset(d) == 5 * MTU
                || OneTailMessage.offset(d) == 7 * MTU) && (d.flags() & BaseHeader.FLAG_RETRANSMIT) == 0);
        assertEquals(1, r.rebuilt, "the held parity rebuilt segment 6");
        assertEquals(0, r.unused);
    }

    @Test
    void withTwoOfTheTailLostTheFirstResendLetsTheHeldParityRebuildTheOther() {
        Predicate<Network.Datagram> both = firstCopyOf(6).or(firstCopyOf(7));
        Run plain = run(0, both);
        Run parity = run(8, both);
        assertEquals(1, parity.rebuilt, "held while two were missing, it rebuilt the second once the first came again");
        assertEquals(0, parity.unused);
        assertTrue(parity.recvDoneNs <= plain.recvDoneNs, "never later than without parity");
    }

    @Test
    void aMessageOfManyParityGroupsIsVerifiedAtTwoPercentLoss() {
        Endpoint[] ends = messages(new EngineConfig().paths(8).planes(2).mtu(MTU).parityTailSegments(4), 0.02);
        assertTrue(ends[1].engine.counters().get(Counter.PARITY_REBUILT) > 0, "some lost segments were rebuilt");
    }

    @Test
    void afterLossOnlyALossyNetworkCarriesParity() {
        // parityAfterLossNs: a PARITY only while a loss to the peer was declared within 200 us
        EngineConfig cfg = new EngineConfig().paths(8).planes(2).mtu(MTU).parityTailSegments(4)
                .parityAfterLossNs(200_000);
        Endpoint[] lossless = messages(cfg, 0);
        assertEquals(0, lossless[0].engine.counters().get(Counter.PARITY_SENT), "nothing lost, no parity");
        Endpoint[] lossy = messages(cfg, 0.02);
        assertTrue(lossy[0].engine.counters().get(Counter.PARITY_SENT) > 0, "losses turn parity on");
        assertTrue(lossy[1].engine.counters().get(Counter.PARITY_REBUILT) > 0, "and it rebuilds segments");
    }

    /** 200 WRITE_IMMs of 1 to 8 segments at {@code loss}, every byte verified; returns sender and receiver. */
    static Endpoint[] messages(EngineConfig cfg, double loss) {
        Network net = Network.datacenter(5, 2, cfg);
        net.setLoss(loss);
        int messages = 200;
        Endpoint a = new Endpoint(net, 0, (long) messages * BYTES);
        Endpoint b = new Endpoint(net, 1, (long) messages * BYTES);
        Endpoint.connect(net, a, b);
        a.fillRandom(17);
        for (int i = 0; i < messages; i++) {
            assertEquals(QueuePair.OK, b.qp.postRecv(i, b.src, 0, 0));
            int len = MTU * (1 + i % SEGMENTS) - (i % 3) * 100; // 1 to 8 segments, short last segments too
            assertEquals(QueuePair.OK, a.qp.postWriteImm(i, a.src, (long) i * BYTES, len,
                    b.dst.address() + (long) i * BYTES, b.dst.rkey(), i, QueuePair.SIGNALED));
        }
        assertTrue(net.runUntil(() -> a.sendDone() == messages && b.recvDone() == messages, 2_000_000_000L),
                () -> a.engine.counters() + "\n" + b.engine.counters());
        for (int i = 0; i < messages; i++) {
            int len = MTU * (1 + i % SEGMENTS) - (i % 3) * 100;
            assertEquals(WcStatus.SUCCESS, a.sendStatuses.get(i));
            assertEquals(-1L, a.src.segment().asSlice((long) i * BYTES, len)
                    .mismatch(b.dst.segment().asSlice((long) i * BYTES, len)), "message " + i + " intact");
        }
        assertEquals(0, a.engine.internalErrors() + b.engine.internalErrors());
        return new Endpoint[] {a, b};
    }

    @Test
    void aTrimmedParityIsCountedUnusedNotBadInput() {
        EngineConfig cfg = new EngineConfig().paths(4).planes(1).mtu(MTU).parityTailSegments(8);
        Network net = Network.datacenter(3, 2, cfg);
        byte[][] parity = new byte[1][];
        net.setObserver((now, d) -> {
            if (d.opcode() == Opcode.PARITY) {
                parity[0] = d.bytes();
            }
        });
        Endpoint a = new Endpoint(net, 0, BYTES);
        Endpoint b = new Endpoint(net, 1, BYTES);
        Endpoint.connect(net, a, b);
        assertEquals(QueuePair.OK, a.qp.postWrite(1, a.src, 0, BYTES, b.dst.address(), b.dst.rkey(),
                QueuePair.SIGNALED));
        assertTrue(net.runUntil(() -> a.sendDone() == 1, 100_000_000L));
        assertTrue(parity[0] != null, "a PARITY was sent");
        long unused = b.engine.counters().get(Counter.PARITY_UNUSED);
        MemorySegment headers = MemorySegment.ofArray(Arrays.copyOf(parity[0], Packet.TRIMMED_LENGTH));
        b.engine.handleTrimmed(net.nowNs(), headers, Packet.TRIMMED_LENGTH);
        assertEquals(unused + 1, b.engine.counters().get(Counter.PARITY_UNUSED));
        assertEquals(0, b.engine.counters().get(Counter.DROP_BAD_OPCODE));
        assertEquals(0, b.engine.counters().get(Counter.RX_TRIMMED), "nothing to NAK: a PARITY has no PSN");
    }

    private static Run run(int tail, Predicate<Network.Datagram> drop) {
        return run(tail, drop, 0, d -> false, false);
    }

    private static Run run(int tail, Predicate<Network.Datagram> drop, long delayNs,
                           Predicate<Network.Datagram> delayed) {
        return run(tail, drop, delayNs, delayed, false);
    }

    private static Run run(int tail, Predicate<Network.Datagram> drop, long delayNs,
                           Predicate<Network.Datagram> delayed, boolean encrypt) {
        EngineConfig cfg = new EngineConfig().paths(4).planes(1).mtu(MTU).parityTailSegments(tail);
        Network net = Network.datacenter(3, 2, cfg);
        net.setDropRule(drop::test);
        net.setDelayRule((now, d) -> delayed.test(d) ? delayNs : 0);
        Endpoint a = new Endpoint(net, 0, BYTES);
        Endpoint b = new Endpoint(net, 1, BYTES);
        if (encrypt) {
            a.qp.enableAuth(AuthKeys.derive(PSK, 0x1122L, a.qp.qpn(), b.qp.qpn(), 1000, 5001, true, true));
            b.qp.enableAuth(AuthKeys.derive(PSK, 0x1122L, a.qp.qpn(), b.qp.qpn(), 1000, 5001, false, true));
        }
        Endpoint.connect(net, a, b);
        a.fillRandom(11);
        assertEquals(QueuePair.OK, b.qp.postRecv(5, b.src, 0, 0));
        assertEquals(QueuePair.OK, a.qp.postWriteImm(1, a.src, 0, BYTES, b.dst.address(), b.dst.rkey(), 42,
                QueuePair.SIGNALED));
        assertTrue(net.runUntil(() -> b.recvDone() == 1, 100_000_000L), () -> b.engine.counters().toString());
        long recvNs = net.nowNs();
        assertTrue(net.runUntil(() -> a.sendDone() == 1, 1_000_000_000L), () -> a.engine.counters().toString());
        net.runFor(1_000_000L); // late copies and parities land
        assertEquals(WcStatus.SUCCESS, a.sendStatuses.getFirst());
        assertEquals(WcStatus.SUCCESS, b.recvStatuses.getFirst());
        assertEquals(-1L, a.src.segment().mismatch(b.dst.segment()), "the message arrived intact");
        assertEquals(0, a.engine.internalErrors() + b.engine.internalErrors());
        return new Run(recvNs, b.engine.counters().get(Counter.PARITY_REBUILT),
                b.engine.counters().get(Counter.PARITY_UNUSED), a.engine.counters().get(Counter.PARITY_SENT));
    }
}
