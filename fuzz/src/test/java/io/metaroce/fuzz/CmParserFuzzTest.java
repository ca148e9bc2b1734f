package io.metaroce.fuzz;

import com.code_intelligence.jazzer.api.FuzzedDataProvider;
import com.code_intelligence.jazzer.junit.FuzzTest;
import io.metaroce.core.CompletionQueue;
import io.metaroce.core.Engine;
import io.metaroce.core.EngineConfig;
import io.metaroce.core.ProtectionDomain;
import io.metaroce.core.QueuePair;
import io.metaroce.core.wire.BaseHeader;
import io.metaroce.core.wire.CmHeader;
import io.metaroce.core.wire.CmMessage;
import io.metaroce.core.wire.Opcode;
import io.metaroce.core.wire.Packet;
import io.metaroce.net.cm.CmCounter;
import io.metaroce.net.cm.CmEndpoint;
import io.metaroce.net.cm.CmHost;
import io.metaroce.net.cm.CmSettings;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.List;
import java.util.SplittableRandom;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The connection manager (the code of the real datapath and of the conformance targets) on fuzzer datagrams:
 * a listening endpoint that also runs one attempt of its own (connection id 1), fed up to 32 datagrams (mostly
 * re-sealed, often with a CM opcode and that id) and timer ticks. It never throws; every datagram is counted
 * once: dropped under exactly one reason, ignored, or handled; what it emits is itself a valid CM datagram.
 */
class CmParserFuzzTest {
    @FuzzTest
    void cmDatagrams(FuzzedDataProvider data) {
        Host host = new Host();
        CmEndpoint cm = new CmEndpoint(host, CmSettings.recommended(10_000_000));
        cm.listen();
        QueuePair own = host.newQp();
        cm.connect(0, own, 1, 0x1000, 9, Engine.NO_DEADLINE);
        long now = 0;
        int delivered = 0;
        for (int step = 0; step < 32 && data.remainingBytes() > 0; step++) {
            if (data.consumeInt(0, 4) == 0) {
                now += data.consumeLong(0, 20_000_000);
                cm.onTimer(now);
                continue;
            }
            byte[] raw = data.consumeBytes(data.consumeInt(0, 400));
            byte[] d = data.consumeBoolean() ? raw : Datagrams.plausible(raw, 0);
            if (d.length >= BaseHeader.LENGTH + CmHeader.FIXED_LENGTH + Packet.CRC_LENGTH && data.consumeBoolean()) {
                MemorySegment s = MemorySegment.ofArray(d);
                s.set(ValueLayout.JAVA_BYTE, BaseHeader.OPCODE, (byte) (Opcode.CM_REQ + data.consumeInt(0, 4)));
                if (data.consumeBoolean()) {
                    s.set(ValueLayout.JAVA_LONG_UNALIGNED.withOrder(java.nio.ByteOrder.BIG_ENDIAN),
                            BaseHeader.LENGTH + CmHeader.CONNECTION_ID, 1L);
                    s.set(ValueLayout.JAVA_INT_UNALIGNED.withOrder(java.nio.ByteOrder.BIG_ENDIAN),
                            BaseHeader.LENGTH + CmHeader.PEER_QPN, own.qpn());
                }
                new Packet().seal(s, d.length - Packet.CRC_LENGTH);
            }
            cm.handle(now, MemorySegment.ofArray(d), d.length, data.consumeInt(8, 10));
            delivered++;
            cm.checkImplicitRtu();
        }
        long drops = 0;
        for (CmCounter c : CmCounter.values()) {
            if (c.name().startsWith("CM_DROP_")) {
                drops += cm.counter(c);
            }
        }
        assertEquals(delivered, cm.counter(CmCounter.CM_RX_PACKETS));
        assertTrue(drops <= delivered, "each datagram is dropped at most once");
        assertEquals(host.emitted, cm.counter(CmCounter.CM_TX_PACKETS));
    }

    /** One device: real QPs of an engine, emitted datagrams checked by the packet parser. */
    static class Host implements CmHost {
        final EngineConfig cfg = new EngineConfig().mtu(1024).paths(2).planes(1);
        final Engine engine = new Engine(cfg, new SplittableRandom(3));
        final ProtectionDomain pd = engine.allocPd();
        final CompletionQueue cq = engine.createCq(64);
        final Packet packet = new Packet();
        long emitted;

        @Override
        public QueuePair newQp() {
            QueuePair qp = engine.createQp(pd, cq, cq);
            qp.modifyToInit();
            return qp;
        }

        @Override
        public int peerHandle(long remote, CmMessage m) {
            return 0;
        }

        @Override
        public void emit(MemorySegment datagram, int length, long remote) {
            assertEquals(Packet.OK, packet.check(datagram, length), "the CM emits valid datagrams");
            BaseHeader b = new BaseHeader().wrap(datagram, 0);
            CmMessage.parse(b.opcode(), datagram, BaseHeader.LENGTH, b.payloadLength());
            emitted++;
        }

        @Override
        public EngineConfig config() {
            return cfg;
        }

        @Override
        public List<byte[]> planeAddresses() {
            return List.of(new byte[] {10, 0, 0, 1});
        }

        @Override
        public int udpPort() {
            return 4793;
        }

        @Override
        public int responderInitialPsn() {
            return 0x2000;
        }
    }
}
