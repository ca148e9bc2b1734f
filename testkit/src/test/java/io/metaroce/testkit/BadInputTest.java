package io.metaroce.testkit;

import io.metaroce.core.Access;
import io.metaroce.core.Counter;
import io.metaroce.core.Engine;
import io.metaroce.core.EngineConfig;
import io.metaroce.core.MemoryRegion;
import io.metaroce.core.QpState;
import io.metaroce.core.QueuePair;
import io.metaroce.core.WcStatus;
import io.metaroce.core.wire.AckHeader;
import io.metaroce.core.wire.BaseHeader;
import io.metaroce.core.wire.DataHeader;
import io.metaroce.core.wire.NakHeader;
import io.metaroce.core.wire.Opcode;
import io.metaroce.core.wire.Packet;
import io.metaroce.core.wire.ReadRequestHeader;
import org.junit.jupiter.api.Test;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.SplittableRandom;
import java.util.function.Consumer;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Scenario 6: every bad-input class of PROTOCOL.md section 6 (spec BAD-*), injected at a device while another
 * QP on it moves data. Each case must be counted in its own drop counter, write nothing outside the target
 * region, raise nothing out of the engine and leave the other QP's transfer untouched.
 */
class BadInputTest {
    private static final int REGION = 64 * 1024;
    private static final byte CANARY = (byte) 0xA5;

    private final EngineConfig cfg = new EngineConfig().paths(4).planes(2).mtu(1024);
    private final Network net = Network.datacenter(21, 2, cfg);
    private final Endpoint a = new Endpoint(net, 0, 8L << 20);
    private final Endpoint b = new Endpoint(net, 1, 8L << 20);
    // the attacked QP pair: a2 (node 0) -> b2 (node 1)
    private final QueuePair a2 = a.engine.createQp(a.pd, a.scq, a.rcq);
    private final QueuePair b2 = b.engine.createQp(b.pd, b.scq, b.rcq);
    private final MemorySegment guarded = Arena.ofAuto().allocate(3L * REGION, 64);
    private final MemoryRegion target;
    private final MemoryRegion readOnly;
    private final MemoryRegion otherPd;
    private int psn = 100;

    BadInputTest() {
        Endpoint.connect(net, a, b);
        net.connect(0, a2, 1, b2, 0, 100);
        guarded.fill(CANARY);
        target = b.engine.registerMemory(b.pd, guarded.asSlice(REGION, REGION), Access.ALL);
        readOnly = b.engine.registerMemory(b.pd, Arena.ofAuto().allocate(REGION), Access.REMOTE_READ);
        otherPd = b.engine.registerMemory(b.engine.allocPd(), Arena.ofAuto().allocate(REGION), Access.ALL);
    }

    /** A WRITE from a2 to b2, sealed, with a hook to change fields before sealing. */
    private byte[] write(long va, int rkey, int len, Consumer<MemorySegment> edit) {
        int payload = Math.min(len, cfg.mtu);
        MemorySegment s = MemorySegment.ofArray(new byte[Packet.datagramLength(Opcode.WRITE, payload)]);
        new BaseHeader().wrap(s, 0).version(1).opcode(Opcode.WRITE).flags(BaseHeader.FLAG_ACK_REQ)
                .destQpn(b2.qpn()).pathId(0).payloadLength(payload).psn(psn++).psnFloor(0).srcQpn(a2.qpn())
                .timestampNs(1);
        new DataHeader().wrap(s, BaseHeader.LENGTH).msn(0).messageLength(len).offset(0).rkey(rkey).va(va);
        s.asSlice(BaseHeader.LENGTH + DataHeader.LENGTH, payload).fill((byte) 0x5A);
        edit.accept(s);
        new Packet().seal(s, (int) s.byteSize() - Packet.CRC_LENGTH);
        return s.toArray(ValueLayout.JAVA_BYTE);
    }

    private byte[] write(long va, int rkey, int len) {
        return write(va, rkey, len, s -> { });
    }

    private static byte[] reseal(byte[] bytes) {
        MemorySegment s = MemorySegment.ofArray(bytes.clone());
        new Packet().seal(s, bytes.length - Packet.CRC_LENGTH);
        return s.toArray(ValueLayout.JAVA_BYTE);
    }

    private void expect(Counter c, Engine e, byte[] datagram) {
        long before = e.counters().get(c);
        long drops = e.counters().drops();
        net.inject(e == a.engine ? 0 : 1, datagram, io.metaroce.core.wire.Ecn.ECT0);
        assertEquals(before + 1, e.counters().get(c), c + " counted");
        assertEquals(drops + 1, e.counters().drops(), "exactly one drop counter moved for " + c);
    }

    @Test
    void everyBadInputClassIsCountedAndHarmlessWhileAnotherTransferCompletes() {
        a.fillRandom(5);
        int chunks = 8;
        int chunk = 1 << 20;
        for (int i = 0; i < chunks; i++) {
            a.qp.postWrite(i, a.src, (long) i * chunk, chunk, b.dst.address() + (long) i * chunk, b.dst.rkey(),
                    QueuePair.SIGNALED);
        }
        net.runFor(20_000); // the victim transfer is under way
        Engine e = b.engine;
        long base = target.address();
        int rkey = target.rkey();

        // header-level rejections
        expect(Counter.DROP_TRUNCATED, e, new byte[10]);
        expect(Counter.DROP_TRUNCATED, e, new byte[0]);
        byte[] good = write(base, rkey, 100);
        byte[] flipped = good.clone();
        flipped[60] ^= 1;
        expect(Counter.DROP_BAD_CRC, e, flipped);
        expect(Counter.DROP_BAD_VERSION, e, write(base, rkey, 100, s -> s.set(ValueLayout.JAVA_BYTE, 0, (byte) 2)));
        expect(Counter.DROP_BAD_OPCODE, e, write(base, rkey, 100, s -> s.set(ValueLayout.JAVA_BYTE, 1, (byte) 0x7F)));
        expect(Counter.DROP_BAD_LENGTH, e, write(base, rkey, 100,
                s -> new BaseHeader().wrap(s, 0).payloadLength(60)));
        // oversized: a datagram larger than the MTU allows, self-consistent in length
        expect(Counter.DROP_MALFORMED, e, oversized(base, rkey));
        expect(Counter.DROP_UNKNOWN_QP, e, write(base, rkey, 100, s -> new BaseHeader().wrap(s, 0).destQpn(0x1234567)));
        expect(Counter.DROP_WRONG_PEER, e, write(base, rkey, 100, s -> new BaseHeader().wrap(s, 0).srcQpn(a.qp.qpn())));
        expect(Counter.DROP_MALFORMED, e, write(base, rkey, 100, s -> new BaseHeader().wrap(s, 0).pathId(200)));

        // framing
        expect(Counter.DROP_MALFORMED, e, write(base, rkey, 100, s -> new DataHeader().wrap(s, 32).offset(3)));
        expect(Counter.DROP_MALFORMED, e, write(base, rkey, 100, s -> new DataHeader().wrap(s, 32).messageLength(-5)));
        // a PSN far beyond the window whose floor does not vouch for it, and a floor that would jump too far
        expect(Counter.DROP_MALFORMED, e, write(base, rkey, 100, s -> new BaseHeader().wrap(s, 0).psn(psn + 5000)));
        expect(Counter.DROP_MALFORMED, e, write(base, rkey, 100,
                s -> new BaseHeader().wrap(s, 0).psn(1 << 30).psnFloor((1 << 30) - 10)));
        expect(Counter.DROP_MSN_OUT_OF_WINDOW, e, write(base, rkey, 100, s -> new DataHeader().wrap(s, 32).msn(1 << 20)));

        // access: wrong rkey, another PD's rkey, out of bounds (end, start, overflow), no permission
        expect(Counter.DROP_BAD_RKEY, e, write(base, 0x0BAD0001, 100));
        expect(Counter.DROP_BAD_RKEY, e, write(otherPd.address(), otherPd.rkey(), 100));
        expect(Counter.DROP_OUT_OF_BOUNDS, e, write(base + REGION - 10, rkey, 100));
        expect(Counter.DROP_OUT_OF_BOUNDS, e, write(base - 1, rkey, 100));
        expect(Counter.DROP_OUT_OF_BOUNDS, e, write(Long.MAX_VALUE - 5, rkey, 100));
        expect(Counter.DROP_OUT_OF_BOUNDS, e, write(-1L, rkey, 100));
        expect(Counter.DROP_NO_PERMISSION, e, write(readOnly.address(), readOnly.rkey(), 100));
        expect(Counter.DROP_OUT_OF_BOUNDS, e, readRequest(base + REGION - 8, rkey, 64));
        expect(Counter.DROP_RNR, e, send(100));

        // replay: a valid packet is accepted once; the same bytes again are a duplicate
        long placedBefore = e.counters().get(Counter.RX_PAYLOAD_BYTES);
        net.inject(1, good, io.metaroce.core.wire.Ecn.ECT0);
        assertEquals(placedBefore + 100, e.counters().get(Counter.RX_PAYLOAD_BYTES), "the valid packet placed");
        expect(Counter.DROP_DUPLICATE, e, good);

        // control packets that lie
        expect(Counter.DROP_MALFORMED, a.engine, ack(b2.qpn(), a2.qpn(), 1 << 30));
        expect(Counter.DROP_STALE_NAK, a.engine, nakFor(b2.qpn(), a2.qpn(), 12345));
        expect(Counter.DROP_MALFORMED, e, reseal(cm()));

        // random garbage and random mutations of a valid packet
        SplittableRandom r = new SplittableRandom(77);
        long dropsBefore = e.counters().drops();
        int n = 2000;
        for (int i = 0; i < n; i++) {
            byte[] junk;
            if (i % 2 == 0) {
                junk = new byte[r.nextInt(0, 1200)];
                r.nextBytes(junk);
            } else {
                junk = write(base + r.nextInt(REGION), rkey, 1 + r.nextInt(1024));
                junk[r.nextInt(junk.length)] ^= (byte) (1 + r.nextInt(255));
                if (r.nextBoolean()) {
                    junk = reseal(junk);
                }
            }
            net.inject(1, junk, r.nextInt(4));
        }
        long accepted = e.counters().get(Counter.RX_PAYLOAD_BYTES) - placedBefore;
        assertTrue(e.counters().drops() - dropsBefore > n / 2, "garbage counted as drops");

        // the victim transfer completes with correct data
        assertTrue(net.runUntil(() -> a.sendDone() == chunks, 1_000_000_000L), a.engine.counters()::toString);
        assertTrue(a.sendStatuses.stream().allMatch(s -> s == WcStatus.SUCCESS));
        long total = (long) chunks * chunk;
        assertEquals(-1L, a.src.segment().asSlice(0, total).mismatch(b.dst.segment().asSlice(0, total)));

        // nothing written outside the target region
        for (long i = 0; i < REGION; i++) {
            assertEquals(CANARY, guarded.get(ValueLayout.JAVA_BYTE, i), "below the region at " + i);
            assertEquals(CANARY, guarded.get(ValueLayout.JAVA_BYTE, 2L * REGION + i), "above the region at " + i);
        }
        assertEquals(0, a.engine.internalErrors(), () -> String.valueOf(a.engine.lastInternalError()));
        assertEquals(0, e.internalErrors(), () -> String.valueOf(e.lastInternalError()));
        assertEquals(QpState.RTS, b2.state(), "the attacked QP is still up");
        assertEquals(QpState.RTS, b.qp.state());
        System.out.println("bad input: receiver counters " + e.counters() + "; garbage placed " + accepted + " bytes");
    }

    private byte[] oversized(long va, int rkey) {
        int payload = cfg.mtu + 100;
        MemorySegment s = MemorySegment.ofArray(new byte[Packet.datagramLength(Opcode.WRITE, payload)]);
        new BaseHeader().wrap(s, 0).version(1).opcode(Opcode.WRITE).destQpn(b2.qpn()).pathId(0)
                .payloadLength(payload).psn(psn++).srcQpn(a2.qpn());
        new DataHeader().wrap(s, BaseHeader.LENGTH).msn(0).messageLength(payload).offset(0).rkey(rkey).va(va);
        new Packet().seal(s, (int) s.byteSize() - Packet.CRC_LENGTH);
        return s.toArray(ValueLayout.JAVA_BYTE);
    }

    private byte[] readRequest(long va, int rkey, int len) {
        MemorySegment s = MemorySegment.ofArray(new byte[Packet.datagramLength(Opcode.READ_REQ, 0)]);
        new BaseHeader().wrap(s, 0).version(1).opcode(Opcode.READ_REQ).destQpn(b2.qpn()).pathId(1)
                .psn(psn++).srcQpn(a2.qpn());
        new ReadRequestHeader().wrap(s, BaseHeader.LENGTH).msn(1).readLength(len).rkey(rkey).remoteVa(va).sinkVa(0);
        new Packet().seal(s, (int) s.byteSize() - Packet.CRC_LENGTH);
        return s.toArray(ValueLayout.JAVA_BYTE);
    }

    private byte[] send(int len) {
        MemorySegment s = MemorySegment.ofArray(new byte[Packet.datagramLength(Opcode.SEND, len)]);
        new BaseHeader().wrap(s, 0).version(1).opcode(Opcode.SEND).destQpn(b2.qpn()).pathId(2)
                .payloadLength(len).psn(psn++).srcQpn(a2.qpn());
        new DataHeader().wrap(s, BaseHeader.LENGTH).msn(2).messageLength(len).rsn(0);
        new Packet().seal(s, (int) s.byteSize() - Packet.CRC_LENGTH);
        return s.toArray(ValueLayout.JAVA_BYTE);
    }

    private static byte[] ack(int srcQpn, int dstQpn, int cum) {
        MemorySegment s = MemorySegment.ofArray(new byte[Packet.datagramLength(Opcode.ACK, 0)]);
        new BaseHeader().wrap(s, 0).version(1).opcode(Opcode.ACK).destQpn(dstQpn).srcQpn(srcQpn);
        new AckHeader().wrap(s, BaseHeader.LENGTH).cumPsn(cum);
        new Packet().seal(s, (int) s.byteSize() - Packet.CRC_LENGTH);
        return s.toArray(ValueLayout.JAVA_BYTE);
    }

    private static byte[] nakFor(int srcQpn, int dstQpn, int nakPsn) {
        MemorySegment s = MemorySegment.ofArray(new byte[Packet.datagramLength(Opcode.NAK, 0)]);
        new BaseHeader().wrap(s, 0).version(1).opcode(Opcode.NAK).destQpn(dstQpn).srcQpn(srcQpn);
        new NakHeader().wrap(s, BaseHeader.LENGTH).code(NakHeader.CODE_BAD_RKEY).nakPsn(nakPsn);
        new Packet().seal(s, (int) s.byteSize() - Packet.CRC_LENGTH);
        return s.toArray(ValueLayout.JAVA_BYTE);
    }

    private byte[] cm() {
        MemorySegment s = MemorySegment.ofArray(new byte[Packet.datagramLength(Opcode.CM_REQ, 0)]);
        new BaseHeader().wrap(s, 0).version(1).opcode(Opcode.CM_REQ).destQpn(b2.qpn()).srcQpn(a2.qpn());
        return s.toArray(ValueLayout.JAVA_BYTE);
    }
}
