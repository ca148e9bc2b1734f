package io.metaroce.testkit;

import io.metaroce.core.Counter;
import io.metaroce.core.Counters;
import io.metaroce.core.EngineConfig;
import io.metaroce.core.QueuePair;
import io.metaroce.core.WcStatus;
import io.metaroce.core.wire.AckBundleHeader;
import io.metaroce.core.wire.BaseHeader;
import io.metaroce.core.wire.Opcode;
import io.metaroce.core.wire.Packet;
import org.junit.jupiter.api.Test;

import java.lang.foreign.MemorySegment;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** ACK-11: one datagram carries several paths' acknowledgements; the sender reads each as its path's ACK. */
class AckBundleTest {
    private static final long US = 1_000L;

    /** Counters of one 4-path transfer of 16 x 64 KiB WRITEs (sender, receiver), with {@code loss} per datagram. */
    private static Counters[] transfer(boolean bundle, double loss, long seed) {
        EngineConfig cfg = new EngineConfig().paths(4).planes(2).ackBundle(bundle);
        Network net = new Network(seed, 2, cfg, 100_000_000_000L, 2_000, 1 << 20, 1 << 20);
        net.setLoss(loss);
        Endpoint a = new Endpoint(net, 0, 1 << 20);
        Endpoint b = new Endpoint(net, 1, 1 << 20);
        a.fillRandom(seed);
        Endpoint.connect(net, a, b);
        for (int i = 0; i < 16; i++) {
            assertEquals(QueuePair.OK, a.qp.postWrite(i, a.src, i * 65536L, 65536, b.dst.address() + i * 65536L,
                    b.dst.rkey(), QueuePair.SIGNALED));
        }
        assertTrue(net.runUntil(() -> a.sendDone() == 16, 1_000_000 * US), "transfer did not finish");
        assertTrue(a.sendStatuses.stream().allMatch(s -> s == WcStatus.SUCCESS), a.sendStatuses.toString());
        assertEquals(-1, a.src.segment().mismatch(b.dst.segment()), "sink differs from source");
        assertEquals(0, a.engine.internalErrors() + b.engine.internalErrors());
        return new Counters[] {a.engine.counters(), b.engine.counters()};
    }

    @Test
    void bundlesCarrySeveralPathsAndTheTransferIsExact() {
        for (double loss : new double[] {0, 0.02}) {
            Counters[] off = transfer(false, loss, 7);
            Counters[] on = transfer(true, loss, 7);
            // without bundles every ACK is its own datagram
            assertEquals(off[1].get(Counter.TX_ACKS), off[1].get(Counter.TX_ACK_DATAGRAMS));
            assertEquals(0, off[0].get(Counter.RX_ACK_BUNDLES));
            // with them, fewer datagrams carry the acknowledgements, and the sender read every bundle
            long datagrams = on[1].get(Counter.TX_ACK_DATAGRAMS);
            assertTrue(datagrams < on[1].get(Counter.TX_ACKS), "no bundle at loss " + loss);
            assertTrue(on[0].get(Counter.RX_ACK_BUNDLES) > 0);
            assertEquals(0, on[0].get(Counter.DROP_MALFORMED));
            double perDataOn = (double) datagrams / on[0].get(Counter.TX_DATA_PACKETS);
            double perDataOff = (double) off[1].get(Counter.TX_ACK_DATAGRAMS) / off[0].get(Counter.TX_DATA_PACKETS);
            assertTrue(perDataOn < perDataOff, perDataOn + " vs " + perDataOff + " at loss " + loss);
        }
    }

    @Test
    void aBundleEntryMeansWhatThePathsAckMeans() {
        byte[] bytes = new byte[Packet.datagramLength(Opcode.ACK_BUNDLE, 2 * AckBundleHeader.ENTRY_LENGTH)];
        MemorySegment seg = MemorySegment.ofArray(bytes);
        new BaseHeader().wrap(seg, 0).version(1).opcode(Opcode.ACK_BUNDLE).destQpn(0xa01).pathId(3)
                .payloadLength(2 * AckBundleHeader.ENTRY_LENGTH).srcQpn(0xb02).timestampNs(77);
        new AckBundleHeader().wrap(seg, BaseHeader.LENGTH).grantMbps(5000).rxMsn(9)
                .pathId(0, 3).ceCount(0, 2).cumPsn(0, 100).echoTimestampNs(0, 55).sackWord(0, 0, 6)
                .pathId(1, 1).ceCount(1, 0).cumPsn(1, 200).echoTimestampNs(1, 66).sackWord(1, 3, 1L << 63);
        assertEquals(Packet.OK, new Packet().check(seg, new Packet().seal(seg, bytes.length - 4)));
        MemorySegment out = MemorySegment.ofArray(new byte[88]);
        io.metaroce.core.wire.AckHeader ack = new io.metaroce.core.wire.AckHeader();
        AckBundleHeader.expand(seg, 1, out, new BaseHeader(), new AckBundleHeader(), ack);
        BaseHeader b = new BaseHeader().wrap(out, 0);
        assertEquals(Opcode.ACK, b.opcode());
        assertEquals(1, b.pathId());
        assertEquals(0, b.payloadLength());
        assertEquals(0xb02, b.srcQpn());
        assertEquals(77, b.timestampNs());
        ack.wrap(out, BaseHeader.LENGTH);
        assertEquals(200, ack.cumPsn());
        assertEquals(66, ack.echoTimestampNs());
        assertEquals(5000, ack.grantMbps());
        assertEquals(9, ack.rxMsn());
        assertEquals(1L << 63, ack.sackWord(3));
        assertEquals(0, ack.sackWord(0));
    }

    @Test
    void aMalformedBundleIsDroppedWhole() {
        Network net = new Network(3, 2, new EngineConfig().paths(4).planes(1), 100_000_000_000L, 2_000, 1 << 20,
                1 << 20);
        Endpoint a = new Endpoint(net, 0, 1 << 16);
        Endpoint b = new Endpoint(net, 1, 1 << 16);
        Endpoint.connect(net, a, b);
        int[][] cases = {{2 * AckBundleHeader.ENTRY_LENGTH, 7}, {AckBundleHeader.ENTRY_LENGTH + 8, 0}, {0, 0}};
        long malformed = 0;
        for (int[] c : cases) {
            int payload = c[0];
            byte[] bytes = new byte[Packet.datagramLength(Opcode.ACK_BUNDLE, payload)];
            MemorySegment seg = MemorySegment.ofArray(bytes);
            new BaseHeader().wrap(seg, 0).version(1).opcode(Opcode.ACK_BUNDLE).destQpn(a.qp.qpn()).pathId(0)
                    .payloadLength(payload).srcQpn(b.qp.qpn());
            if (payload >= 2 * AckBundleHeader.ENTRY_LENGTH) {
                new AckBundleHeader().wrap(seg, BaseHeader.LENGTH).pathId(0, 0).pathId(1, c[1]); // path 7 of 4
            }
            a.engine.handleDatagram(net.nowNs(), seg, new Packet().seal(seg, bytes.length - 4), 0);
            assertEquals(++malformed, a.engine.counters().get(Counter.DROP_MALFORMED));
        }
        assertEquals(0, a.engine.counters().get(Counter.RX_ACKS), "no entry of a malformed bundle was read");
        assertEquals(0, a.engine.internalErrors());
    }
}
