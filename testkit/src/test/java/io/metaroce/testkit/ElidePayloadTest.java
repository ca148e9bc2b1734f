package io.metaroce.testkit;

import io.metaroce.core.Engine;
import io.metaroce.core.EngineConfig;
import io.metaroce.core.wire.AckBundleHeader;
import io.metaroce.core.wire.BaseHeader;
import io.metaroce.core.wire.Opcode;
import io.metaroce.core.wire.Packet;
import org.junit.jupiter.api.Test;

import java.lang.foreign.MemorySegment;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** EngineConfig.elidePayload: the same protocol decisions without moving payload bytes. */
class ElidePayloadTest {
    @Test
    void sameProtocolBehaviourWithoutTheBytes() {
        EngineConfig normal = new EngineConfig().paths(8).planes(2);
        EngineConfig elided = normal.copy();
        elided.elidePayload = true;
        BulkTransfer.Result a = BulkTransfer.run(normal, 100_000_000_000L, 0.02, 8 << 20, 8, 5, 10_000_000_000L);
        BulkTransfer.Result b = BulkTransfer.run(elided, 100_000_000_000L, 0.02, 8 << 20, 8, 5, 10_000_000_000L);
        assertTrue(a.dataCorrect() && a.errors() == 0, a.toString());
        assertTrue(a.droppedData() > 10, "the loss must exercise recovery: " + a);
        // every timing, drop and retransmission is the same; only the bytes did not move
        assertEquals(a.completionNs(), b.completionNs());
        assertEquals(a.droppedTotal(), b.droppedTotal());
        assertEquals(a.retransmits(), b.retransmits());
        assertEquals(a.timeouts(), b.timeouts());
        assertEquals(0, b.errors());
        assertFalse(b.dataCorrect(), "payload bytes are not transferred in elided mode");
    }

    @Test
    void ackBundlesTravelWholeWhenPayloadsAreElided() {
        // an ACK bundle's entries are its payload, and they are protocol, not user data: eliding them (as before
        // this test) dropped every bundle as malformed and left the sender to its timers
        EngineConfig normal = new EngineConfig().paths(8).planes(2).ackBundle(true);
        EngineConfig elided = normal.copy();
        elided.elidePayload = true;
        BulkTransfer.Result a = BulkTransfer.run(normal, 100_000_000_000L, 0.02, 8 << 20, 8, 5, 10_000_000_000L);
        BulkTransfer.Result b = BulkTransfer.run(elided, 100_000_000_000L, 0.02, 8 << 20, 8, 5, 10_000_000_000L);
        assertTrue(a.dataCorrect() && a.errors() == 0, a.toString());
        assertEquals(a.completionNs(), b.completionNs());
        assertEquals(a.retransmits(), b.retransmits());
        assertEquals(a.timeouts(), b.timeouts());
        assertEquals(0, b.errors());
        EngineConfig bundled = new EngineConfig().paths(16).ackBundle(true);
        bundled.elidePayload = true;
        Engine e = new Engine(bundled, new java.util.SplittableRandom(1));
        assertTrue(e.bufferLength() >= Packet.datagramLength(Opcode.ACK_BUNDLE, 16 * AckBundleHeader.ENTRY_LENGTH),
                "an elided engine's buffer holds its longest ACK bundle: " + e.bufferLength());
    }

    @Test
    void elidedDatagramsFitInAHeaderBufferAndAreChecked() {
        EngineConfig cfg = new EngineConfig().ackBundle(false); // without bundles every datagram's header is short
        cfg.elidePayload = true;
        Engine e = new Engine(cfg, new java.util.SplittableRandom(1));
        assertTrue(e.bufferLength() < 128, "buffer " + e.bufferLength());
        Packet pk = new Packet();
        MemorySegment seg = MemorySegment.ofArray(new byte[e.bufferLength()]);
        new BaseHeader().wrap(seg, 0).version(Packet.VERSION).opcode(Opcode.WRITE).payloadLength(4096);
        int headers = BaseHeader.LENGTH + Opcode.extensionLength(Opcode.WRITE);
        int wire = pk.sealElided(seg, headers + 4096, 4096);
        assertEquals(Packet.datagramLength(Opcode.WRITE, 4096), wire);
        assertEquals(Packet.OK, pk.checkElided(seg, wire));
        assertEquals(Packet.BAD_LENGTH, pk.checkElided(seg, wire - 1));
        seg.set(java.lang.foreign.ValueLayout.JAVA_BYTE, 5, (byte) 0x55); // corrupt a header byte
        assertEquals(Packet.BAD_CRC, pk.checkElided(seg, wire));
        assertEquals(Packet.TRUNCATED, pk.checkElided(seg.asSlice(0, 20), wire));
    }
}
