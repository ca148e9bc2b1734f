package io.metaroce.fuzz;

import com.code_intelligence.jazzer.api.FuzzedDataProvider;
import com.code_intelligence.jazzer.junit.FuzzTest;
import io.metaroce.core.QpState;
import io.metaroce.core.QueuePair;
import io.metaroce.core.auth.CmAuth;
import io.metaroce.core.wire.BaseHeader;
import io.metaroce.core.wire.CmHeader;
import io.metaroce.core.wire.CmMessage;
import io.metaroce.core.wire.Opcode;
import io.metaroce.core.wire.Packet;
import io.metaroce.net.cm.CmCounter;
import io.metaroce.net.cm.CmEndpoint;
import io.metaroce.net.cm.CmSettings;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * AUTH-13 under a fuzzer: a connection manager with a pre-shared key holds one live connection (set up by the
 * test with correctly sealed CM_REQ and CM_RTU) and one attempt of its own, then gets up to 32 forged CM datagrams
 * with a valid CRC: the fuzzer's bytes, often with a CM opcode and the live connection's id and QPNs, often with
 * flag AUTH and a 24-byte trailer of the fuzzer's choosing (never the real key's tag). Not one of them may get
 * past the CM's checks: each is a WIRE-8 or {@code CM_DROP_AUTH} drop, the connection stays in RTS, the attempt
 * stays open, and the CM sends nothing but unsealed CM_REJs (AUTH-14).
 */
class CmForgeryFuzzTest {
    private static final byte[] PSK = "the fuzz target's pre-shared key".getBytes(StandardCharsets.US_ASCII);
    private static final long PEER = 9;
    private static final long LIVE_CID = 2;
    private static final ValueLayout.OfLong U64 = ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);
    private static final ValueLayout.OfInt U32 = ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);

    @FuzzTest
    void forgedCmDatagrams(FuzzedDataProvider data) {
        KeyedHost host = new KeyedHost();
        CmEndpoint cm = new CmEndpoint(host, CmSettings.recommended(10_000_000));
        cm.listen();
        QueuePair own = host.newQp();
        cm.connect(0, own, 1, 0x1000, PEER, io.metaroce.core.Engine.NO_DEADLINE);
        // the live connection: a peer with the key sends a sealed REQ, then a sealed RTU for the REP's QP
        CmAuth peer = new CmAuth(PSK);
        deliver(cm, peer, new CmMessage(Opcode.CM_REQ, LIVE_CID, 0x77, 0, 0x300, 1024, 2, CmMessage.CAP_AUTH, 4793, 0,
                List.of(new byte[] {10, 0, 0, 9})), 0);
        QueuePair live = host.lastQp;
        deliver(cm, peer, new CmMessage(Opcode.CM_RTU, LIVE_CID, 0x77, live.qpn(), 0, 0, 0, 0, 0, 0, List.of()), 1);
        assertEquals(QpState.RTS, live.state(), "the set-up connection is live");
        long rx0 = cm.counter(CmCounter.CM_RX_PACKETS);
        long tx0 = cm.counter(CmCounter.CM_TX_PACKETS) - cm.counter(CmCounter.CM_RETRANSMITS);
        host.sealedEmitted = 0;
        long now = 0;
        int delivered = 0;
        for (int step = 0; step < 32 && data.remainingBytes() > 0; step++) {
            if (data.consumeInt(0, 5) == 0) {
                now += data.consumeLong(0, 2_000_000); // less than TIME_WAIT: the connection is not forgotten
                cm.onTimer(now);
                continue;
            }
            byte[] raw = data.consumeBytes(data.consumeInt(0, 2000)); // beyond the longest CM message too
            byte[] d = data.consumeBoolean() ? raw : Datagrams.plausible(raw, 0);
            if (d.length >= BaseHeader.LENGTH + CmHeader.FIXED_LENGTH + Packet.CRC_LENGTH && data.consumeBoolean()) {
                d = forge(d, data, live.qpn(), own.qpn());
            }
            cm.handle(now, MemorySegment.ofArray(d), d.length, data.consumeBoolean() ? PEER : data.consumeLong());
            delivered++;
        }
        long wire8 = 0;
        for (CmCounter c : CmCounter.values()) {
            if (c.name().startsWith("CM_DROP_") && c != CmCounter.CM_DROP_AUTH && c != CmCounter.CM_DROP_MALFORMED) {
                wire8 += cm.counter(c);
            }
        }
        assertEquals(delivered, cm.counter(CmCounter.CM_RX_PACKETS) - rx0);
        assertEquals(delivered, wire8 + cm.counter(CmCounter.CM_DROP_AUTH),
                "every forged datagram is a WIRE-8 or CM_DROP_AUTH drop: " + cm.counters());
        assertEquals(QpState.RTS, live.state(), "no forgery ends the live connection");
        assertEquals(QpState.INIT, own.state(), "no forgery ends or completes our attempt");
        assertEquals(0, cm.counter(CmCounter.CM_DISCONNECTS) + cm.counter(CmCounter.CM_REJECTS_RECEIVED));
        assertEquals(0, host.sealedEmitted, "no sealed answer to a forgery (AUTH-14: no MAC over forged input)");
        long answers = cm.counter(CmCounter.CM_TX_PACKETS) - cm.counter(CmCounter.CM_RETRANSMITS) - tx0;
        assertTrue(answers <= delivered, "at most one refusal per forgery, besides our attempt's retries");
    }

    /** A CM opcode, often the live connection's or the attempt's id and QPNs, often a forged trailer; CRC valid. */
    private static byte[] forge(byte[] d, FuzzedDataProvider data, int liveQpn, int ownQpn) {
        MemorySegment s = MemorySegment.ofArray(d);
        s.set(ValueLayout.JAVA_BYTE, BaseHeader.OPCODE, (byte) (Opcode.CM_REQ + data.consumeInt(0, 4)));
        if (data.consumeBoolean()) {
            boolean toLive = data.consumeBoolean();
            s.set(U64, BaseHeader.LENGTH + CmHeader.CONNECTION_ID, toLive ? LIVE_CID : 1L);
            s.set(U32, BaseHeader.LENGTH + CmHeader.SENDER_QPN, toLive ? 0x77 : data.consumeInt());
            s.set(U32, BaseHeader.LENGTH + CmHeader.PEER_QPN, toLive ? liveQpn : ownQpn);
        }
        byte[] out = d;
        if (data.consumeBoolean()) { // a forged seal: flag AUTH and the natural length plus a 24-byte trailer
            BaseHeader b = new BaseHeader().wrap(s, 0);
            int entries = data.consumeBoolean() ? data.consumeInt(0, 3) : data.consumeInt(0, 100); // 17+: too many
            b.flags(b.flags() | BaseHeader.FLAG_AUTH).payloadLength(entries * CmHeader.PLANE_ENTRY_LENGTH);
            int natural = BaseHeader.LENGTH + CmHeader.FIXED_LENGTH + b.payloadLength();
            out = Arrays.copyOf(d, natural + CmAuth.TRAILER_LENGTH + Packet.CRC_LENGTH);
            byte[] trailer = data.consumeBytes(CmAuth.TRAILER_LENGTH);
            System.arraycopy(trailer, 0, out, natural, trailer.length);
        }
        new Packet().seal(MemorySegment.ofArray(out), out.length - Packet.CRC_LENGTH);
        return out;
    }

    private static void deliver(CmEndpoint cm, CmAuth auth, CmMessage m, long counter) {
        byte[] b = new byte[512];
        MemorySegment s = MemorySegment.ofArray(b);
        int ext = m.encodedLength();
        new BaseHeader().wrap(s, 0).version(Packet.VERSION).opcode(m.opcode()).flags(0).destQpn(m.peerQpn())
                .pathId(0).payloadLength(ext - CmHeader.FIXED_LENGTH).psn(0).psnFloor(0).srcQpn(m.senderQpn())
                .timestampNs(0);
        m.emit(s, BaseHeader.LENGTH);
        int len = new Packet().seal(s, auth.seal(s, BaseHeader.LENGTH + ext, counter));
        cm.handle(0, s, len, PEER);
    }

    /** {@link CmParserFuzzTest}'s device with a pre-shared key; counts the sealed datagrams it emits. */
    static final class KeyedHost extends CmParserFuzzTest.Host {
        long sealedEmitted;
        QueuePair lastQp;

        @Override
        public QueuePair newQp() {
            lastQp = super.newQp();
            return lastQp;
        }

        @Override
        public byte[] authKey() {
            return PSK;
        }

        @Override
        public void emit(MemorySegment datagram, int length, long remote) {
            super.emit(datagram, length, remote);
            int op = datagram.get(ValueLayout.JAVA_BYTE, BaseHeader.OPCODE) & 0xFF;
            if (CmAuth.sealed(datagram, length) && op != Opcode.CM_REQ) { // our attempt's retries are sealed REQs
                sealedEmitted++;
            }
        }
    }
}
