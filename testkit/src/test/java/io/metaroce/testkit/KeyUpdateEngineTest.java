package io.metaroce.testkit;

import io.metaroce.core.Counter;
import io.metaroce.core.Engine;
import io.metaroce.core.EngineConfig;
import io.metaroce.core.QueuePair;
import io.metaroce.core.WcStatus;
import io.metaroce.core.auth.AuthKeys;
import io.metaroce.core.wire.BaseHeader;
import io.metaroce.core.wire.Opcode;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.nio.charset.StandardCharsets;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * AUTH-17 .. AUTH-19 between two engines over the lossy test network: with {@code authKeyUpdatePackets = 64} both
 * directions update their keys dozens of times during 1 MiB WRITEs each way (loss, reordering, duplicates), every
 * byte arrives, nothing fails its tag; the receivers follow every update; a sender whose packets are never
 * acknowledged does not update (AUTH-18's wait), and one with {@code authKeyUpdatePackets = 0} never does.
 */
class KeyUpdateEngineTest {
    private static final byte[] PSK = "a pre-shared key of 32 bytes!!!!".getBytes(StandardCharsets.US_ASCII);
    private static final int LIMIT = 64;

    private final EngineConfig cfg = new EngineConfig().paths(4).planes(2).mtu(1024).authKeyUpdatePackets(LIMIT);
    private final Network net = Network.datacenter(47, 2, cfg);
    private final Endpoint a = new Endpoint(net, 0, 1L << 20);
    private final Endpoint b = new Endpoint(net, 1, 1L << 20);
    private int phaseFlips;
    private int lastPhaseToB = -1;

    private void connect(boolean encrypt) {
        a.qp.enableAuth(AuthKeys.derive(PSK, 5, a.qp.qpn(), b.qp.qpn(), 1000, 5001, true, encrypt));
        b.qp.enableAuth(AuthKeys.derive(PSK, 5, a.qp.qpn(), b.qp.qpn(), 1000, 5001, false, encrypt));
        Endpoint.connect(net, a, b);
        net.setObserver((now, d) -> {
            if (d.dst() == 1 && d.opcode() == Opcode.WRITE) {
                int phase = d.bytes()[3] & BaseHeader.FLAG_KEY_PHASE;
                if (lastPhaseToB >= 0 && phase != lastPhaseToB) {
                    phaseFlips++;
                }
                lastPhaseToB = phase;
            }
        });
    }

    @ParameterizedTest
    @ValueSource(booleans = {false, true})
    void bothDirectionsUpdateTheirKeysManyTimesWhileDataMovesUnderLossAndReordering(boolean encrypt) {
        connect(encrypt);
        net.setLoss(0.02);
        net.setReorder(0.05, 2_000); // up to about 25 packets late: within one key generation of 64 packets
        net.setDuplicate(0.02);
        transferBothWays();
        for (Engine e : List.of(a.engine, b.engine)) {
            assertEquals(0, e.counters().get(Counter.DROP_AUTH), e.counters().toString());
        }
    }

    /**
     * Packets delayed by 20 us (about 250 packets at the test network's rate) arrive two or more generations late:
     * each is a counted drop, {@code DROP_KEY_RETIRED} where its number proves it (AUTH-19) and {@code DROP_AUTH}
     * where it does not, and the transfer completes through retransmissions.
     */
    @Test
    void packetsDelayedPastTwoUpdatesAreCountedDropsAndTheDataStillArrives() {
        connect(false);
        net.setReorder(0.05, 20_000);
        transferBothWays();
        long retired = a.engine.counters().get(Counter.DROP_KEY_RETIRED) + b.engine.counters().get(Counter.DROP_KEY_RETIRED);
        assertTrue(retired > 0, a.engine.counters() + "\n" + b.engine.counters());
    }

    private void transferBothWays() {
        a.fillRandom(5);
        b.fillRandom(6);
        int bytes = 1 << 20;
        assertEquals(QueuePair.OK, a.qp.postWrite(1, a.src, 0, bytes, b.dst.address(), b.dst.rkey(), QueuePair.SIGNALED));
        assertEquals(QueuePair.OK, b.qp.postWrite(2, b.src, 0, bytes, a.dst.address(), a.dst.rkey(), QueuePair.SIGNALED));
        assertTrue(net.runUntil(() -> a.sendDone() == 1 && b.sendDone() == 1, 4_000_000_000L),
                () -> a.engine.counters() + "\n" + b.engine.counters());
        assertEquals(List.of(WcStatus.SUCCESS), a.sendStatuses);
        assertEquals(List.of(WcStatus.SUCCESS), b.sendStatuses);
        assertEquals(-1L, a.src.segment().asSlice(0, bytes).mismatch(b.dst.segment().asSlice(0, bytes)));
        assertEquals(-1L, b.src.segment().asSlice(0, bytes).mismatch(a.dst.segment().asSlice(0, bytes)));
        for (Endpoint[] pair : new Endpoint[][] {{a, b}, {b, a}}) {
            Engine tx = pair[0].engine;
            Engine rx = pair[1].engine;
            long sent = tx.counters().get(Counter.KEY_UPDATES_SENT);
            long followed = rx.counters().get(Counter.KEY_UPDATES_RECEIVED);
            // 1 MiB of 1 KiB packets plus ACKs: over 1,000 packets each way, one update per 64 at most
            assertTrue(sent >= 10 && sent <= 1 + 3000 / LIMIT, "updates sent: " + sent);
            assertEquals(sent, pair[0].qp.txKeyGeneration());
            assertEquals(followed, pair[1].qp.rxKeyGeneration());
            assertTrue(followed == sent || followed == sent - 1, "followed " + followed + " of " + sent);
            assertEquals(0, rx.internalErrors());
        }
        assertTrue(phaseFlips >= 10, "KEY_PHASE flips seen on the wire: " + phaseFlips);
    }

    @Test
    void aSenderWhosePacketsAreNeverAcknowledgedDoesNotUpdate() {
        connect(false);
        net.setDropRule(d -> d.dst() == 1); // nothing reaches B: no ACK ever comes back
        a.fillRandom(1);
        assertEquals(QueuePair.OK, a.qp.postWrite(1, a.src, 0, 256 * 1024, b.dst.address(), b.dst.rkey(),
                QueuePair.SIGNALED));
        net.runUntil(() -> a.sendDone() == 1, 500_000_000L);
        assertTrue(a.engine.counters().get(Counter.TX_PACKETS) > 2 * LIMIT, a.engine.counters().toString());
        assertEquals(0, a.engine.counters().get(Counter.KEY_UPDATES_SENT), "AUTH-18: no update without an ACK");
        assertEquals(0, lastPhaseToB == -1 ? 0 : lastPhaseToB);
    }

    @Test
    void zeroMeansNever() {
        cfg.authKeyUpdatePackets(0);
        Network n = Network.datacenter(48, 2, cfg);
        Endpoint x = new Endpoint(n, 0, 1L << 20);
        Endpoint y = new Endpoint(n, 1, 1L << 20);
        x.qp.enableAuth(AuthKeys.derive(PSK, 6, x.qp.qpn(), y.qp.qpn(), 1000, 5001, true, false));
        y.qp.enableAuth(AuthKeys.derive(PSK, 6, x.qp.qpn(), y.qp.qpn(), 1000, 5001, false, false));
        Endpoint.connect(n, x, y);
        assertEquals(QueuePair.OK, x.qp.postWrite(1, x.src, 0, 1 << 20, y.dst.address(), y.dst.rkey(),
                QueuePair.SIGNALED));
        assertTrue(n.runUntil(() -> x.sendDone() == 1, 2_000_000_000L));
        assertEquals(0, x.engine.counters().get(Counter.KEY_UPDATES_SENT));
        assertEquals(0, y.engine.counters().get(Counter.KEY_UPDATES_RECEIVED));
    }
}
