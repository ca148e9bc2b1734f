package io.metaroce.testkit;

import io.metaroce.core.Counter;
import io.metaroce.core.EngineConfig;
import io.metaroce.core.QueuePair;
import io.metaroce.core.WcStatus;
import org.junit.jupiter.api.Test;

import java.util.Locale;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * REL-17 on the harness: an 8-to-1 incast of 256 KiB WRITEs into switch buffers of 24 KiB, without receiver grants,
 * so the first round trip overflows them. With trimming switches every cut packet reaches the receiver as headers,
 * is NAKed TRIMMED and resent at once; without, the same losses are found by the sender's own detection. Both runs
 * verify every byte.
 */
class TrimmingTest {
    private static final int SENDERS = 8;
    private static final long BYTES = 256 << 10;

    private record Outcome(long lastDoneNs, long trimmed, long rxTrimmed, long trimLosses, long timeouts,
                           long droppedData) {
    }

    @Test
    void everyTrimmedPacketIsNakedAndResent() {
        Outcome off = incast(false);
        Outcome on = incast(true);
        System.out.printf(Locale.ROOT, "incast %d x %d KiB, 24 KiB buffers: drop-tail %.1f us (%d data drops, %d RTOs); "
                        + "trimming %.1f us (%d trimmed, %d NAKed, %d resent as trim losses, %d RTOs)%n", SENDERS,
                BYTES >> 10, off.lastDoneNs / 1e3, off.droppedData, off.timeouts, on.lastDoneNs / 1e3, on.trimmed,
                on.rxTrimmed, on.trimLosses, on.timeouts);
        assertEquals(0, off.trimmed);
        assertTrue(off.droppedData > 0, "the incast overflows the buffers");
        assertTrue(on.trimmed > 0, "the trimming switches cut packets");
        assertEquals(on.trimmed, on.rxTrimmed, "the receiver NAKs every trimmed packet");
        assertTrue(on.trimLosses > 0 && on.trimLosses <= on.trimmed, "senders resend what was trimmed");
        // the incast is bound by the receiver's link either way (2 MiB at 25 Gb/s is 671 us): trimming must not slow it
        assertTrue(on.lastDoneNs <= off.lastDoneNs * 1.02, "trimming costs the incast at most 2%");
    }

    private static Outcome incast(boolean trimming) {
        EngineConfig cfg = new EngineConfig().paths(4).planes(1).mtu(1024).initialWindowPackets(16);
        Network net = new Network(21, SENDERS + 1, cfg, 25_000_000_000L, 1_000, 24 << 10, 12 << 10);
        net.setTrimming(trimming);
        Endpoint rx = new Endpoint(net, SENDERS, SENDERS * BYTES);
        Endpoint[] tx = new Endpoint[SENDERS];
        for (int i = 0; i < SENDERS; i++) {
            tx[i] = new Endpoint(net, i, BYTES);
            tx[i].fillRandom(i);
            QueuePair q = rx.engine.createQp(rx.pd, rx.scq, rx.rcq);
            net.connect(i, tx[i].qp, SENDERS, q, 11 * i, 13 * i);
            assertEquals(QueuePair.OK, tx[i].qp.postWrite(1, tx[i].src, 0, (int) BYTES,
                    rx.dst.address() + i * BYTES, rx.dst.rkey(), QueuePair.SIGNALED));
        }
        assertTrue(net.runUntil(() -> Endpoint.allSendsDone(tx, 1), 1_000_000_000L), "every WRITE completes");
        long timeouts = 0;
        long trimLosses = 0;
        for (int i = 0; i < SENDERS; i++) {
            assertEquals(WcStatus.SUCCESS, tx[i].sendStatuses.getFirst());
            assertEquals(-1L, tx[i].src.segment().mismatch(rx.dst.segment().asSlice(i * BYTES, BYTES)),
                    "sender " + i + "'s data arrived intact");
            timeouts += tx[i].engine.counters().get(Counter.TIMEOUTS);
            trimLosses += tx[i].engine.counters().get(Counter.TRIM_LOSSES);
        }
        return new Outcome(net.nowNs(), net.trimmed(), rx.engine.counters().get(Counter.RX_TRIMMED), trimLosses,
                timeouts, net.droppedData());
    }
}
