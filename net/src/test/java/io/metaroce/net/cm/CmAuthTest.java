package io.metaroce.net.cm;

import io.metaroce.core.Access;
import io.metaroce.core.Counter;
import io.metaroce.core.Engine;
import io.metaroce.core.MemoryRegion;
import io.metaroce.core.QpState;
import io.metaroce.core.QueuePair;
import io.metaroce.core.Transmit;
import io.metaroce.core.auth.CmAuth;
import io.metaroce.core.wire.CmMessage;
import io.metaroce.core.wire.Opcode;
import org.junit.jupiter.api.Test;

import java.lang.foreign.MemorySegment;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * AUTH-3, AUTH-9: two connection managers negotiate authentication and derive matching keys (data then moves
 * between their engines); a listener with a pre-shared key refuses a peer without one with an unsealed CM_REJ
 * UNSUPPORTED and no state (AUTH-14); an initiator with one drops a keyless listener's unsealed answers and says
 * so when it gives up. AUTH-11 .. AUTH-15: every CM message is sealed and counted; forged CM_DREQs are dropped
 * and the connection goes on; a wrong key never connects; an attempt never followed up is forgotten.
 */
class CmAuthTest {
    private static final byte[] PSK = "0123456789abcdef0123456789abcdef".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] OTHER = "fedcba9876543210fedcba9876543210".getBytes(StandardCharsets.US_ASCII);

    private final CmEndpointTest.Link link = CmEndpointTest.pair(1024, 2, 1024, 2, true);
    private final CmEndpointTest.Side a = link.a;
    private final CmEndpointTest.Side b = link.b;
    private final List<Integer> caps = new ArrayList<>();
    private long cid = 0x1234_5678_9abc_def0L;

    private QueuePair connect() {
        link.drop = d -> {
            int op = d.bytes()[1] & 0xFF;
            if (op == Opcode.CM_REQ || op == Opcode.CM_REP) {
                int planesBytes = (d.bytes()[10] & 0xFF) << 8 | (d.bytes()[11] & 0xFF); // payload length
                // the AUTH-9 bits only (CAP_MISSING_NAK is CmEndpointTest's)
                caps.add(CmMessage.parse(op, MemorySegment.ofArray(d.bytes()), 32, planesBytes).capabilities()
                        & (CmMessage.CAP_AUTH | CmMessage.CAP_ENCRYPT));
            }
            return false;
        };
        QueuePair qa = a.freshQp();
        a.cm.connect(link.now, qa, cid++, 0x700, 2 /* side B */,
                Engine.NO_DEADLINE);
        link.run(2_000_000);
        return qa;
    }

    @Test
    void bothSidesWithTheKeyAuthenticateAndMoveData() {
        a.psk = PSK;
        b.psk = PSK;
        QueuePair qa = connect();
        assertEquals(List.of(CmMessage.CAP_AUTH, CmMessage.CAP_AUTH), caps, "REQ and REP capabilities");
        QueuePair qb = b.accepted.getFirst();
        assertTrue(qa.authenticated() && qb.authenticated());
        assertFalse(qa.encrypted() || qb.encrypted());
        assertEquals(0, moveData(qa, qb).get(Counter.DROP_AUTH));
    }

    @Test
    void encryptionOnlyWhenBothAskForIt() {
        a.psk = PSK;
        b.psk = PSK;
        a.encrypt = true;
        QueuePair qa = connect();
        assertEquals(List.of(CmMessage.CAP_AUTH | CmMessage.CAP_ENCRYPT, CmMessage.CAP_AUTH), caps);
        assertFalse(qa.encrypted());
        b.encrypt = true;
        caps.clear();
        QueuePair qa2 = connect();
        assertEquals(List.of(CmMessage.CAP_AUTH | CmMessage.CAP_ENCRYPT, CmMessage.CAP_AUTH | CmMessage.CAP_ENCRYPT),
                caps);
        assertTrue(qa2.encrypted() && b.accepted.getLast().encrypted());
        assertEquals(0, moveData(qa2, b.accepted.getLast()).get(Counter.DROP_AUTH));
    }

    @Test
    void aListenerWithAKeyRefusesAnUnauthenticatedRequest() {
        b.psk = PSK;
        QueuePair qa = connect();
        assertEquals(List.of(0), caps);
        assertEquals(QpState.ERROR, qa.state());
        assertEquals(1, b.cm.counter(CmCounter.CM_REJECTS_SENT));
        assertTrue(a.failures.getFirst().contains("UNSUPPORTED") || a.failures.getFirst().contains("rejected"),
                a.failures.toString());
        assertTrue(b.accepted.isEmpty());
    }

    @Test
    void anInitiatorWithAKeyDropsAnUnsealedRepAndSaysWhyItFailed() {
        a.psk = PSK;
        QueuePair qa = connect();
        link.run(600_000_000); // CM-4: 8 retries, 1 ms doubling
        // each REQ sealed; the keyless listener's REPs (to each REQ, and again on its REP timer, CM-8) without it
        int reqs = (int) caps.stream().filter(c -> c == CmMessage.CAP_AUTH).count();
        int reps = (int) caps.stream().filter(c -> c == 0).count();
        assertEquals(9, reqs, caps.toString());
        assertEquals(caps.size(), reqs + reps, caps.toString());
        assertEquals(CmMessage.CAP_AUTH, caps.getFirst());
        assertTrue(reps >= 9, caps.toString());
        assertEquals(QpState.ERROR, qa.state());
        assertEquals(1, a.failures.size());
        assertTrue(a.failures.getFirst().contains("without a valid seal") && a.failures.getFirst().contains(
                "--auth-key"), a.failures.getFirst());
        assertEquals(reps, a.cm.counter(CmCounter.CM_DROP_AUTH), "AUTH-13: every unsealed REP dropped");
        assertTrue(a.connected.isEmpty());
    }

    @Test
    void aKeylessListenerReadsASealedRequest() {
        a.psk = PSK;
        connect();
        assertEquals(0, b.cm.counter(CmCounter.CM_DROP_AUTH) + b.cm.counter(CmCounter.CM_DROP_MALFORMED)
                + b.cm.counter(CmCounter.CM_DROP_BAD_LENGTH), "AUTH-16: the trailer is ignored");
        assertEquals(1, b.cm.connectionCount(), "it answered with a REP");
        assertEquals(0, caps.get(1), "CM-13: without CAP_AUTH");
    }

    @Test
    void everyCmMessageIsSealedAndCounted() {
        a.psk = PSK;
        b.psk = PSK;
        List<Long> counters = new ArrayList<>();
        link.drop = d -> {
            MemorySegment seg = MemorySegment.ofArray(d.bytes());
            assertTrue(CmAuth.sealed(seg, d.bytes().length), "AUTH-13: sealed " + Opcode.name(d.bytes()[1] & 0xFF));
            counters.add(CmAuth.counter(seg, d.bytes().length));
            return false;
        };
        QueuePair qa = a.freshQp();
        a.cm.connect(link.now, qa, cid, 0x700, 2, Engine.NO_DEADLINE);
        link.run(2_000_000);
        assertTrue(a.cm.disconnect(link.now, qa));
        link.run(2_000_000);
        // REQ (A 0), REP (B 0), RTU (A 1), DREQ (A 2), DREQ answer (B 1): one counter per sender, from 0
        assertEquals(List.of(0L, 0L, 1L, 2L, 1L), counters);
        assertEquals(List.of("ours answered"), a.disconnects);
    }

    @Test
    void aForgedDisconnectDoesNotEndTheConnection() {
        a.psk = PSK;
        b.psk = PSK;
        QueuePair qa = connect();
        QueuePair qb = b.accepted.getFirst();
        CmMessage dreq = new CmMessage(Opcode.CM_DREQ, cid - 1, qa.qpn(), qb.qpn(), 0, 0, 0, 0, 0, 0, List.of());
        byte[] unsealed = datagram(dreq, null);
        byte[] otherKey = datagram(dreq, new CmAuth(OTHER));
        byte[] badTag = datagram(dreq, new CmAuth(PSK));
        badTag[badTag.length - 4 - 24] ^= 1;
        new io.metaroce.core.wire.Packet().seal(MemorySegment.ofArray(badTag), badTag.length - 4);
        for (byte[] forged : List.of(unsealed, otherKey, badTag)) {
            b.cm.handle(link.now, MemorySegment.ofArray(forged), forged.length, 1);
        }
        link.run(1_000_000);
        assertEquals(3, b.cm.counter(CmCounter.CM_DROP_AUTH));
        assertEquals(QpState.RTS, qb.state(), "AUTH-13: a forged CM_DREQ changes nothing");
        assertTrue(b.disconnects.isEmpty() && a.disconnects.isEmpty());
        assertEquals(0, moveData(qa, qb).get(Counter.DROP_AUTH), "the connection still carries data");
        byte[] sealed = datagram(dreq, new CmAuth(PSK)); // a correctly sealed one (an initiator's real close)
        b.cm.handle(link.now, MemorySegment.ofArray(sealed), sealed.length, 1);
        assertEquals(QpState.ERROR, qb.state());
        assertEquals(List.of("peer answered"), b.disconnects);
    }

    @Test
    void anOversizedForgeryIsADropNotACrash() {
        b.psk = PSK;
        int planes = 200; // more than any CM message carries (16), so longer than the sealer's scratch
        byte[] d = new byte[32 + 32 + 18 * planes + 24 + 4];
        MemorySegment s = MemorySegment.ofArray(d);
        new io.metaroce.core.wire.BaseHeader().wrap(s, 0).version(1).opcode(Opcode.CM_DREQ)
                .flags(io.metaroce.core.wire.BaseHeader.FLAG_AUTH).payloadLength(18 * planes);
        new io.metaroce.core.wire.Packet().seal(s, d.length - 4);
        b.cm.handle(0, s, d.length, 1);
        assertEquals(1, b.cm.counter(CmCounter.CM_DROP_AUTH), b.cm.counters().toString());
    }

    @Test
    void anUnsealedRequestGetsAnUnsealedRejectAndLeavesNoState() {
        b.psk = PSK;
        List<byte[]> answers = new ArrayList<>();
        link.drop = d -> d.to() == 1 && answers.add(d.bytes());
        QueuePair qa = a.freshQp();
        a.cm.connect(link.now, qa, cid, 0x700, 2, Engine.NO_DEADLINE);
        link.run(500_000);
        assertEquals(1, answers.size());
        byte[] rej = answers.getFirst();
        assertEquals(Opcode.CM_REJ, rej[1] & 0xFF);
        assertFalse(CmAuth.sealed(MemorySegment.ofArray(rej), rej.length), "AUTH-14: the refusal is not sealed");
        assertEquals(CmReason.UNSUPPORTED, rej[32 + 31]);
        assertEquals(0, b.cm.connectionCount(), "AUTH-14: nothing remembered");
        assertEquals(1, b.cm.counter(CmCounter.CM_DROP_AUTH));
        assertEquals(1, b.cm.counter(CmCounter.CM_REJECTS_SENT));
    }

    @Test
    void aRequestNeverFollowedUpIsForgottenAfterTimeWait() {
        a.psk = PSK;
        b.psk = PSK;
        link.drop = d -> (d.bytes()[1] & 0xFF) == Opcode.CM_RTU || d.to() == 1; // a replayed REQ: nobody follows up
        QueuePair qa = a.freshQp();
        a.cm.connect(link.now, qa, cid, 0x700, 2, link.now + 1_000_000);
        link.run(2_000_000);
        assertEquals(1, b.cm.connectionCount());
        QueuePair zombie = b.engine.queuePairs().iterator().next();
        assertEquals(QpState.RTR, zombie.state());
        link.run(60_000_000); // TIME_WAIT of the test's settings: 50 ms
        assertEquals(0, b.cm.connectionCount(), "AUTH-15");
        assertEquals(QpState.ERROR, zombie.state());
        assertEquals(1, b.cm.counter(CmCounter.CM_ATTEMPTS_FAILED));
        assertTrue(b.accepted.isEmpty());
        assertEquals(List.of("abandoned"), b.disconnects, "the host is told");
    }

    @Test
    void aResponderClosingAnUnconfirmedAttemptFinishesItsClose() {
        a.psk = PSK;
        b.psk = PSK;
        // B stays in REP_SENT (its RTU is lost), and the answers to its close are lost too
        link.drop = d -> (d.bytes()[1] & 0xFF) == Opcode.CM_RTU || d.to() == 2 && (d.bytes()[1] & 0xFF) == Opcode.CM_DREQ;
        QueuePair qa = a.freshQp();
        a.cm.connect(link.now, qa, cid, 0x700, 2, Engine.NO_DEADLINE);
        link.run(2_000_000);
        QueuePair qb = b.engine.queuePairs().iterator().next();
        assertTrue(b.cm.disconnect(link.now, qb));
        link.run(600_000_000); // past TIME_WAIT (50 ms): the close's retries (CM-10), not AUTH-15's limit, end it
        assertEquals(List.of("ours unanswered"), b.disconnects);
        assertEquals(List.of("peer answered"), a.disconnects);
        assertEquals(0, b.cm.counter(CmCounter.CM_ATTEMPTS_FAILED));
        // its REP once more at 1 ms (CM-8; the RTU that answers it is lost too), then the close's 8 (CM-10)
        assertEquals(9, b.cm.counter(CmCounter.CM_RETRANSMITS));
    }

    /** {@code m} as a datagram from A, sealed by {@code auth} (null: unsealed). */
    static byte[] datagram(CmMessage m, CmAuth auth) {
        MemorySegment out = MemorySegment.ofArray(new byte[CmCodec.MAX_LENGTH]);
        int n = new CmCodec(new long[CmCounter.all().length]).encode(m, 5, out, auth, 77);
        return out.asSlice(0, n).toArray(java.lang.foreign.ValueLayout.JAVA_BYTE);
    }

    @Test
    void differentKeysNeverConnect() {
        a.psk = PSK;
        b.psk = OTHER;
        QueuePair qa = connect();
        link.run(600_000_000);
        assertEquals(0, b.cm.connectionCount(), "AUTH-13: no REQ authenticated, none remembered (AUTH-14)");
        assertEquals(9, b.cm.counter(CmCounter.CM_DROP_AUTH));
        assertEquals(9, a.cm.counter(CmCounter.CM_DROP_AUTH), "the unsealed refusals");
        assertEquals(QpState.ERROR, qa.state());
        assertTrue(a.failures.getFirst().contains("another one"), a.failures.getFirst());
        assertTrue(b.accepted.isEmpty());
    }

    /** Posts a 16 KiB WRITE from qa to qb and shuttles datagrams between the engines for 50 ms of virtual time. */
    private io.metaroce.core.Counters moveData(QueuePair qa, QueuePair qb) {
        MemoryRegion src = a.engine.registerMemory(a.pd, MemorySegment.ofArray(new byte[16384]), Access.ALL);
        MemoryRegion dst = b.engine.registerMemory(b.pd, MemorySegment.ofArray(new byte[16384]), Access.ALL);
        src.segment().fill((byte) 0x3C);
        assertEquals(QueuePair.OK, qa.postWrite(1, src, 0, 16384, dst.address(), dst.rkey(), QueuePair.SIGNALED));
        MemorySegment out = MemorySegment.ofArray(new byte[a.engine.maxDatagramLength()]);
        Transmit tx = new Transmit();
        for (long t = 1; t < 50_000_000; t += 10_000) {
            for (Engine[] pair : new Engine[][] {{a.engine, b.engine}, {b.engine, a.engine}}) {
                pair[0].handleTimeout(t);
                int n;
                while ((n = pair[0].pollTransmit(t, out, tx)) > 0) {
                    byte[] copy = out.asSlice(0, n).toArray(java.lang.foreign.ValueLayout.JAVA_BYTE);
                    pair[1].handleDatagram(t, MemorySegment.ofArray(copy), n, 0);
                }
            }
        }
        if (b.engine.counters().get(Counter.DROP_AUTH) == 0) {
            assertEquals(-1, src.segment().mismatch(dst.segment()), "data arrived intact");
            assertEquals(0, a.engine.counters().get(Counter.DROP_AUTH));
        }
        return b.engine.counters();
    }
}
