package io.metaroce.core.wire;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.metaroce.core.wire.GoldenVectors.Vector;
import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HexFormat;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Keeps the golden vectors of spec section 09 honest (spec WIRE-1 to WIRE-9): the codecs still build the stored
 * bytes, every stored vector passes {@link Packet#check} and reads back the documented field values, the trailer
 * is a CRC32C computed independently of the codec, and the spec page shows exactly the stored dumps.
 */
class GoldenVectorTest {
    private static final ValueLayout.OfInt U32 = ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);

    private final Packet packet = new Packet();

    // ---- (a) the codecs still produce the stored bytes ----

    @ParameterizedTest
    @EnumSource(Vector.class)
    void codecsBuildTheStoredBytes(Vector v) throws IOException {
        byte[] stored = GoldenVectors.parseDump(GoldenVectors.resource(v));
        byte[] built = v.build();
        assertEquals(GoldenVectors.hexDump(stored), GoldenVectors.hexDump(built), v + " differs from golden/"
                + v.fileName() + "; a wire change needs a new version (WIRE-10), not new vectors");
    }

    @ParameterizedTest
    @EnumSource(Vector.class)
    void storedFileIsInCanonicalDumpFormat(Vector v) throws IOException {
        String text = GoldenVectors.resource(v);
        assertEquals(GoldenVectors.hexDump(GoldenVectors.parseDump(text)), text);
    }

    // ---- (b) every stored vector is valid and parses to its documented fields ----

    @ParameterizedTest
    @EnumSource(Vector.class)
    void storedVectorPassesCheck(Vector v) throws IOException {
        byte[] bytes = stored(v);
        MemorySegment seg = MemorySegment.ofArray(bytes);
        assertEquals(Packet.OK, packet.check(seg, bytes.length), Packet.checkName(packet.check(seg, bytes.length)));
        BaseHeader b = new BaseHeader().wrap(seg, 0);
        assertEquals(Packet.VERSION, b.version());
        assertEquals(v.opcode, b.opcode());
        assertEquals(BaseHeader.LENGTH + Opcode.extensionLength(v.opcode) + b.payloadLength() + Packet.CRC_LENGTH,
                bytes.length);
    }

    @ParameterizedTest
    @EnumSource(Vector.class)
    void trailerIsCrc32cComputedIndependently(Vector v) throws IOException {
        byte[] bytes = stored(v);
        int n = bytes.length - Packet.CRC_LENGTH;
        assertEquals(bitwiseCrc32c(bytes, n), MemorySegment.ofArray(bytes).get(U32, n));
    }

    @ParameterizedTest
    @EnumSource(Vector.class)
    void everySingleBitFlipIsBadCrc(Vector v) throws IOException {
        byte[] bytes = stored(v);
        MemorySegment seg = MemorySegment.ofArray(bytes);
        for (int bit = 0; bit < bytes.length * 8; bit++) {
            bytes[bit >>> 3] ^= (byte) (1 << (bit & 7));
            assertEquals(Packet.BAD_CRC, packet.check(seg, bytes.length), "bit " + bit);
            bytes[bit >>> 3] ^= (byte) (1 << (bit & 7));
        }
        assertEquals(Packet.OK, packet.check(seg, bytes.length));
    }

    @Test
    void crc32cKnownAnswer() {
        // The standard check value of CRC-32C (Castagnoli): crc("123456789") = 0xe3069283 (spec WIRE-9).
        byte[] nine = "123456789".getBytes(StandardCharsets.US_ASCII);
        assertEquals(0xe3069283, packet.crc32c(MemorySegment.ofArray(nine), nine.length));
        assertEquals(0xe3069283, bitwiseCrc32c(nine, nine.length));
    }

    @Test
    void writeFields() throws IOException {
        MemorySegment s = checked(Vector.WRITE);
        assertBase(s, Opcode.WRITE, 0x000b, 0x00000b02, 0, 16, 0x00001000, 0x00001000, 0x00000a01, 1_000_000_000L);
        assertData(s, 0, 16, 0, 0x1234abcd, 0x00007f0000001000L, 0, 0);
        assertPayload(s, Opcode.WRITE, "MetaRoCE-J WRITE");
        assertCrc(s, 0x8ae89704);
    }

    @Test
    void writeImmFields() throws IOException {
        MemorySegment s = checked(Vector.WRITE_IMM);
        assertBase(s, Opcode.WRITE_IMM, 0x0009, 0x00000b02, 1, 16, 0x00001000, 0x00001000, 0x00000a01,
                1_000_001_000L);
        assertData(s, 1, 1040, 1024, 0x1234abcd, 0x00007f0000002400L, 0, 0xdeadbeef);
        assertPayload(s, Opcode.WRITE_IMM, "tail of WRITEIMM");
    }

    @Test
    void sendFields() throws IOException {
        MemorySegment s = checked(Vector.SEND);
        assertBase(s, Opcode.SEND, 0x000f, 0x00000b02, 2, 12, 0x00001003, 0x00001001, 0x00000a01, 1_000_002_000L);
        assertData(s, 2, 12, 0, 0, 0L, 1, 0);
        assertPayload(s, Opcode.SEND, "hello, world");
    }

    @Test
    void sendImmFields() throws IOException {
        MemorySegment s = checked(Vector.SEND_IMM);
        assertBase(s, Opcode.SEND_IMM, 0x000b, 0x00000b02, 3, 0, 0x00001000, 0x00001000, 0x00000a01,
                1_000_003_000L);
        assertData(s, 3, 0, 0, 0, 0L, 2, 0x42);
        assertEquals(BaseHeader.LENGTH + DataHeader.LENGTH + Packet.CRC_LENGTH, s.byteSize());
    }

    @Test
    void readRequestFields() throws IOException {
        MemorySegment s = checked(Vector.READ_REQ);
        assertBase(s, Opcode.READ_REQ, 0x000b, 0x00000b02, 0, 0, 0x00001001, 0x00001000, 0x00000a01,
                1_000_004_000L);
        ReadRequestHeader r = new ReadRequestHeader().wrap(s, BaseHeader.LENGTH);
        assertEquals(4, r.msn());
        assertEquals(1032, r.readLength());
        assertEquals(0x1234abcd, r.rkey());
        assertEquals(0, r.reserved());
        assertEquals(0x00007f0000010000L, r.remoteVa());
        assertEquals(0x0000550000020000L, r.sinkVa());
    }

    @Test
    void readResponseFields() throws IOException {
        MemorySegment s = checked(Vector.READ_RESP);
        assertBase(s, Opcode.READ_RESP, 0x0009, 0x00000a01, 5, 8, 0x00002001, 0x00002000, 0x00000b02,
                1_000_005_000L);
        // va = the READ's sink va + offset (spec WIRE-2, VERBS-*); the MSN is the READ's.
        assertData(s, 4, 1032, 1024, 0, 0x0000550000020000L + 1024, 0, 0);
        assertPayload(s, Opcode.READ_RESP, "READDATA");
    }

    @Test
    void ackFields() throws IOException {
        MemorySegment s = checked(Vector.ACK);
        assertBase(s, Opcode.ACK, 0, 0x00000a01, 0, 0, 0, 0, 0x00000b02, 1_000_006_000L);
        AckHeader a = new AckHeader().wrap(s, BaseHeader.LENGTH);
        assertEquals(0x00001000, a.cumPsn());
        assertEquals(2, a.ceCount());
        assertEquals(0, a.reserved());
        assertEquals(1_000_005_500L, a.echoTimestampNs());
        assertEquals(50_000, a.grantMbps());
        assertEquals(1, a.rxMsn());
        assertEquals(0x000000000000000eL, a.sackWord(0));
        assertEquals(0L, a.sackWord(1));
        assertEquals(0L, a.sackWord(2));
        assertEquals(0x8000000000000000L, a.sackWord(3));
        // Bit b of word w covers PSN cum + 1 + 64w + b (spec SACK-1): 0x1002..0x1004 and 0x1100 accepted.
        for (int i = 0; i < AckHeader.SACK_BITS; i++) {
            boolean expected = i == 1 || i == 2 || i == 3 || i == 255;
            assertEquals(expected, a.sacked(i), "PSN cum+1+" + i);
        }
    }

    @Test
    void nakFields() throws IOException {
        MemorySegment s = checked(Vector.NAK);
        assertBase(s, Opcode.NAK, 0, 0x00000a01, 0, 0, 0, 0, 0x00000b02, 1_000_007_000L);
        NakHeader k = new NakHeader().wrap(s, BaseHeader.LENGTH);
        assertEquals(5, k.msn());
        assertEquals(NakHeader.CODE_BAD_RKEY, k.code());
        assertEquals(2, k.code());
        assertEquals(0, k.reserved());
        assertEquals(0x00001005, k.nakPsn());
        assertEquals(0, k.offset());
    }

    @Test
    void probeFields() throws IOException {
        MemorySegment s = checked(Vector.PROBE);
        assertBase(s, Opcode.PROBE, 0, 0x00000b02, 7, 0, 0, 0, 0x00000a01, 1_000_008_000L);
        ProbeHeader p = new ProbeHeader().wrap(s, BaseHeader.LENGTH);
        assertEquals(42L, p.probeId());
        assertEquals(0L, p.echoTimestampNs());
    }

    @Test
    void probeReplyFields() throws IOException {
        MemorySegment s = checked(Vector.PROBE_REPLY);
        assertBase(s, Opcode.PROBE_REPLY, 0, 0x00000a01, 7, 0, 0, 0, 0x00000b02, 1_000_009_000L);
        ProbeHeader p = new ProbeHeader().wrap(s, BaseHeader.LENGTH);
        assertEquals(42L, p.probeId());
        assertEquals(1_000_008_000L, p.echoTimestampNs());
    }

    @Test
    void cmRequestFields() throws IOException {
        MemorySegment s = checked(Vector.CM_REQ);
        assertBase(s, Opcode.CM_REQ, 0, 0, 0, 36, 0, 0, 0x00000a01, 1_000_010_000L);
        CmMessage m = CmMessage.parse(Opcode.CM_REQ, s, BaseHeader.LENGTH, 36);
        assertEquals(new CmMessage(Opcode.CM_REQ, 0x0123456789abcdefL, 0x00000a01, 0, 0x00001000, 4096, 64, 0,
                4793, 0, List.of(new byte[] {10, 0, 0, 1}, ipv6("fd000001000000000000000000000001"))), m);
        assertEquals(4, s.get(ValueLayout.JAVA_BYTE, BaseHeader.LENGTH + CmHeader.FIXED_LENGTH));
        assertEquals(6, s.get(ValueLayout.JAVA_BYTE, BaseHeader.LENGTH + CmHeader.FIXED_LENGTH
                + CmHeader.PLANE_ENTRY_LENGTH));
    }

    @Test
    void cmReplyFields() throws IOException {
        MemorySegment s = checked(Vector.CM_REP);
        assertBase(s, Opcode.CM_REP, 0, 0x00000a01, 0, 36, 0, 0, 0x00000b02, 1_000_011_000L);
        CmMessage m = CmMessage.parse(Opcode.CM_REP, s, BaseHeader.LENGTH, 36);
        assertEquals(new CmMessage(Opcode.CM_REP, 0x0123456789abcdefL, 0x00000b02, 0x00000a01, 0x00002000, 1024, 16,
                0, 4793, 0, List.of(new byte[] {10, 0, 0, 2}, ipv6("fd000001000000000000000000000002"))), m);
    }

    @Test
    void cmReadyToUseFields() throws IOException {
        MemorySegment s = checked(Vector.CM_RTU);
        assertBase(s, Opcode.CM_RTU, 0, 0x00000b02, 0, 0, 0, 0, 0x00000a01, 1_000_012_000L);
        assertEquals(new CmMessage(Opcode.CM_RTU, 0x0123456789abcdefL, 0x00000a01, 0x00000b02, 0, 0, 0, 0, 0, 0,
                List.of()), CmMessage.parse(Opcode.CM_RTU, s, BaseHeader.LENGTH, 0));
    }

    @Test
    void cmDisconnectFields() throws IOException {
        MemorySegment s = checked(Vector.CM_DREQ);
        assertBase(s, Opcode.CM_DREQ, 0, 0x00000b02, 0, 0, 0, 0, 0x00000a01, 1_000_013_000L);
        assertEquals(new CmMessage(Opcode.CM_DREQ, 0x0123456789abcdefL, 0x00000a01, 0x00000b02, 0, 0, 0, 0, 0, 0,
                List.of()), CmMessage.parse(Opcode.CM_DREQ, s, BaseHeader.LENGTH, 0));
    }

    @Test
    void cmRejectFields() throws IOException {
        MemorySegment s = checked(Vector.CM_REJ);
        assertBase(s, Opcode.CM_REJ, 0, 0x00000a01, 0, 0, 0, 0, 0, 1_000_014_000L);
        assertEquals(new CmMessage(Opcode.CM_REJ, 0x0123456789abcdf0L, 0, 0x00000a01, 0, 0, 0, 0, 0, 2, List.of()),
                CmMessage.parse(Opcode.CM_REJ, s, BaseHeader.LENGTH, 0));
    }

    @Test
    void cmReqWithCapabilities() throws IOException {
        MemorySegment s = checked(Vector.CM_REQ_CAPS);
        assertBase(s, Opcode.CM_REQ, 0, 0, 0, 18, 0, 0, 0x00000a01, 1_000_015_000L);
        CmMessage m = CmMessage.parse(Opcode.CM_REQ, s, BaseHeader.LENGTH, 18);
        assertEquals(0x80000001, m.capabilities());
        assertEquals(CmMessage.CAP_AUTH, m.capabilities() & CmMessage.CAP_AUTH);
        assertEquals(0x0123456789abcdf1L, m.connectionId());
        assertEquals(1024, m.mtu());
        assertEquals(16, m.paths());
    }

    @Test
    void ackBundleWithHoldTimes() throws IOException {
        MemorySegment s = checked(Vector.ACK_BUNDLE_HOLD);
        BaseHeader b = new BaseHeader().wrap(s, 0);
        assertEquals(BaseHeader.FLAG_ACK_HOLD, b.flags());
        assertEquals(0x0023203a, b.psnFloor()); // 35 us << 16 | 8250 us
        assertEquals(35_000, AckHold.newestNs(b.psnFloor()));
        assertEquals(8_250_000, AckHold.longestNs(b.psnFloor()));
        AckBundleHeader x = new AckBundleHeader().wrap(s, BaseHeader.LENGTH);
        assertEquals(2, AckBundleHeader.entries(b.payloadLength()));
        assertEquals(3, x.pathId(1));
        assertEquals(2L, x.sackWord(1, 0));
    }

    @Test
    void ackHoldSaturatesAndRoundsDown() {
        assertEquals(0, AckHold.encode(-5, 999));
        assertEquals(0xFFFF_FFFF, AckHold.encode(Long.MAX_VALUE, 70_000_000));
        assertEquals(1_000, AckHold.newestNs(AckHold.encode(1_999, 0)));
        assertEquals(65_535_000, AckHold.longestNs(AckHold.encode(0, 65_535_999)));
    }

    @Test
    void ackAcrossThePsnWrapAtTheWindowEdge() throws IOException {
        MemorySegment s = checked(Vector.ACK_WRAP);
        assertBase(s, Opcode.ACK, 0, 0x00000a01, 15, 0, 0, 0, 0x00000b02, 1_000_016_000L);
        AckHeader a = new AckHeader().wrap(s, BaseHeader.LENGTH);
        assertEquals(0xffffff80, a.cumPsn());
        assertEquals(2L, a.sackWord(0)); // bit 1: cum + 2 = 0xffffff82
        assertEquals(0x8000000000000000L, a.sackWord(1)); // bit 127: cum + 128 = 0x00000000
        assertEquals(0xc000000000000000L, a.sackWord(3)); // bits 254, 255: 0x0000007f, 0x00000080
    }

    @Test
    void parityFields() throws IOException {
        MemorySegment s = checked(Vector.PARITY);
        // unsequenced (WIRE-16): PSN 0; payload length = that of the first covered segment, min(mtu, 3124 - 1024)
        assertBase(s, Opcode.PARITY, 0, 0x00000b02, 4, 1024, 0, 0, 0x00000a01, 1_000_027_000L);
        assertEquals(BaseHeader.LENGTH + 36 + 1024 + Packet.CRC_LENGTH, s.byteSize());
        ParityHeader q = new ParityHeader().wrap(s, BaseHeader.LENGTH);
        assertEquals(6, q.msn());
        assertEquals(3124, q.messageLength());
        assertEquals(1024, q.offset());
        assertEquals(0x1234abcd, q.rkey());
        assertEquals(0x00007f0000004400L, q.va()); // the WR's remote address + the first covered segment's offset
        assertEquals(3, q.rsn());
        assertEquals(0x0badcafe, q.immediate());
        assertEquals(Opcode.WRITE_IMM, q.op());
        assertEquals(3, q.count());
        assertEquals(0, q.reserved());
        // the payload is the XOR of message bytes 1024 + j, 2048 + j and (j < 52) 3072 + j, byte i being i mod 256
        byte[] payload = s.asSlice(BaseHeader.LENGTH + ParityHeader.LENGTH, 1024).toArray(ValueLayout.JAVA_BYTE);
        for (int j = 0; j < 1024; j++) {
            int expected = ((1024 + j) & 0xff) ^ ((2048 + j) & 0xff) ^ (j < 52 ? (3072 + j) & 0xff : 0);
            assertEquals((byte) expected, payload[j], "payload byte " + j);
            assertEquals(j < 52 ? (byte) j : 0, payload[j], "payload byte " + j);
        }
    }

    @Test
    void parityQFields() throws IOException {
        MemorySegment s = checked(Vector.PARITY_Q);
        // REL-20: the PARITY's header on the next path, 100 ns later
        assertBase(s, Opcode.PARITY_Q, 0, 0x00000b02, 5, 1024, 0, 0, 0x00000a01, 1_000_027_100L);
        assertEquals(BaseHeader.LENGTH + 36 + 1024 + Packet.CRC_LENGTH, s.byteSize());
        ParityHeader q = new ParityHeader().wrap(s, BaseHeader.LENGTH);
        assertEquals(6, q.msn());
        assertEquals(1024, q.offset());
        assertEquals(Opcode.WRITE_IMM, q.op());
        assertEquals(3, q.count());
        // 1 * b0 + 2 * b1 + 4 * b2 with b0 = b1 = j and b2 = j below 52, else 0: 7 * j, then 3 * j
        byte[] payload = s.asSlice(BaseHeader.LENGTH + ParityHeader.LENGTH, 1024).toArray(ValueLayout.JAVA_BYTE);
        for (int j = 0; j < 1024; j++) {
            assertEquals((byte) GoldenVectors.gfMul(j < 52 ? 7 : 3, j & 0xff), payload[j], "payload byte " + j);
        }
        assertEquals(0x07, payload[1]);
        assertEquals(0x09, payload[3]);
    }

    @Test
    void parityRFields() throws IOException {
        MemorySegment s = checked(Vector.PARITY_R);
        // REL-21: the PARITY's header on path 6, 200 ns after it, with the repair index in the first reserved byte
        assertBase(s, Opcode.PARITY_R, 0, 0x00000b02, 6, 1024, 0, 0, 0x00000a01, 1_000_027_200L);
        assertEquals(BaseHeader.LENGTH + 36 + 1024 + Packet.CRC_LENGTH, s.byteSize());
        ParityHeader q = new ParityHeader().wrap(s, BaseHeader.LENGTH);
        assertEquals(6, q.msn());
        assertEquals(3124, q.messageLength());
        assertEquals(1024, q.offset());
        assertEquals(0x00007f0000004400L, q.va());
        assertEquals(Opcode.WRITE_IMM, q.op());
        assertEquals(3, q.count());
        assertEquals(3, q.repair());
        assertEquals(3, s.get(ValueLayout.JAVA_BYTE, BaseHeader.LENGTH + 34)); // byte 34: the repair index
        assertEquals(0, s.get(ValueLayout.JAVA_BYTE, BaseHeader.LENGTH + 35)); // byte 35: still reserved
        // repair 3: 2^0 * b0 + 2^3 * b1 + 2^6 * b2 with b0 = b1 = j and b2 = j below 52, else 0: (1 + 8 + 64) * j =
        // 0x49 * j, then 9 * j
        byte[] payload = s.asSlice(BaseHeader.LENGTH + ParityHeader.LENGTH, 1024).toArray(ValueLayout.JAVA_BYTE);
        for (int j = 0; j < 1024; j++) {
            assertEquals((byte) GoldenVectors.gfMul(j < 52 ? 0x49 : 9, j & 0xff), payload[j], "payload byte " + j);
        }
        assertEquals(0x49, payload[1]);
        assertEquals((byte) 0xdb, payload[3]);
        assertEquals((byte) 0x89, payload[52]);
        // the general form agrees with the PARITY (repair 0) and the PARITY_Q (repair 1)
        assertArrayEquals(GoldenVectors.parityOf(3124, 1024, 1, 3), GoldenVectors.parityROf(0, 3124, 1024, 1, 3));
        assertArrayEquals(GoldenVectors.parityQOf(3124, 1024, 1, 3), GoldenVectors.parityROf(1, 3124, 1024, 1, 3));
    }

    @Test
    void oneVectorPerOpcode() {
        int[] opcodes = {Opcode.WRITE, Opcode.WRITE_IMM, Opcode.SEND, Opcode.SEND_IMM, Opcode.READ_REQ,
                Opcode.READ_RESP, Opcode.ACK, Opcode.NAK, Opcode.PROBE, Opcode.PROBE_REPLY, Opcode.CM_REQ,
                Opcode.CM_REP, Opcode.CM_RTU, Opcode.CM_DREQ, Opcode.CM_REJ, Opcode.ACK_BUNDLE, Opcode.PARITY,
                Opcode.PARITY_Q, Opcode.PARITY_R};
        // the first vectors follow the opcode table up to CM_REJ; later opcodes' vectors (named by the opcode)
        // and corner-case vectors (the opcode's name and a suffix) come after, so older TV numbers stay
        for (int i = 0; i < opcodes.length; i++) {
            int op = opcodes[i];
            long named = java.util.Arrays.stream(Vector.values())
                    .filter(v -> v.name().equals(Opcode.name(op)) && v.opcode == op).count();
            assertEquals(1, named, "vectors named " + Opcode.name(op));
        }
        for (int i = 0; i < 15; i++) {
            assertEquals(opcodes[i], Vector.values()[i].opcode);
        }
        for (Vector v : Vector.values()) {
            assertTrue(v.name().equals(Opcode.name(v.opcode)) || v.name().startsWith(Opcode.name(v.opcode) + "_"),
                    v.name());
        }
        int defined = 0;
        for (int op = 0; op < 256; op++) {
            defined += Opcode.extensionLength(op) >= 0 ? 1 : 0;
        }
        assertEquals(opcodes.length, defined, "an opcode without a golden vector");
    }

    // ---- the spec page shows the same bytes ----

    @ParameterizedTest
    @EnumSource(Vector.class)
    void specPageShowsTheStoredDump(Vector v) throws IOException {
        String page = specPage();
        String block = "Resource `core/src/test/resources/golden/" + v.fileName() + "`:\n\n```text\n"
                + GoldenVectors.resource(v) + "```\n";
        assertTrue(page.contains(block), "docs/spec/09-test-vectors.md does not show golden/" + v.fileName()
                + " verbatim; regenerate with -Dgolden.regenerate=true");
    }

    @Test
    void specPageSectionIsUpToDate() throws IOException {
        String page = specPage();
        int begin = page.indexOf(GoldenVectors.BEGIN_MARKER);
        int end = page.indexOf(GoldenVectors.END_MARKER);
        assertTrue(begin >= 0 && end > begin, "golden-vector markers missing from the spec page");
        assertEquals(GoldenVectors.markdown(), page.substring(begin, end + GoldenVectors.END_MARKER.length()));
    }

    // ---- helpers ----

    private static byte[] stored(Vector v) throws IOException {
        return GoldenVectors.parseDump(GoldenVectors.resource(v));
    }

    private MemorySegment checked(Vector v) throws IOException {
        byte[] bytes = stored(v);
        MemorySegment seg = MemorySegment.ofArray(bytes);
        assertEquals(Packet.OK, packet.check(seg, bytes.length));
        return seg;
    }

    private static void assertBase(MemorySegment s, int opcode, int flags, int destQpn, int pathId, int payloadLength,
                                   int psn, int psnFloor, int srcQpn, long timestampNs) {
        BaseHeader b = new BaseHeader().wrap(s, 0);
        assertEquals(1, b.version(), "version");
        assertEquals(opcode, b.opcode(), "opcode");
        assertEquals(flags, b.flags(), "flags");
        assertEquals(destQpn, b.destQpn(), "dest QPN");
        assertEquals(pathId, b.pathId(), "path id");
        assertEquals(payloadLength, b.payloadLength(), "payload length");
        assertEquals(psn, b.psn(), "PSN");
        assertEquals(psnFloor, b.psnFloor(), "PSN floor");
        assertEquals(srcQpn, b.srcQpn(), "source QPN");
        assertEquals(timestampNs, b.timestampNs(), "timestamp");
    }

    private static void assertData(MemorySegment s, int msn, int messageLength, int offset, int rkey, long va, int rsn,
                                   int immediate) {
        DataHeader d = new DataHeader().wrap(s, BaseHeader.LENGTH);
        assertEquals(msn, d.msn(), "MSN");
        assertEquals(messageLength, d.messageLength(), "message length");
        assertEquals(offset, d.offset(), "offset");
        assertEquals(rkey, d.rkey(), "rkey");
        assertEquals(va, d.va(), "va");
        assertEquals(rsn, d.rsn(), "RSN");
        assertEquals(immediate, d.immediate(), "immediate");
    }

    private static void assertPayload(MemorySegment s, int opcode, String ascii) {
        byte[] expected = ascii.getBytes(StandardCharsets.US_ASCII);
        long at = BaseHeader.LENGTH + Opcode.extensionLength(opcode);
        byte[] actual = s.asSlice(at, expected.length).toArray(ValueLayout.JAVA_BYTE);
        assertArrayEquals(expected, actual);
        assertEquals(at + expected.length + Packet.CRC_LENGTH, s.byteSize());
    }

    private static void assertCrc(MemorySegment s, int crc) {
        assertEquals(crc, s.get(U32, s.byteSize() - Packet.CRC_LENGTH));
    }

    /** CRC-32C bit by bit (reflected polynomial 0x82f63b78, init and final xor 0xffffffff), independent of the JDK. */
    static int bitwiseCrc32c(byte[] bytes, int length) {
        int crc = 0xffffffff;
        for (int i = 0; i < length; i++) {
            crc ^= bytes[i] & 0xff;
            for (int k = 0; k < 8; k++) {
                crc = (crc >>> 1) ^ (0x82f63b78 & -(crc & 1));
            }
        }
        return ~crc;
    }

    private static byte[] ipv6(String hex) {
        return HexFormat.of().parseHex(hex);
    }

    private static String specPage() throws IOException {
        for (Path p : List.of(Path.of("..", "docs", "spec", "09-test-vectors.md"),
                Path.of("docs", "spec", "09-test-vectors.md"))) {
            if (Files.isRegularFile(p)) {
                return Files.readString(p, StandardCharsets.UTF_8).replace("\r\n", "\n");
            }
        }
        throw new IOException("docs/spec/09-test-vectors.md not found from " + Path.of("").toAbsolutePath());
    }
}
