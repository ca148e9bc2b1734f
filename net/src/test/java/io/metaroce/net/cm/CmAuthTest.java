package io.metaroce.net.cm;

import io.metaroce.core.Access;
import io.metaroce.core.Counter;
import io.metaroce.core.Engine;
import io.metaroce.core.MemoryRegion;
import io.metaroce.core.QpState;
import io.metaroce.core.QueuePair;
import io.metaroce.core.Transmit;
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
 * between their engines); a side with a pre-shared key refuses a peer without one, in both roles, with
 * CM_REJ UNSUPPORTED; a wrong key gives a connection whose packets are all dropped as DROP_AUTH.
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
                caps.add(CmMessage.parse(op, MemorySegment.ofArray(d.bytes()), 32, d.bytes().length - 4 - 64)
                        .capabilities());
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
    void anInitiatorWithAKeyRefusesAListenerWithout() {
        a.psk = PSK;
        QueuePair qa = connect();
        assertEquals(List.of(CmMessage.CAP_AUTH, 0), caps);
        assertEquals(QpState.ERROR, qa.state());
        assertEquals(List.of("the listener does not authenticate packets (it has no pre-shared key); this device "
                + "requires it"), a.failures);
        assertEquals(1, a.cm.counter(CmCounter.CM_REJECTS_SENT));
    }

    @Test
    void differentKeysConnectButEveryPacketIsDropped() {
        a.psk = PSK;
        b.psk = OTHER;
        QueuePair qa = connect();
        QueuePair qb = b.accepted.getFirst();
        var counters = moveData(qa, qb);
        assertTrue(counters.get(Counter.DROP_AUTH) > 0, counters.toString());
        assertEquals(0, counters.get(Counter.RX_PAYLOAD_BYTES), "nothing placed");
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
