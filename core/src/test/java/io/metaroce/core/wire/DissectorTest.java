package io.metaroce.core.wire;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.metaroce.core.wire.GoldenVectors.Vector;
import java.io.ByteArrayOutputStream;
import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The Wireshark dissector {@code tools/wireshark/metaroce.lua} decodes every golden vector (spec 09): a classic
 * libpcap file (LINKTYPE_RAW, IPv4) holds each vector in IPv4 + UDP once on the default port 4793 (port
 * registration) and once on port 18515 (heuristic dissector), plus corrupted and foreign datagrams; {@code tshark}
 * reads it with the script and its field output is compared with the codec's view of the same bytes.
 *
 * <p>Needs {@code tshark} with Lua (on the PATH, or named by the environment variable {@code METAROCE_TSHARK}).
 * Without it the test is skipped, unless the environment variable
 * {@code METAROCE_TESTBED_REQUIRED} is set (CI sets it), which turns the skip into a failure. As root, tshark runs
 * {@code -X lua_script:} only if the global {@code init.lua} has {@code run_user_scripts_when_superuser = true}
 * (the default of current Wireshark); if a distribution turned it off, the test runs tshark as the unprivileged
 * uid 65534 through {@code setpriv} ({@code WIRESHARK_DATA_DIR} and other environment overrides are ignored for
 * root, so they cannot help).
 */
class DissectorTest {
    private static final String REQUIRED_ENV = "METAROCE_TESTBED_REQUIRED";
    /** Optional path of the tshark to use (e.g. a newer Wireshark build); default: tshark on the PATH. */
    private static final String TSHARK_ENV = "METAROCE_TSHARK";
    private static final int PORT = Packet.DEFAULT_UDP_PORT;
    /** A port no dissector claims: decoded only through the heuristic. */
    private static final int HEURISTIC_PORT = 18515;
    private static final int SRC_PORT_BASE = 49152;
    private static final int NOBODY = 65534;
    private static final Duration TIMEOUT = Duration.ofSeconds(120);

    private static final List<String> FIELDS = List.of("frame.number", "udp.dstport", "metaroce.version",
            "metaroce.opcode", "metaroce.flags", "metaroce.dest_qpn", "metaroce.path", "metaroce.payload_length",
            "metaroce.psn", "metaroce.psn_floor", "metaroce.src_qpn", "metaroce.timestamp", "metaroce.crc",
            "metaroce.crc.status", "metaroce.msn", "metaroce.msg_length", "metaroce.offset", "metaroce.rkey",
            "metaroce.va", "metaroce.rsn", "metaroce.imm", "metaroce.read.length", "metaroce.read.sink_va",
            "metaroce.ack.cum_psn", "metaroce.ack.ce_count", "metaroce.ack.echo_ts", "metaroce.ack.grant",
            "metaroce.ack.rx_msn", "metaroce.ack.sack0", "metaroce.ack.sack3", "metaroce.ack.sacked",
            "metaroce.ack.sacked_psn", "metaroce.ack.entries", "metaroce.ack.entry_path",
            "metaroce.ack.hold_newest", "metaroce.ack.hold_longest", "metaroce.nak.code", "metaroce.nak.psn", "metaroce.probe.id",
            "metaroce.probe.echo_ts", "metaroce.cm.conn_id", "metaroce.cm.sender_qpn", "metaroce.cm.peer_qpn",
            "metaroce.cm.initial_psn", "metaroce.cm.mtu", "metaroce.cm.paths", "metaroce.cm.port",
            "metaroce.cm.plane_count", "metaroce.cm.reason", "metaroce.cm.plane.ipv4", "metaroce.cm.plane.ipv6",
            "metaroce.auth.seq", "metaroce.auth.cm_counter", "metaroce.parity.op", "metaroce.parity.count",
            "metaroce.parity.repair");

    /** One datagram of the capture and what the dissector must make of it. */
    private record Frame(String label, byte[] payload, int dstPort, Expect expect, Vector vector) {
    }

    private enum Expect { GOOD, BAD_CRC, NOT_METAROCE }

    @Test
    void tsharkDecodesEveryGoldenVector(@TempDir Path tmp) throws IOException, InterruptedException {
        Tshark tshark = tshark(tmp);

        List<Frame> frames = new ArrayList<>();
        for (int port : new int[] {PORT, HEURISTIC_PORT}) {
            for (Vector v : Vector.values()) {
                frames.add(new Frame(v + " on " + port, stored(v), port, Expect.GOOD, v));
            }
            for (AuthVectors.Sealed v : AuthVectors.Sealed.values()) { // AUTH-2: spec 10's sealed vectors
                frames.add(new Frame("sealed " + v + " on " + port, v.build(), port, Expect.GOOD, v.plain));
            }
            frames.add(new Frame("sealed CM_DREQ (TV-23) on " + port, AuthVectors.sealedCm(), port, Expect.GOOD,
                    Vector.CM_DREQ)); // AUTH-12
            frames.add(new Frame("WRITE under the next key (TV-24) on " + port, AuthVectors.updatedWrite(), port,
                    Expect.GOOD, Vector.WRITE)); // AUTH-17

        }
        byte[] corrupted = stored(Vector.WRITE);
        corrupted[70] ^= 0x20; // one payload bit: only the CRC can tell
        frames.add(new Frame("WRITE, one bit flipped, on " + PORT, corrupted, PORT, Expect.BAD_CRC, Vector.WRITE));
        frames.add(new Frame("WRITE, one bit flipped, on " + HEURISTIC_PORT, corrupted, HEURISTIC_PORT,
                Expect.BAD_CRC, Vector.WRITE));
        byte[] version2 = stored(Vector.ACK);
        version2[0] = 2;
        frames.add(new Frame("ACK with version 2 on " + HEURISTIC_PORT, version2, HEURISTIC_PORT,
                Expect.NOT_METAROCE, null));
        byte[] longer = Arrays.copyOf(stored(Vector.NAK), 53);
        frames.add(new Frame("NAK one byte too long on " + HEURISTIC_PORT, longer, HEURISTIC_PORT,
                Expect.NOT_METAROCE, null));
        frames.add(new Frame("text on " + HEURISTIC_PORT, "not a MetaRoCE-J packet, just 46 bytes of text"
                .getBytes(StandardCharsets.US_ASCII), HEURISTIC_PORT, Expect.NOT_METAROCE, null));

        Path pcap = tmp.resolve("golden.pcap");
        Files.write(pcap, pcap(frames));
        tshark.makeReadable(pcap);

        // 1. field values
        List<String> cmd = new ArrayList<>(List.of("-n", "-r", pcap.toString(), "-T", "fields", "-E", "header=n",
                "-E", "separator=/t", "-E", "occurrence=a", "-E", "aggregator=;"));
        for (String f : FIELDS) {
            cmd.add("-e");
            cmd.add(f);
        }
        Result r = tshark.run(cmd);
        assertEquals(0, r.exit, () -> "tshark failed: " + r);
        String[] lines = r.stdout.split("\n");
        assertEquals(frames.size(), lines.length, () -> "one line per frame expected:\n" + r.stdout);
        for (int i = 0; i < frames.size(); i++) {
            Frame f = frames.get(i);
            Map<String, String> row = row(lines[i]);
            assertEquals(Integer.toString(i + 1), row.get("frame.number"));
            assertEquals(Integer.toString(f.dstPort), row.get("udp.dstport"), f.label);
            check(f, row);
        }

        // 2. the detail view: CRC verdict text, no Lua error anywhere
        Result v = tshark.run(List.of("-n", "-r", pcap.toString(), "-P", "-V"));
        assertEquals(0, v.exit, () -> "tshark -V failed: " + v);
        assertFalse(v.stdout.contains("Lua Error"), () -> "the dissector raised a Lua error:\n" + v.stdout);
        long good = frames.stream().filter(f -> f.expect == Expect.GOOD).count();
        long bad = frames.stream().filter(f -> f.expect == Expect.BAD_CRC).count();
        assertEquals(good, count(v.stdout, "[CRC: good]"), "frames showing CRC: good");
        assertEquals(bad, count(v.stdout, "[CRC: bad"), "frames showing CRC: bad");
        assertEquals(bad, count(v.stdout, "[Expert Info (Error/Checksum): Bad CRC32C: stored"), "bad-CRC expert infos");
        assertTrue(v.stdout.contains("WRITE qp=0x00000b02 path=0 psn=4096 msn=0 off=0 len=16"), v.stdout);
        assertTrue(v.stdout.contains("sack=[cum+2..cum+4, cum+256]"), v.stdout);
        assertTrue(v.stdout.contains("PARITY qp=0x00000b02 path=4 msn=6 off=1024 op=WRITE_IMM count=3 len=1024"),
                v.stdout);
        assertTrue(v.stdout.contains("Message opcode: WRITE_IMM (0x02)") && v.stdout.contains("Payload: 000102"),
                v.stdout);
        assertTrue(v.stdout.contains("PARITY_R qp=0x00000b02 path=6 msn=6 off=1024 op=WRITE_IMM count=3 repair=3 "
                + "len=1024") && v.stdout.contains("PARITY_R header") && v.stdout.contains("Repair index: 3"),
                v.stdout);
        assertTrue(v.stdout.contains("auth_seq=0 [encrypted]") && v.stdout.contains("AUTH trailer (AES-128-GCM)"),
                v.stdout);
        assertTrue(v.stdout.contains("(FIRST, LAST, ACK_REQ, AUTH, KEY_PHASE)") && v.stdout.contains("auth_seq=5 [auth]"),
                v.stdout); // TV-24
        assertTrue(v.stdout.contains("(ACK_HOLD)") && v.stdout.contains("(ACK hold times, WIRE-21)"), v.stdout);
        assertTrue(v.stdout.contains("cm_counter=3 [auth]") && v.stdout.contains("AUTH trailer (HMAC-SHA256, CM key)"),
                v.stdout);
    }

    // ---- expectations ----

    private static void check(Frame f, Map<String, String> row) {
        String label = f.label;
        if (f.expect == Expect.NOT_METAROCE) {
            assertEquals("", row.get("metaroce.opcode"), () -> label + " must not be decoded as MetaRoCE-J: " + row);
            return;
        }
        byte[] bytes = f.payload;
        BaseHeader b = new BaseHeader().wrap(MemorySegment.ofArray(bytes), 0);
        assertNum(row, "metaroce.version", b.version(), label);
        assertNum(row, "metaroce.opcode", f.vector.opcode, label);
        assertNum(row, "metaroce.flags", b.flags(), label);
        assertNum(row, "metaroce.dest_qpn", Integer.toUnsignedLong(b.destQpn()), label);
        assertNum(row, "metaroce.path", b.pathId(), label);
        assertNum(row, "metaroce.payload_length", b.payloadLength(), label);
        assertNum(row, "metaroce.psn", Integer.toUnsignedLong(b.psn()), label);
        assertNum(row, "metaroce.psn_floor", Integer.toUnsignedLong(b.psnFloor()), label);
        assertNum(row, "metaroce.src_qpn", Integer.toUnsignedLong(b.srcQpn()), label);
        assertNum(row, "metaroce.timestamp", b.timestampNs(), label);
        int crc = ByteBuffer.wrap(bytes, bytes.length - Packet.CRC_LENGTH, Packet.CRC_LENGTH).getInt();
        assertNum(row, "metaroce.crc", Integer.toUnsignedLong(crc), label);
        boolean sealed = (b.flags() & BaseHeader.FLAG_AUTH) != 0
                && bytes.length == Packet.datagramLength(b.opcode(), b.payloadLength()) + BaseHeader.AUTH_TRAILER_LENGTH;
        boolean cm = b.opcode() >= Opcode.CM_REQ && b.opcode() <= Opcode.CM_REJ;
        String seq = sealed && !cm ? Long.toString(ByteBuffer.wrap(bytes, bytes.length - Packet.CRC_LENGTH - 8, 8)
                .getLong()) : "";
        assertEquals(seq, row.get("metaroce.auth.seq"), label + ": AUTH trailer's sequence number");
        assertEquals(sealed && cm ? Long.toString(AuthVectors.CM_COUNTER) : "", row.get("metaroce.auth.cm_counter"),
                label + ": a sealed CM message's counter (AUTH-12)");
        String status = row.get("metaroce.crc.status");
        if (f.expect == Expect.GOOD) {
            assertTrue(status.equals("1") || status.equalsIgnoreCase("Good"), label + ": CRC status " + status);
        } else {
            assertTrue(status.equals("0") || status.equalsIgnoreCase("Bad"), label + ": CRC status " + status);
        }

        long ipsnA = GoldenVectors.IPSN_A;
        long rkey = Integer.toUnsignedLong(GoldenVectors.RKEY_B);
        switch (f.vector) {
            case WRITE -> {
                assertNum(row, "metaroce.msn", 0, label);
                assertNum(row, "metaroce.msg_length", 16, label);
                assertNum(row, "metaroce.rkey", rkey, label);
                assertNum(row, "metaroce.va", 0x00007f0000001000L, label);
            }
            case WRITE_IMM -> {
                assertNum(row, "metaroce.msn", 1, label);
                assertNum(row, "metaroce.offset", 1024, label);
                assertNum(row, "metaroce.imm", 0xdeadbeefL, label);
            }
            case SEND -> {
                assertNum(row, "metaroce.msn", 2, label);
                assertNum(row, "metaroce.rsn", 1, label);
            }
            case SEND_IMM -> assertNum(row, "metaroce.imm", 0x42, label);
            case READ_REQ -> {
                assertNum(row, "metaroce.msn", 4, label);
                assertNum(row, "metaroce.read.length", 1032, label);
                assertNum(row, "metaroce.rkey", rkey, label);
                assertNum(row, "metaroce.read.sink_va", 0x0000550000020000L, label);
            }
            case READ_RESP -> {
                assertNum(row, "metaroce.offset", 1024, label);
                assertNum(row, "metaroce.va", 0x0000550000020400L, label);
            }
            case ACK -> {
                assertNum(row, "metaroce.ack.cum_psn", ipsnA, label);
                assertNum(row, "metaroce.ack.ce_count", 2, label);
                assertNum(row, "metaroce.ack.echo_ts", GoldenVectors.T0 + 5_500, label);
                assertNum(row, "metaroce.ack.grant", 50_000, label);
                assertNum(row, "metaroce.ack.rx_msn", 1, label);
                assertNum(row, "metaroce.ack.sack0", 0xeL, label);
                assertNum(row, "metaroce.ack.sack3", 0x8000000000000000L, label);
                assertEquals("cum+2..cum+4, cum+256", row.get("metaroce.ack.sacked"), label);
                assertNums(row, "metaroce.ack.sacked_psn", List.of(ipsnA + 2, ipsnA + 3, ipsnA + 4, ipsnA + 256),
                        label);
            }
            case ACK_BUNDLE -> {
                assertNum(row, "metaroce.ack.entries", 2, label);
                assertNums(row, "metaroce.ack.entry_path", List.of(2L, 5L), label);
                assertNums(row, "metaroce.ack.cum_psn", List.of(ipsnA + 0x40, ipsnA + 0x30), label);
                assertNums(row, "metaroce.ack.ce_count", List.of(0L, 1L), label);
                assertNum(row, "metaroce.ack.grant", 50_000, label);
                assertNum(row, "metaroce.ack.rx_msn", 3, label);
                assertNums(row, "metaroce.ack.sacked_psn", List.of(ipsnA + 0x42), label);
                assertEquals("", row.get("metaroce.ack.hold_newest"), label + ": no ACK_HOLD, no hold times");
            }
            case ACK_BUNDLE_HOLD -> { // WIRE-21
                assertNums(row, "metaroce.ack.entry_path", List.of(1L, 3L), label);
                assertNum(row, "metaroce.ack.hold_newest", 35, label);
                assertNum(row, "metaroce.ack.hold_longest", 8_250, label);
                assertNums(row, "metaroce.ack.sacked_psn", List.of(ipsnA + 0x72), label);
            }
            case PARITY -> { // REL-18, WIRE-22
                assertNum(row, "metaroce.msn", 6, label);
                assertNum(row, "metaroce.msg_length", 3124, label);
                assertNum(row, "metaroce.offset", 1024, label);
                assertNum(row, "metaroce.rkey", rkey, label);
                assertNum(row, "metaroce.va", 0x00007f0000004400L, label);
                assertNum(row, "metaroce.rsn", 3, label);
                assertNum(row, "metaroce.imm", 0x0badcafeL, label);
                assertNum(row, "metaroce.parity.op", Opcode.WRITE_IMM, label);
                assertNum(row, "metaroce.parity.count", 3, label);
                assertEquals("", row.get("metaroce.parity.repair"), label + ": a PARITY has no repair index");
            }
            case PARITY_Q -> { // REL-20
                assertNum(row, "metaroce.msn", 6, label);
                assertNum(row, "metaroce.offset", 1024, label);
                assertNum(row, "metaroce.parity.op", Opcode.WRITE_IMM, label);
                assertNum(row, "metaroce.parity.count", 3, label);
                assertEquals("", row.get("metaroce.parity.repair"), label + ": a PARITY_Q has no repair index");
            }
            case PARITY_R -> { // REL-21: the repair index in the first reserved byte
                assertNum(row, "metaroce.msn", 6, label);
                assertNum(row, "metaroce.msg_length", 3124, label);
                assertNum(row, "metaroce.offset", 1024, label);
                assertNum(row, "metaroce.va", 0x00007f0000004400L, label);
                assertNum(row, "metaroce.parity.op", Opcode.WRITE_IMM, label);
                assertNum(row, "metaroce.parity.count", 3, label);
                assertNum(row, "metaroce.parity.repair", GoldenVectors.PARITY_R_REPAIR, label);
            }
            case NAK -> {
                assertNum(row, "metaroce.msn", 5, label);
                assertNum(row, "metaroce.nak.code", NakHeader.CODE_BAD_RKEY, label);
                assertNum(row, "metaroce.nak.psn", ipsnA + 5, label);
                assertNum(row, "metaroce.offset", 0, label);
            }
            case PROBE -> {
                assertNum(row, "metaroce.probe.id", 42, label);
                assertNum(row, "metaroce.probe.echo_ts", 0, label);
            }
            case PROBE_REPLY -> {
                assertNum(row, "metaroce.probe.id", 42, label);
                assertNum(row, "metaroce.probe.echo_ts", GoldenVectors.T0 + 8_000, label);
            }
            case CM_REQ -> {
                assertNum(row, "metaroce.cm.conn_id", GoldenVectors.CONN_ID, label);
                assertNum(row, "metaroce.cm.sender_qpn", GoldenVectors.QPN_A, label);
                assertNum(row, "metaroce.cm.peer_qpn", 0, label);
                assertNum(row, "metaroce.cm.initial_psn", ipsnA, label);
                assertNum(row, "metaroce.cm.mtu", 4096, label);
                assertNum(row, "metaroce.cm.paths", 64, label);
                assertNum(row, "metaroce.cm.port", Packet.DEFAULT_UDP_PORT, label);
                assertNum(row, "metaroce.cm.plane_count", 2, label);
                assertEquals("10.0.0.1", row.get("metaroce.cm.plane.ipv4"), label);
                assertEquals("fd00:1::1", row.get("metaroce.cm.plane.ipv6"), label);
            }
            case CM_REP -> {
                assertNum(row, "metaroce.cm.peer_qpn", GoldenVectors.QPN_A, label);
                assertNum(row, "metaroce.cm.initial_psn", GoldenVectors.IPSN_B, label);
                assertNum(row, "metaroce.cm.mtu", 1024, label);
                assertNum(row, "metaroce.cm.paths", 16, label);
                assertEquals("10.0.0.2", row.get("metaroce.cm.plane.ipv4"), label);
                assertEquals("fd00:1::2", row.get("metaroce.cm.plane.ipv6"), label);
            }
            case CM_RTU, CM_DREQ -> {
                assertNum(row, "metaroce.cm.conn_id", GoldenVectors.CONN_ID, label);
                assertNum(row, "metaroce.cm.plane_count", 0, label);
            }
            case CM_REJ -> {
                assertNum(row, "metaroce.cm.conn_id", GoldenVectors.CONN_ID + 1, label);
                assertNum(row, "metaroce.cm.reason", 2, label);
            }
        }
    }

    private static void assertNum(Map<String, String> row, String field, long expected, String label) {
        String value = row.get(field);
        assertNotNull(value, field + " not in the field list");
        assertFalse(value.isEmpty(), () -> label + ": no " + field + " in " + row);
        assertEquals(Long.toUnsignedString(expected), Long.toUnsignedString(number(value)),
                () -> label + ": " + field + " = '" + value + "'");
    }

    private static void assertNums(Map<String, String> row, String field, List<Long> expected, String label) {
        String value = row.get(field);
        assertNotNull(value, field + " not in the field list");
        List<Long> actual = Arrays.stream(value.split(";")).map(DissectorTest::number).toList();
        assertEquals(expected, actual, () -> label + ": " + field + " = '" + value + "'");
    }

    /** A tshark field value: decimal, 0x-hex, or either followed by a parenthesised alternative form. */
    private static long number(String value) {
        String v = value.strip();
        int cut = v.indexOf(' ');
        if (cut > 0) {
            v = v.substring(0, cut);
        }
        if (v.startsWith("0x") || v.startsWith("0X")) {
            return Long.parseUnsignedLong(v.substring(2), 16);
        }
        return Long.parseUnsignedLong(v);
    }

    private static Map<String, String> row(String line) {
        String[] values = line.split("\t", -1);
        assertEquals(FIELDS.size(), values.length, () -> "unexpected line: " + line);
        Map<String, String> row = new LinkedHashMap<>();
        for (int i = 0; i < values.length; i++) {
            row.put(FIELDS.get(i), values[i]);
        }
        return row;
    }

    private static long count(String text, String needle) {
        long n = 0;
        for (int i = text.indexOf(needle); i >= 0; i = text.indexOf(needle, i + needle.length())) {
            n++;
        }
        return n;
    }

    private static byte[] stored(Vector v) throws IOException {
        return GoldenVectors.parseDump(GoldenVectors.resource(v));
    }

    // ---- the capture file ----

    /** Classic libpcap, microsecond timestamps, LINKTYPE_RAW (101): every record is an IPv4 packet. */
    private static byte[] pcap(List<Frame> frames) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteBuffer header = ByteBuffer.allocate(24).order(ByteOrder.LITTLE_ENDIAN);
        header.putInt(0xa1b2c3d4).putShort((short) 2).putShort((short) 4).putInt(0).putInt(0).putInt(65535)
                .putInt(101);
        out.writeBytes(header.array());
        for (int i = 0; i < frames.size(); i++) {
            Frame f = frames.get(i);
            int srcPort = SRC_PORT_BASE + (f.vector == null ? 0 : new BaseHeader().wrap(
                    MemorySegment.ofArray(f.payload), 0).pathId());
            byte[] ip = ipv4Udp(i, srcPort, f.dstPort, f.payload);
            ByteBuffer rec = ByteBuffer.allocate(16).order(ByteOrder.LITTLE_ENDIAN);
            rec.putInt(1_700_000_000 + i).putInt(0).putInt(ip.length).putInt(ip.length);
            out.writeBytes(rec.array());
            out.writeBytes(ip);
        }
        return out.toByteArray();
    }

    /** IPv4 (DF, ECT(0), header checksum) + UDP (checksum 0 = none) from 10.0.0.1 to 10.0.0.2. */
    private static byte[] ipv4Udp(int id, int srcPort, int dstPort, byte[] payload) {
        int total = 20 + 8 + payload.length;
        ByteBuffer p = ByteBuffer.allocate(total); // big-endian
        p.put((byte) 0x45).put((byte) 0x02).putShort((short) total).putShort((short) id).putShort((short) 0x4000)
                .put((byte) 64).put((byte) 17).putShort((short) 0).put(new byte[] {10, 0, 0, 1})
                .put(new byte[] {10, 0, 0, 2});
        p.putShort(10, (short) ipChecksum(p.array(), 20));
        p.putShort((short) srcPort).putShort((short) dstPort).putShort((short) (8 + payload.length))
                .putShort((short) 0).put(payload);
        return p.array();
    }

    private static int ipChecksum(byte[] b, int n) {
        int sum = 0;
        for (int i = 0; i < n; i += 2) {
            sum += (b[i] & 0xff) << 8 | (b[i + 1] & 0xff);
        }
        while ((sum >>> 16) != 0) {
            sum = (sum & 0xffff) + (sum >>> 16);
        }
        return ~sum & 0xffff;
    }

    // ---- running tshark ----

    private record Result(int exit, String stdout, String stderr) {
        @Override
        public String toString() {
            return "exit " + exit + "\n--- stdout:\n" + stdout + "\n--- stderr:\n" + stderr;
        }
    }

    /** tshark with the dissector loaded, possibly through setpriv (see the class comment). */
    private record Tshark(List<String> prefix, Path script, Path home, boolean unprivileged) {
        /** Runs tshark with the dissector script; {@code args} must not start with -G (that needs to go first). */
        Result run(List<String> args) throws IOException, InterruptedException {
            List<String> cmd = new ArrayList<>(prefix);
            cmd.addAll(args);
            cmd.add("-X");
            cmd.add("lua_script:" + script);
            return exec(cmd, home);
        }

        /** An unprivileged tshark must be able to read the file. */
        void makeReadable(Path file) throws IOException {
            if (unprivileged) {
                Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rw-r--r--"));
            }
        }
    }

    /** Finds tshark and checks that it loads the script, or skips/fails with the reason. */
    private static Tshark tshark(Path tmp) throws IOException, InterruptedException {
        Path script = script();
        String override = System.getenv(TSHARK_ENV);
        Optional<Path> exe = override != null ? Optional.of(Path.of(override)).filter(Files::isExecutable)
                : onPath("tshark");
        if (exe.isEmpty()) {
            skipOrFail((override != null ? TSHARK_ENV + "=" + override + " is not an executable" : "tshark is not "
                    + "installed") + ": install tshark (apt-get install -y tshark) to test the Wireshark dissector "
                    + "tools/wireshark/metaroce.lua");
        }
        String tshark = exe.orElseThrow().toString();
        // a private HOME: no personal preferences or plugins (a second copy of metaroce.lua) get in the way
        Path home = Files.createDirectory(tmp.resolve("home"));
        Result version = exec(List.of(tshark, "-v"), home);
        if (version.stdout.contains("without Lua")) {
            skipOrFail("tshark is built without Lua: install a tshark with Lua support to test the dissector");
        }
        Result direct = probe(List.of(tshark), script, home);
        if (registered(direct)) {
            return new Tshark(List.of(tshark), script, home, false);
        }
        if (direct.stderr.contains("Lua:")) { // the script itself is broken
            fail("tshark could not load " + script + ":\n" + brief(direct));
        }
        // Lua user scripts off for root (init.lua: run_user_scripts_when_superuser = false): run unprivileged.
        if (isRoot() && onPath("setpriv").isPresent()) {
            Files.setPosixFilePermissions(tmp, PosixFilePermissions.fromString("rwxr-xr-x"));
            Path copy = tmp.resolve("metaroce.lua");
            Files.copy(script, copy);
            Files.setPosixFilePermissions(copy, PosixFilePermissions.fromString("rw-r--r--"));
            Files.setPosixFilePermissions(home, PosixFilePermissions.fromString("rwxrwxrwx"));
            List<String> prefix = List.of(onPath("setpriv").orElseThrow().toString(), "--reuid=" + NOBODY,
                    "--regid=" + NOBODY, "--clear-groups", tshark);
            Result unprivileged = probe(prefix, copy, home);
            if (registered(unprivileged)) {
                System.out.println("DissectorTest: tshark does not run Lua user scripts as root "
                        + "(run_user_scripts_when_superuser = false in init.lua); running it as uid " + NOBODY);
                return new Tshark(prefix, copy, home, true);
            }
            fail("the dissector did not load, neither as root nor as uid " + NOBODY + ":\n" + brief(direct) + "\n"
                    + brief(unprivileged));
        }
        fail("tshark did not register protocol metaroce from " + script + (isRoot() ? " (running as root: "
                + "check run_user_scripts_when_superuser in Wireshark's init.lua, or install setpriv)" : "")
                + ":\n" + brief(direct));
        throw new AssertionError("unreachable");
    }

    private static Result probe(List<String> prefix, Path script, Path home) throws IOException, InterruptedException {
        List<String> cmd = new ArrayList<>(prefix);
        cmd.addAll(List.of("-G", "protocols", "-X", "lua_script:" + script));
        return exec(cmd, home);
    }

    /** A probe result without the (long) protocol list: exit code and stderr, where Lua load errors go. */
    private static String brief(Result r) {
        return "exit " + r.exit + ", stderr:\n" + r.stderr.strip();
    }

    private static boolean registered(Result r) {
        return r.exit == 0 && r.stdout.lines().anyMatch(l -> l.endsWith("\tmetaroce"));
    }

    private static void skipOrFail(String why) {
        if (System.getenv(REQUIRED_ENV) != null) {
            fail(REQUIRED_ENV + " is set but " + why);
        }
        assumeTrue(false, "skipping the dissector test: " + why);
    }

    private static Path script() {
        for (Path dir = Path.of("").toAbsolutePath(); dir != null; dir = dir.getParent()) {
            Path p = dir.resolve("tools/wireshark/metaroce.lua");
            if (Files.isRegularFile(p)) {
                return p;
            }
        }
        throw new AssertionError("tools/wireshark/metaroce.lua not found above " + Path.of("").toAbsolutePath());
    }

    private static Optional<Path> onPath(String name) {
        String path = System.getenv().getOrDefault("PATH", "/usr/local/bin:/usr/bin:/bin");
        for (String dir : path.split(File.pathSeparator)) {
            Path p = Path.of(dir.isEmpty() ? "." : dir, name);
            if (Files.isRegularFile(p) && Files.isExecutable(p)) {
                return Optional.of(p);
            }
        }
        return Optional.empty();
    }

    private static boolean isRoot() {
        try {
            return Integer.valueOf(0).equals(Files.getAttribute(Path.of("/proc/self"), "unix:uid"));
        } catch (IOException | UnsupportedOperationException | IllegalArgumentException e) {
            return "root".equals(System.getProperty("user.name"));
        }
    }

    private static Result exec(List<String> cmd, Path home) throws IOException, InterruptedException {
        ProcessBuilder pb = new ProcessBuilder(cmd);
        Map<String, String> env = pb.environment();
        env.put("HOME", home.toString());
        env.remove("XDG_CONFIG_HOME");
        env.remove("WIRESHARK_CONFIG_DIR");
        Process p = pb.start();
        p.getOutputStream().close();
        CompletableFuture<String> out = CompletableFuture.supplyAsync(() -> read(p.getInputStream()));
        CompletableFuture<String> err = CompletableFuture.supplyAsync(() -> read(p.getErrorStream()));
        if (!p.waitFor(TIMEOUT.toSeconds(), TimeUnit.SECONDS)) {
            p.destroyForcibly();
            fail("timed out after " + TIMEOUT + ": " + cmd);
        }
        return new Result(p.exitValue(), out.join(), err.join());
    }

    private static String read(InputStream in) {
        try (in) {
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
