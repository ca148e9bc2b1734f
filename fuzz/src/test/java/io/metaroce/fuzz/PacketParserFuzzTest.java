package io.metaroce.fuzz;

import com.code_intelligence.jazzer.api.FuzzedDataProvider;
import com.code_intelligence.jazzer.junit.FuzzTest;
import io.metaroce.core.wire.AckBundleHeader;
import io.metaroce.core.wire.AckHeader;
import io.metaroce.core.wire.BaseHeader;
import io.metaroce.core.wire.CmMessage;
import io.metaroce.core.wire.DataHeader;
import io.metaroce.core.wire.MalformedPacketException;
import io.metaroce.core.wire.NakHeader;
import io.metaroce.core.wire.Opcode;
import io.metaroce.core.wire.Packet;
import io.metaroce.core.wire.ParityHeader;
import io.metaroce.core.wire.ProbeHeader;
import io.metaroce.core.wire.ReadRequestHeader;

import java.lang.foreign.MemorySegment;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The packet parser (WIRE-8, the header views including the ACK bundle's and the PARITY's, {@code CmMessage.parse}) on any bytes, raw and with a valid CRC:
 * it returns a drop reason or OK, never throws (a CM extension may only throw MalformedPacketException), never
 * reads outside the datagram, and OK means the WIRE-1 length arithmetic holds.
 */
class PacketParserFuzzTest {
    private final Packet packet = new Packet();

    @FuzzTest
    void anyBytes(FuzzedDataProvider fdp) {
        byte[] data = fdp.consumeRemainingAsBytes();
        parse(data);
        parse(Datagrams.sealed(data));
        parse(Datagrams.plausible(data, 0));
        parse(Datagrams.plausible(data, 0, Opcode.PARITY)); // REL-18: not in plausible's list, which seeds pin
        parse(Datagrams.plausible(data, 0, Opcode.PARITY_Q)); // REL-20, likewise
        parse(Datagrams.plausible(data, 0, Opcode.PARITY_R)); // REL-21, likewise
    }

    private void parse(byte[] d) {
        // a segment of exactly the datagram: any read beyond it throws IndexOutOfBoundsException (a finding)
        MemorySegment seg = MemorySegment.ofArray(d);
        int rc = packet.check(seg, d.length);
        assertTrue(rc >= Packet.OK && rc <= Packet.BAD_LENGTH, "check returned " + rc);
        if (rc != Packet.OK) {
            return;
        }
        BaseHeader b = new BaseHeader().wrap(seg, 0);
        int ext = Opcode.extensionLength(b.opcode());
        int trailer = d.length - (BaseHeader.LENGTH + ext + b.payloadLength() + Packet.CRC_LENGTH);
        assertTrue(trailer == 0 || trailer == BaseHeader.AUTH_TRAILER_LENGTH && (b.flags() & BaseHeader.FLAG_AUTH) != 0,
                "WIRE-1 length, or with flag AUTH that plus the AUTH trailer (AUTH-2): " + trailer);
        long x = BaseHeader.LENGTH;
        long sum = b.flags() + b.destQpn() + b.pathId() + b.psn() + b.psnFloor() + b.srcQpn() + b.timestampNs();
        switch (b.opcode()) {
            case Opcode.WRITE, Opcode.WRITE_IMM, Opcode.SEND, Opcode.SEND_IMM, Opcode.READ_RESP -> {
                DataHeader h = new DataHeader().wrap(seg, x);
                sum += h.msn() + h.messageLength() + h.offset() + h.rkey() + h.va() + h.rsn() + h.immediate();
            }
            case Opcode.PARITY, Opcode.PARITY_Q, Opcode.PARITY_R -> { // WIRE-22, REL-21
                ParityHeader h = new ParityHeader().wrap(seg, x);
                sum += h.msn() + h.messageLength() + h.offset() + h.rkey() + h.va() + h.rsn() + h.immediate() + h.op()
                        + h.count() + h.reserved() + h.repair();
            }
            case Opcode.READ_REQ -> {
                ReadRequestHeader h = new ReadRequestHeader().wrap(seg, x);
                sum += h.msn() + h.readLength() + h.rkey() + h.remoteVa() + h.sinkVa();
            }
            case Opcode.ACK -> {
                AckHeader h = new AckHeader().wrap(seg, x);
                sum += h.cumPsn() + h.ceCount() + h.echoTimestampNs() + h.grantMbps() + h.rxMsn();
                for (int w = 0; w < 4; w++) {
                    sum += h.sackWord(w);
                }
            }
            case Opcode.ACK_BUNDLE -> {
                int n = AckBundleHeader.entries(b.payloadLength());
                if (n < 0) {
                    return; // ACK-11: the engine drops a bundle that is not a whole number of entries
                }
                AckBundleHeader h = new AckBundleHeader().wrap(seg, x);
                sum += h.grantMbps() + h.rxMsn();
                for (int i = 0; i < n; i++) {
                    sum += h.pathId(i) + h.ceCount(i) + h.cumPsn(i) + h.echoTimestampNs(i);
                    for (int w = 0; w < 4; w++) {
                        sum += h.sackWord(i, w);
                    }
                }
            }
            case Opcode.NAK -> {
                NakHeader h = new NakHeader().wrap(seg, x);
                sum += h.msn() + h.code() + h.nakPsn() + h.offset();
            }
            case Opcode.PROBE, Opcode.PROBE_REPLY -> {
                ProbeHeader h = new ProbeHeader().wrap(seg, x);
                sum += h.probeId() + h.echoTimestampNs();
            }
            default -> {
                assertTrue(Opcode.isCm(b.opcode()), "check passed an opcode no view reads: " + b.opcode());
                try {
                    CmMessage m = CmMessage.parse(b.opcode(), seg, x, b.payloadLength());
                    assertEquals(m.encodedLength(), ext + b.payloadLength(), "CM length");
                    sum += m.planes().size();
                } catch (MalformedPacketException e) {
                    return; // WIRE-7: the one exception a CM extension may throw
                }
            }
        }
        Sink.consume(sum);
    }
}
