package io.metaroce.core.wire;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.Example;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.Tuple;
import net.jqwik.api.Tuple.Tuple2;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.statistics.Statistics;
import net.jqwik.api.statistics.StatisticsReport;
import net.jqwik.api.statistics.StatisticsReport.StatisticsReportMode;

/**
 * Properties of the wire codecs (spec 01-wire.md): every header view round-trips every field and writes only
 * inside its own bytes; {@link CmMessage} emit/parse round-trips; {@link Packet#seal} then {@link Packet#check}
 * is OK; any single flipped bit is caught by the CRC; and {@link Packet#check} agrees with an independent model
 * of the validation order (WIRE-8) and never throws, whatever the bytes and length.
 */
class CodecPropertiesTest {
    /** Extension lengths per opcode as the spec's opcode table gives them, independent of {@link Opcode}. */
    private static final int[] SPEC_EXTENSION = new int[256];

    static {
        Arrays.fill(SPEC_EXTENSION, -1);
        for (int op : new int[] {0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x30, 0x31, 0x32, 0x33, 0x34}) {
            SPEC_EXTENSION[op] = 32;
        }
        SPEC_EXTENSION[0x08] = 36; // PARITY (REL-18, WIRE-22)
        SPEC_EXTENSION[0x09] = 36; // PARITY_Q (REL-20, WIRE-22)
        SPEC_EXTENSION[0x0A] = 36; // PARITY_R (REL-21, WIRE-22)
        SPEC_EXTENSION[0x10] = 56;
        SPEC_EXTENSION[0x11] = 16;
        SPEC_EXTENSION[0x12] = 8; // ACK_BUNDLE (ACK-11)
        SPEC_EXTENSION[0x20] = 16;
        SPEC_EXTENSION[0x21] = 16;
    }

    private static final int[] OPCODES = {0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x08, 0x09, 0x0A, 0x10, 0x11, 0x12, 0x20,
            0x21, 0x30, 0x31, 0x32, 0x33, 0x34};
    private static final int[] CM_OPCODES = {0x30, 0x31, 0x32, 0x33, 0x34};
    /** Bytes of slack before and after a view, checked to be left untouched. */
    private static final int GUARD = 24;

    private final Packet packet = new Packet();

    // ---- header views: every field round-trips, nothing outside the header is written ----

    @Property
    void baseHeaderRoundTrip(@ForAll @IntRange(max = 64) int at, @ForAll @IntRange(max = 0xff) int version,
                             @ForAll @IntRange(max = 0xff) int opcode, @ForAll @IntRange(max = 0xffff) int flags,
                             @ForAll int destQpn, @ForAll @IntRange(max = 0xffff) int pathId,
                             @ForAll @IntRange(max = 0xffff) int payloadLength, @ForAll int psn, @ForAll int psnFloor,
                             @ForAll int srcQpn, @ForAll long timestampNs, @ForAll long noise) {
        Guarded g = new Guarded(at, BaseHeader.LENGTH, noise);
        BaseHeader h = new BaseHeader().wrap(g.seg, at).version(version).opcode(opcode).flags(flags)
                .destQpn(destQpn).pathId(pathId).payloadLength(payloadLength).psn(psn).psnFloor(psnFloor)
                .srcQpn(srcQpn).timestampNs(timestampNs);
        g.assertGuardsIntact();
        h = new BaseHeader().wrap(g.seg, at);
        assertEquals(version, h.version());
        assertEquals(opcode, h.opcode());
        assertEquals(flags, h.flags());
        assertEquals(destQpn, h.destQpn());
        assertEquals(pathId, h.pathId());
        assertEquals(payloadLength, h.payloadLength());
        assertEquals(psn, h.psn());
        assertEquals(psnFloor, h.psnFloor());
        assertEquals(srcQpn, h.srcQpn());
        assertEquals(timestampNs, h.timestampNs());
        // network byte order: the PSN's most significant byte comes first (WIRE-1)
        assertEquals((byte) (psn >>> 24), g.seg.get(ValueLayout.JAVA_BYTE, at + BaseHeader.PSN));
    }

    @Property
    void narrowFieldsKeepTheLowBitsOfAnyInt(@ForAll int v) {
        MemorySegment seg = MemorySegment.ofArray(new byte[BaseHeader.LENGTH]);
        BaseHeader h = new BaseHeader().wrap(seg, 0).version(v).opcode(v).flags(v).pathId(v).payloadLength(v);
        assertEquals(v & 0xff, h.version());
        assertEquals(v & 0xff, h.opcode());
        assertEquals(v & 0xffff, h.flags());
        assertEquals(v & 0xffff, h.pathId());
        assertEquals(v & 0xffff, h.payloadLength());
    }

    @Property
    void dataHeaderRoundTrip(@ForAll @IntRange(max = 64) int at, @ForAll int msn, @ForAll int messageLength,
                             @ForAll int offset, @ForAll int rkey, @ForAll long va, @ForAll int rsn,
                             @ForAll int immediate, @ForAll long noise) {
        Guarded g = new Guarded(at, DataHeader.LENGTH, noise);
        new DataHeader().wrap(g.seg, at).msn(msn).messageLength(messageLength).offset(offset).rkey(rkey).va(va)
                .rsn(rsn).immediate(immediate);
        g.assertGuardsIntact();
        DataHeader d = new DataHeader().wrap(g.seg, at);
        assertEquals(msn, d.msn());
        assertEquals(messageLength, d.messageLength());
        assertEquals(offset, d.offset());
        assertEquals(rkey, d.rkey());
        assertEquals(va, d.va());
        assertEquals(rsn, d.rsn());
        assertEquals(immediate, d.immediate());
    }

    @Property
    void readRequestHeaderRoundTrip(@ForAll @IntRange(max = 64) int at, @ForAll int msn, @ForAll int length,
                                    @ForAll int rkey, @ForAll int reserved, @ForAll long remoteVa,
                                    @ForAll long sinkVa, @ForAll long noise) {
        Guarded g = new Guarded(at, ReadRequestHeader.LENGTH, noise);
        new ReadRequestHeader().wrap(g.seg, at).msn(msn).readLength(length).rkey(rkey).reserved(reserved)
                .remoteVa(remoteVa).sinkVa(sinkVa);
        g.assertGuardsIntact();
        ReadRequestHeader r = new ReadRequestHeader().wrap(g.seg, at);
        assertEquals(msn, r.msn());
        assertEquals(length, r.readLength());
        assertEquals(rkey, r.rkey());
        assertEquals(reserved, r.reserved());
        assertEquals(remoteVa, r.remoteVa());
        assertEquals(sinkVa, r.sinkVa());
    }

    @Property
    void ackHeaderRoundTrip(@ForAll @IntRange(max = 64) int at, @ForAll int cumPsn,
                            @ForAll @IntRange(max = 0xffff) int ceCount, @ForAll @IntRange(max = 0xffff) int reserved,
                            @ForAll long echo, @ForAll int grantMbps, @ForAll int rxMsn, @ForAll long w0,
                            @ForAll long w1, @ForAll long w2, @ForAll long w3, @ForAll long noise) {
        Guarded g = new Guarded(at, AckHeader.LENGTH, noise);
        new AckHeader().wrap(g.seg, at).cumPsn(cumPsn).ceCount(ceCount).reserved(reserved).echoTimestampNs(echo)
                .grantMbps(grantMbps).rxMsn(rxMsn).sackWord(0, w0).sackWord(1, w1).sackWord(2, w2).sackWord(3, w3);
        g.assertGuardsIntact();
        AckHeader a = new AckHeader().wrap(g.seg, at);
        assertEquals(cumPsn, a.cumPsn());
        assertEquals(ceCount, a.ceCount());
        assertEquals(reserved, a.reserved());
        assertEquals(echo, a.echoTimestampNs());
        assertEquals(grantMbps, a.grantMbps());
        assertEquals(rxMsn, a.rxMsn());
        long[] words = {w0, w1, w2, w3};
        for (int w = 0; w < 4; w++) {
            assertEquals(words[w], a.sackWord(w));
        }
        // SACK-1: bit b of word w (b = 0 least significant) is PSN cum + 1 + 64w + b
        for (int i = 0; i < AckHeader.SACK_BITS; i++) {
            assertEquals((words[i / 64] >>> (i % 64) & 1L) == 1L, a.sacked(i), "bit " + i);
        }
    }

    @Property
    void ackCeCountSaturates(@ForAll @IntRange(min = 0xffff) int ceCount) {
        AckHeader a = new AckHeader().wrap(MemorySegment.ofArray(new byte[AckHeader.LENGTH]), 0).ceCount(ceCount);
        assertEquals(0xffff, a.ceCount());
    }

    @Property
    void nakHeaderRoundTrip(@ForAll @IntRange(max = 64) int at, @ForAll int msn, @ForAll @IntRange(max = 0xff) int code,
                            @ForAll @IntRange(max = 0xffffff) int reserved, @ForAll int nakPsn, @ForAll int offset,
                            @ForAll long noise) {
        Guarded g = new Guarded(at, NakHeader.LENGTH, noise);
        new NakHeader().wrap(g.seg, at).msn(msn).code(code).reserved(reserved).nakPsn(nakPsn).offset(offset);
        g.assertGuardsIntact();
        NakHeader k = new NakHeader().wrap(g.seg, at);
        assertEquals(msn, k.msn());
        assertEquals(code, k.code());
        assertEquals(reserved, k.reserved());
        assertEquals(nakPsn, k.nakPsn());
        assertEquals(offset, k.offset());
    }

    @Property
    void probeHeaderRoundTrip(@ForAll @IntRange(max = 64) int at, @ForAll long probeId, @ForAll long echo,
                              @ForAll long noise) {
        Guarded g = new Guarded(at, ProbeHeader.LENGTH, noise);
        new ProbeHeader().wrap(g.seg, at).probeId(probeId).echoTimestampNs(echo);
        g.assertGuardsIntact();
        ProbeHeader p = new ProbeHeader().wrap(g.seg, at);
        assertEquals(probeId, p.probeId());
        assertEquals(echo, p.echoTimestampNs());
    }

    @Property
    void parityHeaderRoundTrip(@ForAll @IntRange(max = 64) int at, @ForAll int msn, @ForAll int messageLength,
                               @ForAll int offset, @ForAll int rkey, @ForAll long va, @ForAll int rsn,
                               @ForAll int immediate, @ForAll @IntRange(max = 0xff) int op,
                               @ForAll @IntRange(max = 0xff) int count, @ForAll @IntRange(max = 0xffff) int reserved,
                               @ForAll long noise) {
        Guarded g = new Guarded(at, ParityHeader.LENGTH, noise);
        new ParityHeader().wrap(g.seg, at).msn(msn).messageLength(messageLength).offset(offset).rkey(rkey).va(va)
                .rsn(rsn).immediate(immediate).op(op).count(count).reserved(reserved);
        g.assertGuardsIntact();
        ParityHeader q = new ParityHeader().wrap(g.seg, at);
        assertEquals(msn, q.msn());
        assertEquals(messageLength, q.messageLength());
        assertEquals(offset, q.offset());
        assertEquals(rkey, q.rkey());
        assertEquals(va, q.va());
        assertEquals(rsn, q.rsn());
        assertEquals(immediate, q.immediate());
        assertEquals(op, q.op());
        assertEquals(count, q.count());
        assertEquals(reserved, q.reserved());
        // WIRE-22: the first 32 bytes are laid out as the data header's (WIRE-2), then op, count and reserved
        DataHeader d = new DataHeader().wrap(g.seg, at);
        assertEquals(msn, d.msn());
        assertEquals(offset, d.offset());
        assertEquals(va, d.va());
        assertEquals(immediate, d.immediate());
        assertEquals((byte) op, g.seg.get(ValueLayout.JAVA_BYTE, at + 32));
        assertEquals((byte) count, g.seg.get(ValueLayout.JAVA_BYTE, at + 33));
        assertEquals((byte) (reserved >>> 8), g.seg.get(ValueLayout.JAVA_BYTE, at + 34));
    }

    // ---- CmMessage ----

    @Property
    void cmMessageRoundTrip(@ForAll("cmMessages") CmMessage m, @ForAll @IntRange(max = 64) int at,
                            @ForAll long noise) {
        Guarded g = new Guarded(at, m.encodedLength(), noise);
        assertEquals(CmHeader.FIXED_LENGTH + CmHeader.PLANE_ENTRY_LENGTH * m.planes().size(), m.encodedLength());
        assertEquals(m.encodedLength(), m.emit(g.seg, at));
        g.assertGuardsIntact();
        CmMessage back = CmMessage.parse(m.opcode(), g.seg, at, m.encodedLength() - CmHeader.FIXED_LENGTH);
        assertEquals(m, back);
        assertEquals(m.hashCode(), back.hashCode());
        for (int i = 0; i < m.planes().size(); i++) {
            long e = at + CmHeader.FIXED_LENGTH + (long) i * CmHeader.PLANE_ENTRY_LENGTH;
            byte[] a = m.planes().get(i);
            assertEquals(a.length == 4 ? 4 : 6, g.seg.get(ValueLayout.JAVA_BYTE, e), "family");
            assertEquals(0, g.seg.get(ValueLayout.JAVA_BYTE, e + 1), "reserved");
            for (int j = a.length; j < 16; j++) {
                assertEquals(0, g.seg.get(ValueLayout.JAVA_BYTE, e + 2 + j), "IPv4 padding");
            }
        }
    }

    @Property
    void cmMessageInASealedDatagramChecksAndParses(@ForAll("cmMessages") CmMessage m, @ForAll int srcQpn,
                                                   @ForAll long timestampNs) {
        int entries = m.encodedLength() - CmHeader.FIXED_LENGTH;
        byte[] bytes = new byte[BaseHeader.LENGTH + m.encodedLength() + Packet.CRC_LENGTH];
        MemorySegment seg = MemorySegment.ofArray(bytes);
        new BaseHeader().wrap(seg, 0).version(Packet.VERSION).opcode(m.opcode()).payloadLength(entries)
                .srcQpn(srcQpn).timestampNs(timestampNs);
        m.emit(seg, BaseHeader.LENGTH);
        assertEquals(bytes.length, packet.seal(seg, bytes.length - Packet.CRC_LENGTH));
        assertEquals(Packet.OK, packet.check(seg, bytes.length));
        assertEquals(m, CmMessage.parse(m.opcode(), seg, BaseHeader.LENGTH, entries));
    }

    @Property
    void cmParseOfArbitraryBytesReturnsOrThrowsMalformed(@ForAll("cmOpcodes") int opcode,
                                                         @ForAll @IntRange(max = 20) int entries,
                                                         @ForAll @IntRange(max = 400) int entryBytes,
                                                         @ForAll long seed, @ForAll boolean plausible) {
        int bytesAfterFixed = Math.min(entryBytes, entries * CmHeader.PLANE_ENTRY_LENGTH);
        byte[] bytes = new byte[CmHeader.FIXED_LENGTH + entries * CmHeader.PLANE_ENTRY_LENGTH];
        Random r = new Random(seed);
        r.nextBytes(bytes);
        if (plausible) {
            // steer towards deeper code: a consistent count and valid families most of the time
            bytes[CmHeader.PLANE_COUNT] = (byte) entries;
            for (int i = 0; i < entries; i++) {
                bytes[CmHeader.FIXED_LENGTH + i * CmHeader.PLANE_ENTRY_LENGTH] = (byte) (r.nextInt(10) == 0 ? 5
                        : r.nextBoolean() ? 4 : 6);
            }
            if (r.nextBoolean()) {
                bytes[CmHeader.PATHS] = 0;
                bytes[CmHeader.PATHS + 1] = (byte) (1 + r.nextInt(255));
            }
            bytesAfterFixed = entries * CmHeader.PLANE_ENTRY_LENGTH;
        }
        MemorySegment seg = MemorySegment.ofArray(bytes);
        CmMessage m;
        try {
            m = CmMessage.parse(opcode, seg, 0, bytesAfterFixed);
        } catch (MalformedPacketException e) {
            Statistics.label("parse").collect("malformed");
            return;
        }
        Statistics.label("parse").collect("ok");
        // whatever parsed is a valid message that re-emits to the same fixed part
        assertEquals(bytesAfterFixed, m.encodedLength() - CmHeader.FIXED_LENGTH);
        byte[] again = new byte[m.encodedLength()];
        m.emit(MemorySegment.ofArray(again), 0);
        assertArrayEquals(Arrays.copyOf(bytes, CmHeader.FIXED_LENGTH),
                Arrays.copyOf(again, CmHeader.FIXED_LENGTH));
    }

    @Example
    void cmParseRejectsBadFields() {
        CmMessage good = new CmMessage(Opcode.CM_REQ, 7L, 1, 0, 0, 1024, 4, 0, 4793, 0,
                List.of(new byte[] {10, 0, 0, 1}));
        byte[] bytes = new byte[good.encodedLength()];
        MemorySegment seg = MemorySegment.ofArray(bytes);
        good.emit(seg, 0);
        int entries = CmHeader.PLANE_ENTRY_LENGTH;
        assertEquals(good, CmMessage.parse(Opcode.CM_REQ, seg, 0, entries));
        // entry bytes disagree with the plane count
        assertThrows(MalformedPacketException.class, () -> CmMessage.parse(Opcode.CM_REQ, seg, 0, 0));
        // paths 0 and 257 in a REQ / REP
        seg.set(ValueLayout.JAVA_SHORT_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN), CmHeader.PATHS, (short) 0);
        assertThrows(MalformedPacketException.class, () -> CmMessage.parse(Opcode.CM_REQ, seg, 0, entries));
        assertThrows(MalformedPacketException.class, () -> CmMessage.parse(Opcode.CM_REP, seg, 0, entries));
        seg.set(ValueLayout.JAVA_SHORT_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN), CmHeader.PATHS, (short) 257);
        assertThrows(MalformedPacketException.class, () -> CmMessage.parse(Opcode.CM_REQ, seg, 0, entries));
        seg.set(ValueLayout.JAVA_SHORT_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN), CmHeader.PATHS, (short) 256);
        assertEquals(256, CmMessage.parse(Opcode.CM_REQ, seg, 0, entries).paths());
        // an unknown address family
        bytes[CmHeader.FIXED_LENGTH] = 5;
        assertThrows(MalformedPacketException.class, () -> CmMessage.parse(Opcode.CM_REQ, seg, 0, entries));
        // a REQ or REP that lists no plane; an RTU may
        byte[] none = new byte[CmHeader.FIXED_LENGTH];
        MemorySegment noneSeg = MemorySegment.ofArray(none);
        new CmMessage(Opcode.CM_RTU, 7L, 1, 2, 0, 0, 1, 0, 0, 0, List.of()).emit(noneSeg, 0);
        assertEquals(0, CmMessage.parse(Opcode.CM_RTU, noneSeg, 0, 0).planes().size());
        assertThrows(MalformedPacketException.class, () -> CmMessage.parse(Opcode.CM_REQ, noneSeg, 0, 0));
        assertThrows(MalformedPacketException.class, () -> CmMessage.parse(Opcode.CM_REP, noneSeg, 0, 0));
        // more than MAX_PLANES
        byte[] many = new byte[CmHeader.FIXED_LENGTH + 17 * CmHeader.PLANE_ENTRY_LENGTH];
        many[CmHeader.PLANE_COUNT] = 17;
        assertThrows(MalformedPacketException.class, () -> CmMessage.parse(Opcode.CM_DREQ,
                MemorySegment.ofArray(many), 0, 17 * CmHeader.PLANE_ENTRY_LENGTH));
    }

    @Example
    void cmMessageRejectsInvalidConstruction() {
        assertThrows(IllegalArgumentException.class, () -> new CmMessage(Opcode.ACK, 1L, 1, 2, 0, 1024, 1, 0, 1, 0,
                List.of(new byte[4])));
        assertThrows(IllegalArgumentException.class, () -> new CmMessage(Opcode.CM_REQ, 1L, 1, 2, 0, 1024, 1, 0, 1, 0,
                List.of(new byte[5])));
        List<byte[]> seventeen = new ArrayList<>();
        for (int i = 0; i < 17; i++) {
            seventeen.add(new byte[4]);
        }
        assertThrows(IllegalArgumentException.class, () -> new CmMessage(Opcode.CM_REQ, 1L, 1, 2, 0, 1024, 1, 0, 1, 0,
                seventeen));
    }

    // ---- Packet: seal, check, CRC ----

    @Property
    void sealThenCheckIsOk(@ForAll("datagrams") byte[] bytes) {
        assertEquals(Packet.OK, packet.check(MemorySegment.ofArray(bytes), bytes.length));
    }

    @Property
    void anySingleBitFlipIsBadCrc(@ForAll("datagrams") byte[] bytes,
                                  @ForAll @IntRange(max = Integer.MAX_VALUE) int pick) {
        int bit = pick % (bytes.length * 8);
        bytes[bit >>> 3] ^= (byte) (1 << (bit & 7));
        assertEquals(Packet.BAD_CRC, packet.check(MemorySegment.ofArray(bytes), bytes.length), "bit " + bit);
    }

    @Property
    void crc32cMatchesAnIndependentImplementation(@ForAll("sizedBytes") byte[] bytes) {
        assertEquals(GoldenVectorTest.bitwiseCrc32c(bytes, bytes.length),
                packet.crc32c(MemorySegment.ofArray(bytes), bytes.length));
    }

    @Property
    void checkNeverThrowsOnRandomBytes(@ForAll("sizedBytes") byte[] bytes,
                                       @ForAll @IntRange(min = -16, max = 16) int skew, @ForAll boolean nativeMemory) {
        int length = bytes.length + skew;
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment seg = nativeMemory ? arena.allocate(Math.max(1, bytes.length)).copyFrom(
                    MemorySegment.ofArray(bytes)).asSlice(0, bytes.length) : MemorySegment.ofArray(bytes);
            int result = packet.check(seg, length);
            assertEquals(expectedCheck(bytes, length), result);
        }
    }

    @Property
    @StatisticsReport(StatisticsReportMode.OFF)
    void checkFollowsTheValidationOrder(@ForAll("plausibleDatagrams") byte[] bytes) {
        int expected = expectedCheck(bytes, bytes.length);
        int result = packet.check(MemorySegment.ofArray(bytes), bytes.length);
        Statistics.label("result").collect(Packet.checkName(result));
        assertEquals(expected, result);
        Statistics.label("result").coverage(c -> {
            for (String name : List.of("OK", "TRUNCATED", "BAD_CRC", "BAD_VERSION", "BAD_OPCODE", "BAD_LENGTH")) {
                c.check(name).count(n -> n > 0);
            }
        });
    }

    @Property(tries = 200)
    void checkResultDoesNotDependOnEarlierSegments(@ForAll("datagrams") byte[] a, @ForAll("datagrams") byte[] b) {
        // Packet caches the last segment's buffer view; the same segment with new contents must be re-read.
        MemorySegment segA = MemorySegment.ofArray(a);
        MemorySegment segB = MemorySegment.ofArray(b);
        assertEquals(Packet.OK, packet.check(segA, a.length));
        assertEquals(Packet.OK, packet.check(segB, b.length));
        a[0] ^= 0x40;
        assertEquals(Packet.BAD_CRC, packet.check(segA, a.length));
        a[0] ^= 0x40;
        assertEquals(Packet.OK, packet.check(segA, a.length));
        assertEquals(new Packet().check(segB, b.length), packet.check(segB, b.length));
    }

    @Example
    void checkRejectsLengthsOutsideTheSegment() {
        byte[] bytes = new byte[64];
        MemorySegment seg = MemorySegment.ofArray(bytes);
        for (int length : new int[] {Integer.MIN_VALUE, -1, 0, 35, 65, Integer.MAX_VALUE}) {
            assertEquals(Packet.TRUNCATED, packet.check(seg, length), "length " + length);
        }
        assertEquals(Packet.TRUNCATED, packet.check(MemorySegment.ofArray(new byte[0]), 0));
    }

    @Example
    void datagramLengthMatchesTheOpcodeTable() {
        for (int op = 0; op < 256; op++) {
            assertEquals(SPEC_EXTENSION[op], Opcode.extensionLength(op), Opcode.name(op));
            assertEquals(SPEC_EXTENSION[op] >= 0, !Opcode.name(op).startsWith("UNKNOWN"));
        }
        for (int op : OPCODES) {
            assertEquals(BaseHeader.LENGTH + SPEC_EXTENSION[op] + 100 + 4, Packet.datagramLength(op, 100));
        }
        assertEquals(36, Packet.MIN_LENGTH);
        assertTrue(Opcode.isData(Opcode.READ_RESP) && !Opcode.isData(Opcode.READ_REQ));
        // what a simulation may elide: user data, i.e. the data opcodes, PARITY, PARITY_Q and PARITY_R (REL-18,
        // REL-20, REL-21)
        for (int op = 0; op < 256; op++) {
            assertEquals(Opcode.isData(op) || op == 0x08 || op == 0x09 || op == 0x0A, Opcode.hasUserPayload(op),
                    Opcode.name(op));
        }
        assertTrue(!Opcode.isData(Opcode.PARITY) && !Opcode.consumesReceive(Opcode.PARITY));
        assertEquals(-1, Opcode.extensionLength(0x07), "0x07 stays undefined (vector N-4)");
    }

    // ---- generators ----

    @Provide
    Arbitrary<Integer> cmOpcodes() {
        return Arbitraries.of(Arrays.stream(CM_OPCODES).boxed().toList());
    }

    @Provide
    Arbitrary<CmMessage> cmMessages() {
        Arbitrary<byte[]> address = Arbitraries.oneOf(List.of(Arbitraries.bytes().array(byte[].class).ofSize(4),
                Arbitraries.bytes().array(byte[].class).ofSize(16)));
        Arbitrary<Integer> opcode = cmOpcodes();
        Arbitrary<Long> connectionId = Arbitraries.longs();
        Arbitrary<Integer> qpn = Arbitraries.integers();
        Arbitrary<Integer> u16 = Arbitraries.integers().between(0, 0xffff);
        Arbitrary<Integer> u8 = Arbitraries.integers().between(0, 0xff);
        Arbitrary<List<byte[]>> planes = address.list().ofMaxSize(CmHeader.MAX_PLANES);
        Arbitrary<int[]> ints = Combinators.combine(qpn, qpn, qpn, u16, u16, qpn, u16, u8)
                .as((a, b, c, d, e, f, g, h) -> new int[] {a, b, c, d, e, f, g, h});
        return Combinators.combine(opcode, connectionId, ints, planes).as((op, id, v, ps) -> {
            boolean reqOrRep = op == Opcode.CM_REQ || op == Opcode.CM_REP;
            int paths = reqOrRep ? 1 + v[4] % 256 : v[4];
            List<byte[]> list = reqOrRep && ps.isEmpty() ? List.of(new byte[] {10, 0, 0, 1}) : ps;
            return new CmMessage(op, id, v[0], v[1], v[2], v[3], paths, v[5], v[6], v[7], list);
        });
    }

    @Provide
    Arbitrary<byte[]> sizedBytes() {
        return Arbitraries.frequencyOf(List.of(kv(3, Arbitraries.integers().between(0, 100)),
                        kv(2, Arbitraries.integers().between(0, 9000))))
                .flatMap(n -> Arbitraries.bytes().array(byte[].class).ofSize(n));
    }

    /** Sealed valid datagrams of every opcode, payload 0..9000 bytes (CM: 0..16 plane entries). */
    @Provide
    Arbitrary<byte[]> datagrams() {
        Arbitrary<Integer> op = Arbitraries.of(Arrays.stream(OPCODES).boxed().toList());
        Arbitrary<Integer> payload = Arbitraries.frequencyOf(List.of(kv(3, Arbitraries.integers().between(0, 64)),
                kv(1, Arbitraries.integers().between(0, 9000))));
        return Combinators.combine(op, payload, Arbitraries.longs()).as((o, p, seed) -> {
            Random r = new Random(seed);
            int payloadLength = Opcode.isCm(o) ? CmHeader.PLANE_ENTRY_LENGTH * (p % 17) : p;
            byte[] bytes = new byte[Packet.datagramLength(o, payloadLength)];
            r.nextBytes(bytes);
            MemorySegment seg = MemorySegment.ofArray(bytes);
            new BaseHeader().wrap(seg, 0).version(Packet.VERSION).opcode(o).payloadLength(payloadLength);
            new Packet().seal(seg, bytes.length - Packet.CRC_LENGTH);
            return bytes;
        });
    }

    /** Datagrams near the validity boundary: each check outcome is likely (see the coverage check). */
    @Provide
    Arbitrary<byte[]> plausibleDatagrams() {
        Arbitrary<Integer> known = Arbitraries.of(Arrays.stream(OPCODES).boxed().toList());
        Arbitrary<Integer> op = Arbitraries.frequencyOf(List.of(kv(8, known),
                kv(2, Arbitraries.integers().between(0, 255))));
        Arbitrary<Integer> version = Arbitraries.frequencyOf(List.of(kv(9, Arbitraries.just(1)),
                kv(1, Arbitraries.integers().between(0, 255))));
        Arbitrary<Integer> payload = Arbitraries.integers().between(0, 300);
        Arbitrary<Integer> lengthSkew = Arbitraries.frequencyOf(List.of(kv(6, Arbitraries.just(0)),
                kv(2, Arbitraries.integers().between(-80, 80)), kv(1, Arbitraries.integers().between(-400, 0))));
        Arbitrary<Boolean> seal = Arbitraries.frequencyOf(List.of(kv(9, Arbitraries.just(true)),
                kv(1, Arbitraries.just(false))));
        return Combinators.combine(op, version, payload, lengthSkew, seal, Arbitraries.longs())
                .as((o, v, p, skew, sealIt, seed) -> {
                    int ext = SPEC_EXTENSION[o] < 0 ? 32 : SPEC_EXTENSION[o];
                    int length = Math.max(0, BaseHeader.LENGTH + ext + p + Packet.CRC_LENGTH + skew);
                    byte[] bytes = new byte[length];
                    new Random(seed).nextBytes(bytes);
                    MemorySegment seg = MemorySegment.ofArray(bytes);
                    if (length >= BaseHeader.LENGTH) {
                        new BaseHeader().wrap(seg, 0).version(v).opcode(o).payloadLength(p);
                    }
                    if (sealIt && length >= Packet.MIN_LENGTH) {
                        new Packet().seal(seg, length - Packet.CRC_LENGTH);
                    }
                    return bytes;
                });
    }

    private static <T> Tuple2<Integer, Arbitrary<T>> kv(int weight, Arbitrary<T> a) {
        return Tuple.of(weight, a);
    }

    // ---- the spec's validation order (WIRE-8), written independently of Packet ----

    static int expectedCheck(byte[] b, int length) {
        if (length < 36 || length > b.length) {
            return Packet.TRUNCATED;
        }
        int carried = (b[length - 4] & 0xff) << 24 | (b[length - 3] & 0xff) << 16 | (b[length - 2] & 0xff) << 8
                | (b[length - 1] & 0xff);
        if (carried != GoldenVectorTest.bitwiseCrc32c(b, length - 4)) {
            return Packet.BAD_CRC;
        }
        if ((b[0] & 0xff) != 1) {
            return Packet.BAD_VERSION;
        }
        int ext = SPEC_EXTENSION[b[1] & 0xff];
        if (ext < 0) {
            return Packet.BAD_OPCODE;
        }
        if (length < 32 + ext + 4) {
            return Packet.TRUNCATED;
        }
        int payloadLength = (b[10] & 0xff) << 8 | (b[11] & 0xff);
        boolean authFlag = (b[3] & 0x10) != 0; // AUTH-2: flag AUTH (0x0010) admits the 24-byte AUTH trailer
        int natural = 32 + ext + payloadLength + 4;
        return length == natural || authFlag && length == natural + 24 ? Packet.OK : Packet.BAD_LENGTH;
    }

    /** A segment with {@code GUARD} noise bytes around a view of {@code length} bytes at {@code at}. */
    private static final class Guarded {
        final MemorySegment seg;
        private final byte[] bytes;
        private final byte[] before;
        private final int at;
        private final int length;

        Guarded(int at, int length, long noise) {
            this.at = at;
            this.length = length;
            this.bytes = new byte[at + length + GUARD];
            new Random(noise).nextBytes(bytes);
            this.before = bytes.clone();
            this.seg = MemorySegment.ofArray(bytes);
        }

        void assertGuardsIntact() {
            for (int i = 0; i < bytes.length; i++) {
                if (i < at || i >= at + length) {
                    assertEquals(before[i], bytes[i], "byte " + i + " outside the view was written");
                }
            }
        }
    }
}
